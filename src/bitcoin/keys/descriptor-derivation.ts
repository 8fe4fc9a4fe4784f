/**
 * Turns a parsed descriptor into output scripts and addresses for a child index. Intermediate
 * BIP-32 nodes (everything before the `/*`) are derived once per descriptor and path and cached,
 * so deriving a range costs one child derivation per key and index.
 */
import { concatBytes } from '@noble/hashes/utils.js';
import { hash160, sha256 } from '../hashes.js';
import type { HDKey } from '@scure/bip32';
import { Script } from '@scure/btc-signer';
import { addressFromScript } from '../address.js';
import { publicChild, taprootOutputKey } from './child-public-key.js';
import type { Descriptor } from './descriptor.js';
import type { ScriptNode } from './descriptor-parser.js';
import { HARDENED, type KeyExpression } from './key-expression.js';

/** One output script of a descriptor. */
export interface DerivedOutput {
  /** Child index used for `/*` (0 for non-ranged descriptors). */
  index: number;
  /** Which alternative of the multipath step was used (0 without multipath). */
  pathIndex: number;
  scriptPubKey: Uint8Array;
  /** Its address, or undefined for scripts that have none (pk, bare multisig, non-standard raw). */
  address: string | undefined;
}

const P2PKH_PREFIX = Uint8Array.of(0x76, 0xa9, 0x14);
const P2PKH_SUFFIX = Uint8Array.of(0x88, 0xac);

const baseNodes = new WeakMap<KeyExpression, Map<number, HDKey>>();
function baseNode(expr: KeyExpression, pathIndex: number): HDKey {
  if (expr.key.kind !== 'extended') throw new Error('not an extended key');
  let perPath = baseNodes.get(expr);
  if (!perPath) {
    perPath = new Map();
    baseNodes.set(expr, perPath);
  }
  let node = perPath.get(pathIndex);
  if (!node) {
    node = expr.key.info.node;
    for (const step of expr.key.steps) node = node.deriveChild((step.length > 1 ? step[pathIndex] : step[0]) as number);
    perPath.set(pathIndex, node);
  }
  return node;
}

/** The public key a key expression yields at a child index, serialized for its context. */
function publicKeyAt(expr: KeyExpression, pathIndex: number, index: number, xOnly: boolean): Uint8Array {
  let pub: Uint8Array;
  if (expr.key.kind === 'constant') {
    pub = expr.key.publicKey;
  } else {
    const base = baseNode(expr, pathIndex);
    const wildcard = expr.key.wildcard;
    if (wildcard === 'none') pub = base.publicKey as Uint8Array;
    else if (wildcard === 'hardened') pub = base.deriveChild(index + HARDENED).publicKey as Uint8Array;
    else {
      const fast = publicChild({ publicKey: base.publicKey as Uint8Array, chainCode: base.chainCode as Uint8Array }, index);
      pub = fast ? fast.publicKey : (base.deriveChild(index).publicKey as Uint8Array);
    }
  }
  return xOnly && pub.length === 33 ? pub.subarray(1) : pub;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  }
  return a.length - b.length;
}

function encode(node: ScriptNode, pathIndex: number, index: number): Uint8Array {
  switch (node.fn) {
    case 'pk': {
      return Script.encode([publicKeyAt(node.key, pathIndex, index, false), 'CHECKSIG']);
    }
    case 'pkh': {
      return concatBytes(P2PKH_PREFIX, hash160(publicKeyAt(node.key, pathIndex, index, false)), P2PKH_SUFFIX);
    }
    case 'wpkh': {
      return concatBytes(Uint8Array.of(0x00, 0x14), hash160(publicKeyAt(node.key, pathIndex, index, false)));
    }
    case 'tr': {
      return concatBytes(Uint8Array.of(0x51, 0x20), taprootOutputKey(publicKeyAt(node.key, pathIndex, index, true)));
    }
    case 'sh': {
      return concatBytes(Uint8Array.of(0xa9, 0x14), hash160(encode(node.inner, pathIndex, index)), Uint8Array.of(0x87));
    }
    case 'wsh': {
      return concatBytes(Uint8Array.of(0x00, 0x20), sha256(encode(node.inner, pathIndex, index)));
    }
    case 'multi':
    case 'sortedmulti': {
      const keys = node.keys.map((k) => publicKeyAt(k, pathIndex, index, false));
      if (node.fn === 'sortedmulti') keys.sort(compareBytes);
      return Script.encode([node.threshold, ...keys, keys.length, 'CHECKMULTISIG']);
    }
    case 'addr':
    case 'raw':
      return node.scriptPubKey;
  }
}

/**
 * Derives the output at child `index` of alternative `pathIndex` of a descriptor.
 * Throws RangeError for an index outside 0..2^31-1 or a path index outside the multipath
 * alternatives: those are programming errors, not user input.
 */
export function deriveOutput(descriptor: Descriptor, index: number, pathIndex = 0): DerivedOutput {
  if (!Number.isInteger(index) || index < 0 || index >= HARDENED) throw new RangeError(`child index ${index} is outside 0..2^31-1`);
  if (!Number.isInteger(pathIndex) || pathIndex < 0 || pathIndex >= descriptor.multipathCount) {
    throw new RangeError(`path index ${pathIndex} is outside 0..${descriptor.multipathCount - 1}`);
  }
  const scriptPubKey = encode(descriptor.root, pathIndex, index);
  // P2PK and bare multisig have no address even though addressFromScript would not object to them.
  const address = descriptor.addressType ? addressFromScript(scriptPubKey, descriptor.network) : undefined;
  return { index, pathIndex, scriptPubKey, address };
}
