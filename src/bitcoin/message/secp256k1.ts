import * as secp from 'tiny-secp256k1';

/**
 * The one place that talks to the secp256k1 backend. We use libsecp256k1 compiled to WASM
 * (tiny-secp256k1) because pure-JS verification (@noble/curves) runs about 6× slower here and
 * could not meet the throughput target (see bench/bitcoin-verify.ts).
 *
 * Every function returns false/undefined instead of throwing: the backend throws on malformed
 * inputs (an r or s not below the group order, a point off the curve), and for us those are
 * simply signatures that do not verify.
 */
export const SECP256K1_BACKEND = 'tiny-secp256k1 (libsecp256k1 WASM)';

/** ECDSA check of a 64-byte compact (r‖s) signature over a 32-byte digest. */
export function ecdsaVerify(digest: Uint8Array, publicKey: Uint8Array, compactSig: Uint8Array): boolean {
  try {
    return secp.verify(digest, publicKey, compactSig);
  } catch {
    return false;
  }
}

/**
 * BIP-340 check. The backend refuses an r at or above the group order although BIP-340 allows
 * r < p; such signatures occur with probability about 2^-128, so this never matters in practice.
 */
export function schnorrVerify(digest: Uint8Array, xOnlyKey: Uint8Array, sig: Uint8Array): boolean {
  try {
    return secp.verifySchnorr(digest, xOnlyKey, sig);
  } catch {
    return false;
  }
}

/** Public-key recovery from a compact signature and recovery id (0–3). */
export function recoverPublicKey(
  digest: Uint8Array,
  compactSig: Uint8Array,
  recoveryId: number,
  compressed: boolean,
): Uint8Array | undefined {
  try {
    return secp.recover(digest, compactSig, (recoveryId & 3) as 0 | 1 | 2 | 3, compressed) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Whether `key` is a valid SEC1 point (33 or 65 bytes) on the curve. */
export function isPoint(key: Uint8Array): boolean {
  try {
    return secp.isPoint(key);
  } catch {
    return false;
  }
}

/** The same point in the other SEC1 form (compressed ↔ uncompressed), if `key` is a valid point. */
export function recodePublicKey(key: Uint8Array, compressed: boolean): Uint8Array | undefined {
  try {
    return secp.pointCompress(key, compressed);
  } catch {
    return undefined;
  }
}

/** Whether `output` is `internal + tweak·G` with the given y parity (the BIP-341 commitment check). */
export function checkTaprootTweak(internal: Uint8Array, tweak: Uint8Array, output: Uint8Array, parity: 0 | 1): boolean {
  try {
    return secp.xOnlyPointAddTweakCheck(internal, tweak, output, parity);
  } catch {
    return false;
  }
}
