import { hash as nodeHash } from 'node:crypto';
import { sha1 } from '@noble/hashes/legacy.js';
import { concatBytes } from '@noble/hashes/utils.js';

export { sha1 };

/*
 * SHA-256 and RIPEMD-160 are the verifier's own main cost: a verification hashes a dozen or so
 * short inputs (message hash, to_spend txid, hashPrevouts, sighash, hash160s), most of them one
 * 64-byte block. Measured per call on this machine:
 *
 *                              @noble/hashes   node:crypto `hash`   this file
 *   one block (≤ 55 bytes)       2.3 µs          0.8 µs               0.45 µs
 *   three blocks (180 bytes)     3.5 µs          0.8 µs               1.15 µs
 *
 * Node's native hash is fast per block (SHA extensions) but pays ~0.8 µs of call overhead; the
 * straight-line compression functions below, run on preallocated buffers, win up to two blocks.
 * So inputs of up to two blocks are hashed here, longer ones natively; SHA256d and HASH160 feed
 * the first digest straight into the second block without an intermediate array, and BIP-340
 * tagged hashes start from the tag's precomputed midstate. fast-paths.test.ts checks every path
 * against node:crypto and @noble/hashes at every length around the block boundaries.
 *
 * Everything here is single-threaded and synchronous, so module-level scratch buffers are safe;
 * results are always fresh arrays.
 */

/** Longest input hashed in JavaScript: what fits two blocks with SHA-256's 9 bytes of padding. */
const JS_MAX_BYTES = 2 * 64 - 9;

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
const SHA256_IV = Int32Array.of(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19);

const W = new Int32Array(64);
const SHA_STATE = new Int32Array(8);
/** Padding scratch: the last one or two blocks of a message. */
const SHA_TAIL = new Uint8Array(128);

