/**
 * The two elliptic-curve steps of address derivation, on libsecp256k1 (tiny-secp256k1, WASM),
 * which does them several times faster than the pure-JS path of @scure/bip32 and
 * @scure/btc-signer: BIP-32 public child derivation (CKDpub) and the BIP-341/BIP-86 taproot
 * output-key tweak. Results are checked against those libraries in child-public-key.test.ts.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import * as secp from 'tiny-secp256k1';
import { taggedHasher } from '../hashes.js';

/** A public key with its chain code. */
export interface PublicNode {
  publicKey: Uint8Array;
  chainCode: Uint8Array;
}

/**
 * CKDpub for a non-hardened index: I = HMAC-SHA512(c, K ‖ ser32(i)), K_i = K + I_L·G, c_i = I_R.
 * Returns undefined when I_L ≥ n or K_i is the point at infinity (probability about 2^-127),
 * so the caller can fall back to @scure/bip32, which handles that case.
 */
export function publicChild(parent: PublicNode, index: number): PublicNode | undefined {
  const data = new Uint8Array(37);
  data.set(parent.publicKey);
  new DataView(data.buffer).setUint32(33, index, false);
  const I = hmac(sha512, parent.chainCode, data);
  const tweak = I.subarray(0, 32);
  if (!secp.isPrivate(tweak)) return undefined;
  const child = secp.pointAddScalar(parent.publicKey, tweak, true);
  return child ? { publicKey: child, chainCode: I.slice(32) } : undefined;
}

const tapTweak = taggedHasher('TapTweak');

/**
 * BIP-86 output key of an x-only internal key: Q = P + int(hash_TapTweak(P))·G, x-only.
 * Throws for a key that is not on the curve (callers only pass keys they derived).
 */
export function taprootOutputKey(internalKey: Uint8Array): Uint8Array {
  const tweaked = secp.xOnlyPointAddTweak(internalKey, tapTweak(internalKey));
  if (!tweaked) throw new Error('taproot tweak produced the point at infinity');
  return tweaked.xOnlyPubkey;
}
