import { createRequire } from 'node:module';
import * as secp from 'tiny-secp256k1';
import { isLowS } from './signature-encoding.js';

/**
 * The one place that talks to the secp256k1 backend: libsecp256k1 in both cases.
 * - ECDSA verification and public-key recovery (every P2PKH/P2WPKH/P2SH-P2WPKH/P2WSH check and all
 *   legacy signatures) go to the native build of the `secp256k1` package, which ships prebuilt
 *   binaries for the common platforms and runs about 4× faster than WASM here. Where its binary
 *   cannot load, the WASM build takes over, with the same results.
 * - Schnorr, taproot tweaks and point operations use tiny-secp256k1 (libsecp256k1 compiled to WASM).
 * Pure-JS verification (@noble/curves) runs about 6× slower than WASM and could not meet the
 * throughput target (see bench/bitcoin-verify.ts).
 *
 * Every function returns false/undefined instead of throwing: the backends throw on malformed
 * inputs (an r or s not below the group order, a point off the curve), and for us those are
 * simply signatures that do not verify.
 */
interface NativeSecp256k1 {
  ecdsaVerify(sig: Uint8Array, msg32: Uint8Array, publicKey: Uint8Array): boolean;
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
  signatureNormalize(sig: Uint8Array): Uint8Array;
}

function loadNative(): NativeSecp256k1 | undefined {
  if (process.env.OWNPROOF_SECP256K1 === 'wasm') return undefined;
  try {
    // The package's bindings entry loads only the compiled addon (never its slow pure-JS fallback).
    return createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1;
  } catch {
    return undefined;
  }
}

const native = loadNative();

/**
 * The backends' own calls, with nothing of ours around them: what the benchmark measures as the
 * raw rate ("the physical limit") that our verifier is compared with. The wrappers below call
 * these, so the backend is chosen in this one place.
 */
export const rawBackend = {
  ecdsaVerify: native
    ? (digest: Uint8Array, publicKey: Uint8Array, sig: Uint8Array) => native.ecdsaVerify(sig, digest, publicKey)
    : (digest: Uint8Array, publicKey: Uint8Array, sig: Uint8Array) => secp.verify(digest, publicKey, sig),
  ecdsaRecover: native
    ? (digest: Uint8Array, sig: Uint8Array, recoveryId: 0 | 1 | 2 | 3, compressed: boolean) =>
        native.ecdsaRecover(sig, recoveryId, digest, compressed) as Uint8Array | null
    : (digest: Uint8Array, sig: Uint8Array, recoveryId: 0 | 1 | 2 | 3, compressed: boolean) =>
        secp.recover(digest, sig, recoveryId, compressed),
  schnorrVerify: (digest: Uint8Array, xOnlyKey: Uint8Array, sig: Uint8Array) => secp.verifySchnorr(digest, xOnlyKey, sig),
};

/** The library that does ECDSA, as benchmark rows name it. */
export const ECDSA_BACKEND = native ? 'libsecp256k1 native' : 'tiny-secp256k1 WASM';

export const SECP256K1_BACKEND = native
  ? `${ECDSA_BACKEND} (secp256k1) for ECDSA, WASM (tiny-secp256k1) for Schnorr`
  : 'libsecp256k1 WASM (tiny-secp256k1)';

/**
 * ECDSA check of a 64-byte compact (r‖s) signature over a 32-byte digest. A high-S signature is
 * checked in its low-S form, as the WASM backend does, so both backends answer alike; the BIP-322
 * rules that forbid high S are enforced by the callers.
 */
export function ecdsaVerify(digest: Uint8Array, publicKey: Uint8Array, compactSig: Uint8Array): boolean {
  try {
    // The native build refuses high S; normalizing costs a copy and a native call, so it is done
    // only for the rare high-S input (BIP-322 callers have already refused those).
    const sig = native && !isLowS(compactSig) ? native.signatureNormalize(Uint8Array.from(compactSig)) : compactSig;
    return rawBackend.ecdsaVerify(digest, publicKey, sig);
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
    return rawBackend.ecdsaRecover(digest, compactSig, (recoveryId & 3) as 0 | 1 | 2 | 3, compressed) ?? undefined;
  } catch {
    return undefined;
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
