/**
 * A wallet to watch: its receive and change descriptors, from whatever the user pasted — a plain
 * extended public key (mapped by its SLIP-132 prefix), a multipath descriptor (`/<0;1>/*`), or a
 * pair of descriptors.
 *
 * SLIP-132 mapping of a plain key (account-level key, BIP-44/49/84 layout: chain 0 = receive,
 * chain 1 = change):
 *
 * | prefix      | descriptor                    | addresses     |
 * |-------------|-------------------------------|---------------|
 * | xpub / tpub | `pkh(KEY/<0;1>/*)`            | P2PKH (BIP-44)|
 * | ypub / upub | `sh(wpkh(KEY/<0;1>/*))`       | P2SH-P2WPKH (BIP-49) |
 * | zpub / vpub | `wpkh(KEY/<0;1>/*)`           | P2WPKH (BIP-84) |
 * | Ypub Zpub Upub Vpub | refused: one cosigner's key cannot describe a multisig wallet; give a `wsh(sortedmulti(...))` descriptor |
 *
 * An xpub is also what BIP-86 (taproot) wallets export; such wallets must be given as a `tr(...)`
 * descriptor, since the prefix cannot tell them apart from BIP-44.
 */
import { hex } from '@scure/base';
import { parseAddress } from '../address.js';
import type { NetworkName } from '../network.js';
import { expandMultipath, parseDescriptor, type AddressType, type Descriptor, type DescriptorParseOptions } from './descriptor.js';
import { deriveOutput } from './descriptor-derivation.js';
import { decodeExtendedKey } from './extended-key.js';
import { fail, ok, type ParseResult } from './parse-result.js';
import type { KeyScriptHint } from './slip132.js';

/** Receive (external, chain 0) or change (internal, chain 1). */
export type WalletChain = 'receive' | 'change';

/** An address of a wallet. */
export interface DerivedAddress {
  chain: WalletChain;
  index: number;
  address: string;
  /** Hex. */
  scriptPubKey: string;
}

/** A parsed wallet. */
export interface WalletDescriptor {
  readonly network: NetworkName;
  /** What the user gave. */
  readonly source: 'extended-key' | 'descriptor' | 'address';
  /** Canonical descriptor with checksum: the multipath form when receive and change come from one. */
  readonly descriptor: string;
  readonly addressType: AddressType;
  readonly receive: Descriptor;
  /** Undefined when the input described a single chain. */
  readonly change: Descriptor | undefined;
  /** False for a descriptor of one fixed address (no `/*`). */
  readonly isRange: boolean;
}

/** What {@link parseWalletDescriptor} accepts. */
export type WalletInput = string | { receive: string; change?: string };

const SLIP132_TEMPLATES: Record<KeyScriptHint, ((key: string) => string) | undefined> = {
  p2pkh: (key) => `pkh(${key}/<0;1>/*)`,
  'p2sh-p2wpkh': (key) => `sh(wpkh(${key}/<0;1>/*))`,
  p2wpkh: (key) => `wpkh(${key}/<0;1>/*)`,
  'p2sh-p2wsh-multisig': undefined,
  'p2wsh-multisig': undefined,
};

/**
 * The descriptor a plain extended public key stands for (table above), with the key re-encoded as
 * xpub/tpub as descriptors require.
 */
export function descriptorForExtendedKey(text: string, opts: DescriptorParseOptions = {}): ParseResult<string> {
  const parsed = extendedKeyDescriptor(text, opts);
  return parsed.ok ? ok(parsed.value.text) : parsed;
}

/** The parsed descriptor of a plain extended public key (see descriptorForExtendedKey). */
function extendedKeyDescriptor(text: string, opts: DescriptorParseOptions): ParseResult<Descriptor> {
  const decoded = decodeExtendedKey(text.trim(), { allowPrivate: opts.allowPrivateKeys === true });
  if (!decoded.ok) return decoded;
  const info = decoded.value;
  const template = SLIP132_TEMPLATES[info.scriptHint];
  if (!template) {
    return fail(
      'multisig_key_needs_descriptor',
      `${info.prefix} is one cosigner's key of a multisig wallet; give the wallet's descriptor, e.g. wsh(sortedmulti(2,${info.network === 'mainnet' ? 'xpub' : 'tpub'}1/<0;1>/*,...))`,
    );
  }
  const key = info.isPrivate ? info.node.privateExtendedKey : info.node.publicExtendedKey;
  // We wrote this text ourselves: `requireChecksum` is about what the user typed, which had none to give.
  return parseDescriptor(template(key), { ...opts, requireChecksum: false });
}

