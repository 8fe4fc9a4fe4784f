import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160, sha1 } from '@noble/hashes/legacy.js';

export { sha1, sha256, ripemd160 };

/** SHA256(SHA256(data)): transaction ids, legacy and BIP-143 sighashes, the signmessage digest. */
export function sha256d(data: Uint8Array): Uint8Array {
  return sha256(sha256(data));
}

/** RIPEMD160(SHA256(data)): P2PKH, P2WPKH and P2SH hashes. */
export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}

/**
 * A BIP-340 tagged hash with the two tag-hash blocks absorbed once, so each call only hashes
 * its own data (the tag prefix is exactly one 64-byte block).
 */
export function taggedHasher(tag: string): (...parts: Uint8Array[]) => Uint8Array {
  const tagHash = sha256(new TextEncoder().encode(tag));
  const prefix = sha256.create().update(tagHash).update(tagHash);
  return (...parts) => {
    const h = prefix.clone();
    for (const p of parts) h.update(p);
    return h.digest();
  };
}

/** Constant-time is not needed here (all inputs are public); this is plain byte equality. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
