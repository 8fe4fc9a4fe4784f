/**
 * BIP-380 output descriptors: parsing with checksum verification, network checks and BIP-389
 * multipath expansion. Parsing never throws on user input; it returns a {@link ParseResult}.
 */
import type { AddressType } from '../address.js';
import { NETWORK_NAMES, type NetworkName } from '../network.js';
import { checkDescriptorChecksum } from './descriptor-checksum.js';
import { collectKeys, parseScriptExpression, shapeOf, type ScriptNode } from './descriptor-parser.js';
import type { KeyExpression } from './key-expression.js';
import { KeyParseFailure, fail, ok, type ParseResult } from './parse-result.js';
import type { KeyNetwork, KeyScriptHint } from './slip132.js';

export type { AddressType };

/** Live mode accepts mainnet only; test mode accepts testnet, signet and regtest. */
export type Mode = 'live' | 'test';

/** Options shared by the descriptor and wallet parsers. */
export interface DescriptorParseOptions {
  /** The network the caller expects; keys and addresses for another network are rejected. */
  network?: NetworkName;
  /** Alternatively, the mode: live = mainnet, test = any test network. Ignored when `network` is set. */
  mode?: Mode;
  /** Reject descriptors without a `#checksum` suffix. Default false (BIP-380 makes it optional). */
  requireChecksum?: boolean;
  /**
   * Accept private keys (WIF, xprv). Default false: the service only ever needs public keys.
   * Meant for running the BIP test vectors, most of which are written with private keys.
   */
  allowPrivateKeys?: boolean;
}

/** A parsed, validated descriptor. */
export interface Descriptor {
  /** Descriptor text without checksum, as given (surrounding whitespace removed). */
  readonly body: string;
  /** The BIP-380 checksum of `body`. */
  readonly checksum: string;
  /** `body#checksum`. */
  readonly text: string;
  /** Network its addresses are encoded for. */
  readonly network: NetworkName;
  /** Function skeleton, e.g. `wpkh`, `sh(wsh(sortedmulti))`. */
  readonly shape: string;
  /** Type of the addresses it produces, or undefined for scripts without an address form (pk, bare multi, some raw). */
  readonly addressType: AddressType | undefined;
  /** Whether it describes a range of scripts (a key ends in `/*`). */
  readonly isRange: boolean;
  /** Number of descriptors it expands to: the length of its `<a;b;...>` steps, or 1. */
  readonly multipathCount: number;
  readonly hasPrivateKeys: boolean;
  /** Key expressions in textual order. */
  readonly keys: readonly KeyExpression[];
  readonly root: ScriptNode;
}

const MAX_DESCRIPTOR_LENGTH = 10_000;

function addressTypeOf(node: ScriptNode): AddressType | undefined {
  switch (node.fn) {
    case 'pkh':
      return 'p2pkh';
    case 'wpkh':
      return 'p2wpkh';
    case 'tr':
      return 'p2tr';
    case 'sh':
      return 'p2sh';
    case 'wsh':
      return 'p2wsh';
    case 'addr':
    case 'raw':
      return scriptAddressType(node.scriptPubKey);
    default:
      return undefined;
  }
}

function scriptAddressType(script: Uint8Array): AddressType | undefined {
  const [a, b, c] = script;
  if (script.length === 25 && a === 0x76 && b === 0xa9 && c === 0x14 && script[23] === 0x88 && script[24] === 0xac) return 'p2pkh';
  if (script.length === 23 && a === 0xa9 && b === 0x14 && script[22] === 0x87) return 'p2sh';
  if (script.length === 22 && a === 0x00 && b === 0x14) return 'p2wpkh';
  if (script.length === 34 && a === 0x00 && b === 0x20) return 'p2wsh';
  if (script.length === 34 && a === 0x51 && b === 0x20) return 'p2tr';
  return undefined;
}

const SLIP132_SHAPES: Record<KeyScriptHint, readonly string[] | undefined> = {
  p2pkh: undefined,
  'p2sh-p2wpkh': ['sh(wpkh)'],
  p2wpkh: ['wpkh'],
  'p2sh-p2wsh-multisig': ['sh(wsh(multi))', 'sh(wsh(sortedmulti))'],
  'p2wsh-multisig': ['wsh(multi)', 'wsh(sortedmulti)'],
};

function checkSlip132Shapes(keys: readonly KeyExpression[], shape: string): ParseResult<true> {
  for (const k of keys) {
    if (k.key.kind !== 'extended') continue;
    const allowed = SLIP132_SHAPES[k.key.info.scriptHint];
    if (allowed && !allowed.includes(shape)) {
      return fail(
        'key_type_mismatch',
        `${k.key.info.prefix} announces ${k.key.info.scriptHint} but is used in ${shape}(); check the script type, or convert the key to ${k.key.info.network === 'mainnet' ? 'xpub' : 'tpub'}`,
        k.start,
      );
    }
  }
  return ok(true);
}

function describeNetwork(n: KeyNetwork): string {
  return n === 'mainnet' ? 'mainnet' : 'a test network (testnet/signet/regtest)';
}