function looksLikeExtendedKey(text: string): boolean {
  // Any alphanumerics, not just base58: a mistyped key should get the extended-key error, not a descriptor syntax error.
  return /^[a-zA-Z]{4}[0-9a-zA-Z]{90,130}$/.test(text);
}

function fromDescriptor(d: Descriptor, source: WalletDescriptor['source']): ParseResult<WalletDescriptor> {
  if (!d.addressType) return fail('no_address', `${d.shape}() scripts have no address, so they cannot be watched by address`);
  if (d.multipathCount > 2) {
    return fail(
      'too_many_paths',
      `the descriptor has ${d.multipathCount} multipath alternatives; only receive/change (<0;1>) is supported`,
    );
  }
  const [receive, change] = expandMultipath(d);
  return ok({
    network: d.network,
    source,
    descriptor: d.text,
    addressType: d.addressType,
    receive: receive as Descriptor,
    change,
    isRange: d.isRange,
  });
}

/**
 * Parses what a user gives to connect a wallet. Never throws on user input.
 * - A string holding one extended public key: mapped by its SLIP-132 prefix (table above).
 * - A string holding one descriptor: `/<0;1>/*` gives receive and change; a single-path
 *   descriptor gives only a receive chain.
 * - `{receive, change}`: two single-path descriptors (as Bitcoin Core's `listdescriptors` shows them).
 * - A string holding one address: the one-address wallet `addr(ADDRESS)`.
 */
export function parseWalletDescriptor(input: unknown, opts: DescriptorParseOptions = {}): ParseResult<WalletDescriptor> {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const { receive, change } = input as { receive?: unknown; change?: unknown };
    const r = parseDescriptor(receive, opts);
    if (!r.ok) return r;
    if (change === undefined) return fromDescriptor(r.value, 'descriptor');
    const c = parseDescriptor(change, { ...opts, network: r.value.network });
    if (!c.ok) return c;
    if (r.value.multipathCount > 1 || c.value.multipathCount > 1) {
      return fail('invalid_multipath', 'give either one multipath descriptor or two single-path descriptors, not both');
    }
    if (!r.value.addressType || !c.value.addressType) return fail('no_address', 'the descriptors have no address form');
    if (r.value.addressType !== c.value.addressType) {
      return fail(
        'key_type_mismatch',
        `receive descriptor gives ${r.value.addressType} addresses, change descriptor ${c.value.addressType}`,
      );
    }
    return ok({
      network: r.value.network,
      source: 'descriptor',
      descriptor: r.value.text,
      addressType: r.value.addressType,
      receive: r.value,
      change: c.value,
      isRange: r.value.isRange || c.value.isRange,
    });
  }
  if (typeof input !== 'string') return fail('empty_input', 'give an extended public key or a descriptor');
  const text = input.trim();
  if (text.length === 0) return fail('empty_input', 'give an extended public key or a descriptor');
  if (looksLikeExtendedKey(text)) {
    const parsed = extendedKeyDescriptor(text, opts);
    if (!parsed.ok) return parsed;
    return fromDescriptor(parsed.value, 'extended-key');
  }
  if (parseAddress(text).ok) {
    const parsed = parseDescriptor(`addr(${text})`, { ...opts, requireChecksum: false });
    if (!parsed.ok) return parsed;
    return fromDescriptor(parsed.value, 'address');
  }
  const parsed = parseDescriptor(text, opts);
  if (!parsed.ok) return parsed;
  return fromDescriptor(parsed.value, 'descriptor');
}

/**
 * The address at `index` of a chain. Throws RangeError for the change chain of a wallet without
 * one, or an index outside 0..2^31-1 (programming errors).
 */
export function deriveWalletAddress(wallet: WalletDescriptor, chain: WalletChain, index: number): DerivedAddress {
  const descriptor = chain === 'receive' ? wallet.receive : wallet.change;
  if (!descriptor) throw new RangeError('this wallet has no change chain');
  const output = deriveOutput(descriptor, index);
  return { chain, index, address: output.address as string, scriptPubKey: hex.encode(output.scriptPubKey) };
}

/** `count` consecutive addresses of a chain from `start`. */
export function deriveWalletAddresses(wallet: WalletDescriptor, chain: WalletChain, start: number, count: number): DerivedAddress[] {
  const out: DerivedAddress[] = [];
  for (let i = 0; i < count; i++) out.push(deriveWalletAddress(wallet, chain, start + i));
  return out;
}
