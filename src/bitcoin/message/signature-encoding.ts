/**
 * Encoding rules for ECDSA signatures and public keys inside scripts: BIP-66 strict DER, low S
 * (BIP-146) and STRICTENC public keys. BIP-322 makes all three required rules, so a violation
 * is an invalid signature, not an inconclusive one.
 */

// n / 2 for secp256k1, big-endian.
const HALF_ORDER = Uint8Array.from([
  0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50,
  0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0,
]);

/**
 * BIP-66 IsValidSignatureEncoding, for a signature with its trailing sighash byte, transcribed
 * from Bitcoin Core so that edge cases (negative or padded integers, length mismatches) match.
 */
export function isStrictDer(sig: Uint8Array): boolean {
  const size = sig.length;
  if (size < 9 || size > 73) return false;
  if (sig[0] !== 0x30) return false;
  if (sig[1] !== size - 3) return false;
  const lenR = sig[3]!;
  if (5 + lenR >= size) return false;
  const lenS = sig[5 + lenR]!;
  if (lenR + lenS + 7 !== size) return false;
  if (sig[2] !== 0x02) return false;
  if (lenR === 0) return false;
  if (sig[4]! & 0x80) return false;
  if (lenR > 1 && sig[4] === 0x00 && !(sig[5]! & 0x80)) return false;
  if (sig[lenR + 4] !== 0x02) return false;
  if (lenS === 0) return false;
  if (sig[lenR + 6]! & 0x80) return false;
  if (lenS > 1 && sig[lenR + 6] === 0x00 && !(sig[lenR + 7]! & 0x80)) return false;
  return true;
}

/**
 * Converts a strict-DER signature (with its sighash byte) to 64-byte r‖s. Returns undefined
 * when r or s needs more than 32 bytes, which no valid signature does.
 */
export function derToCompact(sig: Uint8Array): Uint8Array | undefined {
  const lenR = sig[3]!;
  const lenS = sig[5 + lenR]!;
  const out = new Uint8Array(64);
  if (!copyInteger(sig.subarray(4, 4 + lenR), out, 0)) return undefined;
  if (!copyInteger(sig.subarray(6 + lenR, 6 + lenR + lenS), out, 32)) return undefined;
  return out;
}

function copyInteger(int: Uint8Array, out: Uint8Array, offset: number): boolean {
  let start = 0;
  while (start < int.length - 1 && int[start] === 0) start++;
  const len = int.length - start;
  if (len > 32) return false;
  out.set(int.subarray(start), offset + 32 - len);
  return true;
}

/** Whether the s half of a 64-byte r‖s signature is at most n/2 (BIP-146 LOW_S). */
export function isLowS(compact: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) {
    const a = compact[32 + i]!;
    const b = HALF_ORDER[i]!;
    if (a !== b) return a < b;
  }
  return true;
}

/** STRICTENC public key: 33 bytes starting 02/03, or 65 bytes starting 04 (no hybrid keys). */
export function isStrictPublicKey(key: Uint8Array): boolean {
  if (key.length === 33) return key[0] === 0x02 || key[0] === 0x03;
  if (key.length === 65) return key[0] === 0x04;
  return false;
}

/** Whether a public key is in the 33-byte compressed form segwit requires. */
export function isCompressedPublicKey(key: Uint8Array): boolean {
  return key.length === 33 && (key[0] === 0x02 || key[0] === 0x03);
}
