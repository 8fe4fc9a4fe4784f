import { sha1 } from '@noble/hashes/legacy.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { RMD_STATE, RMD_TAIL, ripemd160, ripemd160Compress, ripemd160Digest } from './ripemd160.js';
import { RMD_IV } from './ripemd160-tables.js';
import {
  JS_MAX_BYTES,
  nativeSha256,
  sha256,
  sha256Compress,
  sha256d,
  sha256Digest,
  sha256Finish,
  sha256ToState,
  SHA256_IV,
  SHA_STATE,
  writeBigEndian,
} from './sha256.js';

export { ripemd160, sha1, sha256, sha256d };

/*
 * SHA-256 and RIPEMD-160 are the verifier's own main cost: a verification hashes a dozen or so
 * short inputs (message hash, to_spend txid, hashPrevouts, sighash, hash160s), most of them one
 * 64-byte block. Measured per call on this machine:
 *
 *                              @noble/hashes   node:crypto `hash`   ours
 *   one block (≤ 55 bytes)       2.3 µs          0.8 µs               0.45 µs
 *   three blocks (180 bytes)     3.5 µs          0.8 µs               1.15 µs
 *
 * Node's native hash is fast per block (SHA extensions) but pays ~0.8 µs of call overhead; the
 * straight-line compression functions (sha256.ts, ripemd160.ts), run on preallocated buffers, win up to two blocks.
 * So inputs of up to two blocks are hashed here, longer ones natively; SHA256d and HASH160 feed
 * the first digest straight into the second block without an intermediate array, and BIP-340
 * tagged hashes start from the tag's precomputed midstate. fast-paths.test.ts checks every path
 * against node:crypto and @noble/hashes at every length around the block boundaries.
 *
 * Everything here is single-threaded and synchronous, so module-level scratch buffers are safe;
 * results are always fresh arrays.
 */

/** RIPEMD160(SHA256(data)): P2PKH, P2WPKH and P2SH hashes. The SHA-256 digest goes straight into RIPEMD-160's one block. */
export function hash160(data: Uint8Array): Uint8Array {
  sha256ToState(data);
  writeBigEndian(SHA_STATE, RMD_TAIL);
  RMD_TAIL[32] = 0x80;
  RMD_TAIL.fill(0, 33, 64);
  RMD_TAIL[56] = 0x00; // 256 bits, little-endian
  RMD_TAIL[57] = 0x01;
  RMD_STATE.set(RMD_IV);
  ripemd160Compress(RMD_STATE, RMD_TAIL, 0);
  return ripemd160Digest(RMD_STATE);
}

// ---------------------------------------------------------------------------------------------
// BIP-340 tagged hashes

/**
 * Where long tagged-hash inputs (sighash preimages, tapleaf scripts) are put behind their prefix
 * for the native hash: reused, as a Uint8Array over 64 bytes costs about 1 µs to allocate. Longer
 * inputs than it holds (large tapscripts) get their own buffer.
 */
const TAG_SCRATCH = new Uint8Array(1024);

/**
 * A BIP-340 tagged hash, SHA256(SHA256(tag) ‖ SHA256(tag) ‖ parts). The 64-byte tag prefix is
 * exactly one block, so its midstate is computed once per tag and each call only hashes its own
 * data; long data goes to the native hash with the prefix prepended instead.
 */
export function taggedHasher(tag: string): (...parts: Uint8Array[]) => Uint8Array {
  const tagHash = sha256(new TextEncoder().encode(tag));
  const prefix = new Uint8Array(64);
  prefix.set(tagHash, 0);
  prefix.set(tagHash, 32);
  const midstate = SHA256_IV.slice();
  sha256Compress(midstate, prefix, 0);
  return (...parts) => {
    const data = parts.length === 1 ? parts[0]! : concatBytes(...parts);
    if (data.length > JS_MAX_BYTES) {
      const whole = 64 + data.length <= TAG_SCRATCH.length ? TAG_SCRATCH.subarray(0, 64 + data.length) : new Uint8Array(64 + data.length);
      whole.set(prefix, 0);
      whole.set(data, 64);
      return nativeSha256(whole);
    }
    SHA_STATE.set(midstate);
    sha256Finish(SHA_STATE, data, 64);
    return sha256Digest(SHA_STATE);
  };
}

/** Constant-time is not needed here (all inputs are public); this is plain byte equality. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
