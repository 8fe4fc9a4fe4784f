import type { Config } from '../config/config.js';
import type { Mode } from '../scope.js';
import { urlTextProblem } from '../url-text.js';
import { classifyAddress, parseIp, type AddressKind } from './ip-address.js';
import type { ResolvedAddress, WebhookNetwork } from './network.js';

/** Longest URL an endpoint may have. */
export const MAX_URL_LENGTH = 2048;

/** Raised when a URL or an address it resolves to breaks the rules; the message says which rule. */
export class UrlRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UrlRefused';
  }
}

/** Where the webhooks of one endpoint may go: its mode's rules, and whether loopback addresses are allowed. */
export interface TargetRules {
  mode: Mode;
  loopback: boolean;
}

/**
 * The rules for an endpoint of `mode` on this server. Loopback is for test mode only, and only
 * where the server allows it (`WEBHOOK_ALLOW_LOOPBACK`, off by default in production): on a
 * developer's machine 127.0.0.1 is the integrator's own receiver, on a production server it is
 * the server itself, where any client's test key could otherwise probe our local services.
 */
export function targetRules(config: Pick<Config, 'webhookAllowLoopback'>, mode: Mode): TargetRules {
  return { mode, loopback: mode === 'test' && config.webhookAllowLoopback };
}

/**
 * Live mode: https only, to a public address, on port 443 or an unprivileged port (1024–65535), so a
 * webhook can never be aimed at our own network or at mail, SSH and other well-known services.
 * Test mode: http too and any port, and loopback addresses where `targetRules` allow them, so
 * integrators can receive on their own machine. Both: no user name or password in the URL, no
 * fragment, never a private, link-local, shared (CGNAT), multicast, unspecified, documentation or
 * reserved address, and no character that parsing would drop or reinterpret (white space,
 * control characters, `\`).
 */
export function checkUrlShape(raw: string, mode: Mode): URL {
  const textProblem = urlTextProblem(raw);
  if (textProblem !== undefined) throw new UrlRefused(textProblem);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused('must be an absolute URL such as https://example.com/webhooks');
  }
  if (mode === 'live' && url.protocol !== 'https:') throw new UrlRefused('must use https in live mode');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UrlRefused('must use http or https');
  if (url.username !== '' || url.password !== '') throw new UrlRefused('must not contain a user name or password');
  if (url.hash !== '' || raw.includes('#')) throw new UrlRefused('must not contain a fragment (#...)');
  if (url.hostname === '') throw new UrlRefused('must name a host');
  if (mode === 'live' && url.port !== '') {
    const port = Number(url.port);
    if (port !== 443 && port < 1024) throw new UrlRefused('must use port 443 or a port from 1024 to 65535 in live mode');
  }
  return url;
}

/** Whether a webhook may be sent to an address of this kind under these rules. */
export function addressAllowed(kind: AddressKind | undefined, rules: TargetRules): boolean {
  return kind === 'public' || (rules.loopback && kind === 'loopback');
}

/** Throws UrlRefused unless every address is allowed; returns the addresses otherwise. */
export function checkAddresses(hostname: string, addresses: ResolvedAddress[], rules: TargetRules): ResolvedAddress[] {
  if (addresses.length === 0) throw new UrlRefused(`host ${hostname} does not resolve`);
  for (const { address } of addresses) {
    const kind = classifyAddress(address);
    if (!addressAllowed(kind, rules)) {
      throw new UrlRefused(`host ${hostname} resolves to ${address}, a ${kind ?? 'unknown'} address; ${allowedTargets(rules)}`);
    }
  }
  return addresses;
}

/**
 * The URL's host as an IP literal (brackets removed) after checking it against the rules, or
 * undefined when the host is a name (checked when it is resolved). Node connects to a literal
 * without resolving it, so whoever connects checks literals here.
 */
export function checkIpLiteral(url: URL, rules: TargetRules): string | undefined {
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!parseIp(literal)) return undefined;
  const kind = classifyAddress(literal);
  if (!addressAllowed(kind, rules)) throw new UrlRefused(`${literal} is a ${kind ?? 'unknown'} address; ${allowedTargets(rules)}`);
  return literal;
}

/**
 * The full check when an endpoint is created or its URL changed: the shape, then the addresses
 * the host resolves to right now. Delivery checks again (DNS may change; see send.ts).
 * Returns the URL as it will be requested (its WHATWG serialisation: scheme and host in lower case,
 * default port and dot segments dropped, other characters percent-encoded), which is what is stored
 * and shown, so the endpoint never names a URL other than the one deliveries go to.
 */
export async function checkWebhookUrl(network: WebhookNetwork, raw: string, rules: TargetRules): Promise<string> {
  const url = checkUrlShape(raw, rules.mode);
  if (checkIpLiteral(url, rules) !== undefined) return url.href;
  let addresses: ResolvedAddress[];
  try {
    addresses = await network.resolve(url.hostname);
  } catch {
    throw new UrlRefused(`host ${url.hostname} does not resolve`);
  }
  checkAddresses(url.hostname, addresses, rules);
  return url.href;
}

function allowedTargets(rules: TargetRules): string {
  if (rules.mode === 'live') return 'live mode only sends to public addresses';
  return rules.loopback ? 'test mode only sends to public and loopback addresses' : 'this server only sends webhooks to public addresses';
}