function resolveNetwork(node: ScriptNode, keys: readonly KeyExpression[], opts: DescriptorParseOptions): ParseResult<NetworkName> {
  let implied: KeyNetwork | undefined;
  for (const k of keys) {
    if (!k.network) continue;
    if (implied && implied !== k.network) return fail('mixed_networks', 'the descriptor mixes mainnet and test-network keys', k.start);
    implied = k.network;
  }
  const addrNetworks = node.fn === 'addr' ? node.networks : undefined;
  if (addrNetworks) implied = addrNetworks.includes('mainnet') ? 'mainnet' : 'test';
  if (opts.network) {
    const wanted: KeyNetwork = opts.network === 'mainnet' ? 'mainnet' : 'test';
    if (implied && implied !== wanted) {
      return fail('wrong_network', `the descriptor is for ${describeNetwork(implied)} but ${opts.network} was requested`);
    }
    if (addrNetworks && !addrNetworks.includes(opts.network)) {
      return fail('wrong_network', `the address is not a ${opts.network} address`);
    }
    return ok(opts.network);
  }
  if (opts.mode) {
    const wanted: KeyNetwork = opts.mode === 'live' ? 'mainnet' : 'test';
    if (implied && implied !== wanted) {
      return fail('wrong_network', `the descriptor is for ${describeNetwork(implied)}, which ${opts.mode} mode does not accept`);
    }
  }
  if (addrNetworks) return ok(addrNetworks[0] as NetworkName);
  if (implied === 'test' || opts.mode === 'test') return ok('testnet');
  return ok('mainnet');
}

/**
 * Parses a BIP-380 descriptor, with or without its `#checksum` (verified when present).
 *
 * Supported: `pkh`, `wpkh`, `sh(wpkh)`, `tr(KEY)`, `wsh(multi|sortedmulti)`,
 * `sh(wsh(multi|sortedmulti))`, `sh(multi|sortedmulti)`, plus `pk`, bare `multi`, `wsh(pk|pkh)`,
 * `sh(pk|pkh)`, `addr` and `raw`. Keys may carry origins `[fingerprint/path]` and a BIP-389
 * multipath step. Everything else (combo, taproot trees, miniscript, musig) is reported as
 * `unsupported_function`.
 *
 * The network is taken from `opts.network` when given (and the keys must agree), else from the
 * keys: xpub-family keys mean mainnet, tpub-family keys a test network (reported as `testnet`
 * unless `opts.network` says signet or regtest); descriptors of bare hex keys default to mainnet.
 */
export function parseDescriptor(input: unknown, opts: DescriptorParseOptions = {}): ParseResult<Descriptor> {
  if (typeof input !== 'string') return fail('empty_input', 'a descriptor must be given as text');
  const trimmed = input.trim();
  if (trimmed.length === 0) return fail('empty_input', 'the descriptor is empty');
  if (trimmed.length > MAX_DESCRIPTOR_LENGTH) return fail('input_too_long', `a descriptor is at most ${MAX_DESCRIPTOR_LENGTH} characters`);
  if (opts.network !== undefined && !NETWORK_NAMES.includes(opts.network))
    return fail('wrong_network', `unknown network ${String(opts.network)}`);
  const checked = checkDescriptorChecksum(trimmed);
  if (!checked.ok) return fail(checked.code, checked.reason, checked.position);
  if (opts.requireChecksum && !checked.hadChecksum) {
    return fail('missing_checksum', 'the descriptor has no #checksum; export it again from the wallet with its checksum');
  }
  let root: ScriptNode;
  try {
    root = parseScriptExpression(checked.body, { allowPrivateKeys: opts.allowPrivateKeys === true });
  } catch (err) {
    if (err instanceof KeyParseFailure) return { ok: false, error: err.detail };
    throw err;
  }
  const keys = collectKeys(root);
  const shape = shapeOf(root);
  const lengths = new Set(keys.filter((k) => k.multipath).map((k) => k.multipath?.alternatives.length));
  if (lengths.size > 1)
    return fail('invalid_multipath', 'all multipath steps (<a;b;...>) in a descriptor must have the same number of indices');
  const slip = checkSlip132Shapes(keys, shape);
  if (!slip.ok) return slip;
  const network = resolveNetwork(root, keys, opts);
  if (!network.ok) return network;
  return ok({
    body: checked.body,
    checksum: checked.checksum,
    text: `${checked.body}#${checked.checksum}`,
    network: network.value,
    shape,
    addressType: addressTypeOf(root),
    isRange: keys.some((k) => k.key.kind === 'extended' && k.key.wildcard !== 'none'),
    multipathCount: [...lengths][0] ?? 1,
    hasPrivateKeys: keys.some((k) => k.isPrivate),
    keys,
    root,
  });
}

/**
 * Splits a multipath descriptor into its single-path descriptors (BIP-389): the i-th one takes
 * the i-th index of every `<...>` step. A descriptor without multipath expands to itself.
 * For `<0;1>` wallets, index 0 is the receive chain and index 1 the change chain.
 */
export function expandMultipath(descriptor: Descriptor): Descriptor[] {
  if (descriptor.multipathCount === 1) return [descriptor];
  const spans = descriptor.keys.flatMap((k) => (k.multipath ? [k.multipath] : [])).sort((a, b) => b.start - a.start);
  const out: Descriptor[] = [];
  for (let i = 0; i < descriptor.multipathCount; i++) {
    let body = descriptor.body;
    for (const span of spans) body = body.slice(0, span.start) + (span.alternatives[i] as string) + body.slice(span.end);
    const parsed = parseDescriptor(body, { network: descriptor.network, allowPrivateKeys: descriptor.hasPrivateKeys });
    if (!parsed.ok) throw new Error(`expanding a valid multipath descriptor failed: ${parsed.error.reason}`);
    out.push(parsed.value);
  }
  return out;
}
