import { hash as nodeHash } from 'node:crypto';

/* SHA-256 (FIPS 180-4), hashed in JavaScript up to two blocks; why and how fast: hashes.ts. */

/** Longest input hashed in JavaScript: what fits two blocks with SHA-256's 9 bytes of padding. */
export const JS_MAX_BYTES = 2 * 64 - 9;

// ---------------------------------------------------------------------------------------------
// SHA-256 (FIPS 180-4)

const K = Int32Array.of(
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
);
export const SHA256_IV = Int32Array.of(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19);

const W = new Int32Array(64);
export const SHA_STATE = new Int32Array(8);
/** Padding scratch: the last one or two blocks of a message. */
const SHA_TAIL = new Uint8Array(128);

/** One SHA-256 compression of the 64 bytes at `bytes[offset]` into `state`. */
export function sha256Compress(state: Int32Array, bytes: Uint8Array, offset: number): void {
  for (let i = 0, o = offset; i < 16; i++, o += 4) {
    W[i] = (bytes[o]! << 24) | (bytes[o + 1]! << 16) | (bytes[o + 2]! << 8) | bytes[o + 3]!;
  }
  for (let i = 16; i < 64; i++) {
    const w15 = W[i - 15]!;
    const w2 = W[i - 2]!;
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0;
  }
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  let e = state[4]!;
  let f = state[5]!;
  let g = state[6]!;
  let h = state[7]!;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + (g ^ (e & (f ^ g))) + K[i]! + W[i]!) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) | (c & (a | b)))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (state[0]! + a) | 0;
  state[1] = (state[1]! + b) | 0;
  state[2] = (state[2]! + c) | 0;
  state[3] = (state[3]! + d) | 0;
  state[4] = (state[4]! + e) | 0;
  state[5] = (state[5]! + f) | 0;
  state[6] = (state[6]! + g) | 0;
  state[7] = (state[7]! + h) | 0;
}

/**
 * Hashes `data` into `state` (already holding the IV or a midstate after `prefixLength` bytes),
 * padding for a message of `prefixLength + data.length` bytes.
 */
export function sha256Finish(state: Int32Array, data: Uint8Array, prefixLength: number): void {
  const n = data.length;
  let o = 0;
  for (; o + 64 <= n; o += 64) sha256Compress(state, data, o);
  const rest = n - o;
  for (let i = 0; i < rest; i++) SHA_TAIL[i] = data[o + i]!;
  SHA_TAIL[rest] = 0x80;
  const end = rest < 56 ? 64 : 128;
  SHA_TAIL.fill(0, rest + 1, end - 5);
  // Big-endian bit length; below 2^53 bits, so a double holds it exactly.
  const bits = (prefixLength + n) * 8;
  const high = Math.floor(bits / 0x100000000);
  SHA_TAIL[end - 5] = high;
  SHA_TAIL[end - 4] = bits >>> 24;
  SHA_TAIL[end - 3] = bits >>> 16;
  SHA_TAIL[end - 2] = bits >>> 8;
  SHA_TAIL[end - 1] = bits;
  sha256Compress(state, SHA_TAIL, 0);
  if (end === 128) sha256Compress(state, SHA_TAIL, 64);
}

/** Writes the eight words of `state` big-endian (the digest) to the start of `out`. */
export function writeBigEndian(state: Int32Array, out: Uint8Array): void {
  for (let i = 0; i < 8; i++) {
    const v = state[i]!;
    out[4 * i] = v >>> 24;
    out[4 * i + 1] = v >>> 16;
    out[4 * i + 2] = v >>> 8;
    out[4 * i + 3] = v;
  }
}

export function sha256Digest(state: Int32Array): Uint8Array {
  const out = new Uint8Array(32);
  writeBigEndian(state, out);
  return out;
}

/** SHA-256 of a 32-byte digest held in `state`, in place (the second round of SHA256d). */
function sha256OfState(state: Int32Array): void {
  writeBigEndian(state, SHA_TAIL);
  SHA_TAIL[32] = 0x80;
  SHA_TAIL.fill(0, 33, 62);
  SHA_TAIL[62] = 0x01; // 256 bits
  SHA_TAIL[63] = 0x00;
  state.set(SHA256_IV);
  sha256Compress(state, SHA_TAIL, 0);
}

export function nativeSha256(data: Uint8Array): Uint8Array {
  const b = nodeHash('sha256', data, 'buffer');
  // A plain Uint8Array view: Buffer's `slice` would share memory where callers expect a copy.
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

/** Loads SHA-256(data) into SHA_STATE, natively for long inputs. */
export function sha256ToState(data: Uint8Array): void {
  if (data.length <= JS_MAX_BYTES) {
    SHA_STATE.set(SHA256_IV);
    sha256Finish(SHA_STATE, data, 0);
    return;
  }
  const digest = nodeHash('sha256', data, 'buffer');
  for (let i = 0; i < 8; i++) SHA_STATE[i] = digest.readInt32BE(4 * i);
}

/** SHA-256. */
export function sha256(data: Uint8Array): Uint8Array {
  if (data.length > JS_MAX_BYTES) return nativeSha256(data);
  SHA_STATE.set(SHA256_IV);
  sha256Finish(SHA_STATE, data, 0);
  return sha256Digest(SHA_STATE);
}

/** SHA256(SHA256(data)): transaction ids, legacy and BIP-143 sighashes, the signmessage digest. */
export function sha256d(data: Uint8Array): Uint8Array {
  sha256ToState(data);
  sha256OfState(SHA_STATE);
  return sha256Digest(SHA_STATE);
}