/** One SHA-256 compression of the 64 bytes at `bytes[offset]` into `state`. */
function sha256Compress(state: Int32Array, bytes: Uint8Array, offset: number): void {
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
function sha256Finish(state: Int32Array, data: Uint8Array, prefixLength: number): void {
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
function writeBigEndian(state: Int32Array, out: Uint8Array): void {
  for (let i = 0; i < 8; i++) {
    const v = state[i]!;
    out[4 * i] = v >>> 24;
    out[4 * i + 1] = v >>> 16;
    out[4 * i + 2] = v >>> 8;
    out[4 * i + 3] = v;
  }
}

function sha256Digest(state: Int32Array): Uint8Array {
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

function nativeSha256(data: Uint8Array): Uint8Array {
  const b = nodeHash('sha256', data, 'buffer');
  // A plain Uint8Array view: Buffer's `slice` would share memory where callers expect a copy.
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

/** Loads SHA-256(data) into SHA_STATE, natively for long inputs. */
function sha256ToState(data: Uint8Array): void {
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

// ---------------------------------------------------------------------------------------------
// RIPEMD-160 (Dobbertin, Bosselaers, Preneel 1996)

/* Message word order, rotation amounts and constants of the left and right lines, per step. */
const RMD_R_LEFT = Uint8Array.of(
  0,
  1,
  2,
  3,
  4,
  5,
  6,
  7,
  8,
  9,
  10,
  11,
  12,
  13,
  14,
  15,
  7,
  4,
  13,
  1,
  10,
  6,
  15,
  3,
  12,
  0,
  9,
  5,
  2,
  14,
  11,
  8,
  3,
  10,
  14,
  4,
  9,
  15,
  8,
  1,
  2,
  7,
  0,
  6,
  13,
  11,
  5,
  12,
  1,
  9,
  11,
  10,
  0,
  8,
  12,
  4,
  13,
  3,
  7,
  15,
  14,
  5,
  6,
  2,
  4,
  0,
  5,
  9,
  7,
  12,
  2,
  10,
  14,
  1,
  3,
  8,
  11,
  6,
  15,
  13,
);
const RMD_R_RIGHT = Uint8Array.of(
  5,
  14,
  7,
  0,
  9,
  2,
  11,
  4,
  13,
  6,
  15,
  8,
  1,
  10,
  3,
  12,
  6,
  11,
  3,
  7,
  0,
  13,
  5,
  10,
  14,
  15,
  8,
  12,
  4,
  9,
  1,
  2,
  15,
  5,
  1,
  3,
  7,
  14,
  6,
  9,
  11,
  8,
  12,
  2,
  10,
  0,
  4,
  13,
  8,
  6,
  4,
  1,
  3,
  11,
  15,
  0,
  5,
  12,
  2,
  13,
  9,
  7,
  10,
  14,
  12,
  15,
  10,
  4,
  1,
  5,
  8,
  7,
  6,
  2,
  13,
  14,
  0,
  3,
  9,
  11,
);
const RMD_S_LEFT = Uint8Array.of(
  11,
  14,
  15,
  12,
  5,
  8,
  7,
  9,
  11,
  13,
  14,
  15,
  6,
  7,
  9,
  8,
  7,
  6,
  8,
  13,
  11,
  9,
  7,
  15,
  7,
  12,
  15,
  9,
  11,
  7,
  13,
  12,
  11,
  13,
  6,
  7,
  14,
  9,
  13,
  15,
  14,
  8,
  13,
  6,
  5,
  12,
  7,
  5,
  11,
  12,
  14,
  15,
  14,
  15,
  9,
  8,
  9,
  14,
  5,
  6,
  8,
  6,
  5,
  12,
  9,
  15,
  5,
  11,
  6,
  8,
  13,
  12,
  5,
  12,
  13,
  14,
  11,
  8,
  5,
  6,
);
const RMD_S_RIGHT = Uint8Array.of(
  8,
  9,
  9,
  11,
  13,
  15,
  15,
  5,
  7,
  7,
  8,
  11,
  14,
  14,
  12,
  6,
  9,
  13,
  15,
  7,
  12,
  8,
  9,
  11,
  7,
  7,
  12,
  7,
  6,
  15,
  13,
  11,
  9,
  7,
  15,
  11,
  8,
  6,
  6,
  14,
  12,
  13,
  5,
  14,
  13,
  13,
  7,
  5,
  15,
  5,
  8,
  11,
  14,
  14,
  6,
  14,
  6,
  9,
  12,
  9,
  12,
  5,
  15,
  8,
  8,
  5,
  12,
  9,
  12,
  5,
  14,
  6,
  8,
  13,
  6,
  5,
  15,
  13,
  11,
  11,
);
const RMD_K_LEFT = Int32Array.of(0x00000000, 0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xa953fd4e);
const RMD_K_RIGHT = Int32Array.of(0x50a28be6, 0x5c4dd124, 0x6d703ef3, 0x7a6d76e9, 0x00000000);
const RMD_IV = Int32Array.of(0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0);

const X = new Int32Array(16);
const RMD_STATE = new Int32Array(5);
const RMD_TAIL = new Uint8Array(128);

/** The five boolean functions f1..f5, by round (0–4). */
function rmdF(round: number, x: number, y: number, z: number): number {
  switch (round) {
    case 0:
      return x ^ y ^ z;
    case 1:
      return (x & y) | (~x & z);
    case 2:
      return (x | ~y) ^ z;
    case 3:
      return (x & z) | (y & ~z);
    default:
      return x ^ (y | ~z);
  }
}

/** One RIPEMD-160 compression of the 64 bytes at `bytes[offset]` into `state`. */
function ripemd160Compress(state: Int32Array, bytes: Uint8Array, offset: number): void {
  for (let i = 0, o = offset; i < 16; i++, o += 4) {
    X[i] = bytes[o]! | (bytes[o + 1]! << 8) | (bytes[o + 2]! << 16) | (bytes[o + 3]! << 24);
  }
  let al = state[0]!;
  let bl = state[1]!;
  let cl = state[2]!;
  let dl = state[3]!;
  let el = state[4]!;
  let ar = al;
  let br = bl;
  let cr = cl;
  let dr = dl;
  let er = el;
  for (let i = 0; i < 80; i++) {
    const round = i >> 4;
    let t = (al + rmdF(round, bl, cl, dl) + X[RMD_R_LEFT[i]!]! + RMD_K_LEFT[round]!) | 0;
    let s = RMD_S_LEFT[i]!;
    t = (((t << s) | (t >>> (32 - s))) + el) | 0;
    al = el;
    el = dl;
    dl = (cl << 10) | (cl >>> 22);
    cl = bl;
    bl = t;
    // The right line uses the functions in reverse order.
    t = (ar + rmdF(4 - round, br, cr, dr) + X[RMD_R_RIGHT[i]!]! + RMD_K_RIGHT[round]!) | 0;
    s = RMD_S_RIGHT[i]!;
    t = (((t << s) | (t >>> (32 - s))) + er) | 0;
    ar = er;
    er = dr;
    dr = (cr << 10) | (cr >>> 22);
    cr = br;
    br = t;
  }
  const t = (state[1]! + cl + dr) | 0;
  state[1] = (state[2]! + dl + er) | 0;
  state[2] = (state[3]! + el + ar) | 0;
  state[3] = (state[4]! + al + br) | 0;
  state[4] = (state[0]! + bl + cr) | 0;
  state[0] = t;
}

function ripemd160Digest(state: Int32Array): Uint8Array {
  const out = new Uint8Array(20);
  for (let i = 0; i < 5; i++) {
    const v = state[i]!;
    out[4 * i] = v;
    out[4 * i + 1] = v >>> 8;
    out[4 * i + 2] = v >>> 16;
    out[4 * i + 3] = v >>> 24;
  }
  return out;
}

/** RIPEMD-160 (only HASH160 and OP_RIPEMD160 use it; both are short). */
export function ripemd160(data: Uint8Array): Uint8Array {
  RMD_STATE.set(RMD_IV);
  const n = data.length;
  let o = 0;
  for (; o + 64 <= n; o += 64) ripemd160Compress(RMD_STATE, data, o);
  const rest = n - o;
  for (let i = 0; i < rest; i++) RMD_TAIL[i] = data[o + i]!;
  RMD_TAIL[rest] = 0x80;
  const end = rest < 56 ? 64 : 128;
  RMD_TAIL.fill(0, rest + 1, end - 8);
  // Little-endian bit length.
  const bits = n * 8;
  RMD_TAIL[end - 8] = bits;
  RMD_TAIL[end - 7] = bits >>> 8;
  RMD_TAIL[end - 6] = bits >>> 16;
  RMD_TAIL[end - 5] = bits >>> 24;
  RMD_TAIL[end - 4] = Math.floor(bits / 0x100000000);
  RMD_TAIL[end - 3] = 0;
  RMD_TAIL[end - 2] = 0;
  RMD_TAIL[end - 1] = 0;
  ripemd160Compress(RMD_STATE, RMD_TAIL, 0);
  if (end === 128) ripemd160Compress(RMD_STATE, RMD_TAIL, 64);
  return ripemd160Digest(RMD_STATE);
}

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
