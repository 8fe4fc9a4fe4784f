import { isIPv4, isIPv6 } from 'node:net';
import { classifyAddress } from '../webhooks/ip-address.js';

/** A sender or recipient: an address and, for a sender, an optional display name. */
export interface Mailbox {
  name: string | undefined;
  address: string;
}

/** RFC 5322 `dot-atom` local part: what every address form the API accepts (ajv's `email`) uses. */
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const DOMAIN = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
/** `[192.0.2.1]` or `[IPv6:2001:db8::1]` (RFC 5321 address literals): a PUBLIC_BASE_URL may be an IP. */
const ADDRESS_LITERAL = /^\[(?:IPv6:)?[0-9A-Fa-f:.]+\]$/;

/**
 * Whether `text` is one plain e-mail address (`local@domain`, ASCII, no display name, no
 * comments, no list). Mail goes to exactly one recipient: a string like `a@x.com, b@y.com` that a
 * looser parser would read as two recipients is refused, so a bug can never copy a magic link to
 * someone else.
 */
export function isMailAddress(text: string): boolean {
  if (text.length > 254) return false;
  const at = text.lastIndexOf('@');
  if (at < 1) return false;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (local.length > 64 || !LOCAL_PART.test(local)) return false;
  if (DOMAIN.test(domain)) return domain.length <= 253;
  return ADDRESS_LITERAL.test(domain) && (isIPv4(domain.slice(1, -1)) || (domain.startsWith('[IPv6:') && isIPv6(domain.slice(6, -1))));
}

/**
 * The key one person's address is known by (the portal's sign-in, a claim's controller): the
 * address with ASCII letters lower-cased, as mail systems treat `Ada@Example.com` and
 * `ada@example.com` alike. Only ASCII is folded: addresses are ASCII by rule (`isMailAddress`, the
 * API's `email` format), and Unicode case mapping would merge different mailboxes (the Kelvin sign
 * `K` lower-cases to `k`).
 */
export function emailIdentity(address: string): string {
  return address.trim().replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** `Name <address>`, `"Name, Inc." <address>` or a bare address; undefined when it is none of these. */
export function parseMailbox(text: string): Mailbox | undefined {
  const value = text.trim();
  if (isMailAddress(value)) return { name: undefined, address: value };
  const match = /^(?:"([^"\\]*)"|([^"<>]*?))\s*<([^<>\s]+)>$/.exec(value);
  if (!match) return undefined;
  const name = (match[1] ?? match[2] ?? '').trim();
  const address = match[3] ?? '';
  // Control characters (a line break above all) would let a name add a header of its own.
  if (/\p{Cc}/u.test(name) || !isMailAddress(address)) return undefined;
  return { name: name === '' ? undefined : name, address };
}

/** The mailbox as a From header shows it; a name with RFC 5322 specials is quoted. */
export function formatMailbox(mailbox: Mailbox): string {
  if (mailbox.name === undefined) return mailbox.address;
  const name = /[()<>[\]:;@\\,."]/.test(mailbox.name) ? `"${mailbox.name}"` : mailbox.name;
  return `${name} <${mailbox.address}>`;
}

/** The domain part of an address for `host` (a URL's hostname): a name, or an address literal for an IP. */
export function addressDomain(host: string): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (isIPv4(bare)) return `[${bare}]`;
  if (isIPv6(bare)) return `[IPv6:${bare}]`;
  return bare;
}

/**
 * Whether a host name or IP address (as a URL gives it) is this machine: `localhost` (RFC 6761
 * keeps it there), 127.0.0.0/8 or ::1. Mail to such a host never crosses a network.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare.endsWith('.localhost') || classifyAddress(bare) === 'loopback';
}
