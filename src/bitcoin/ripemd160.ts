import { RMD_IV, RMD_K_LEFT, RMD_K_RIGHT, RMD_R_LEFT, RMD_R_RIGHT, RMD_S_LEFT, RMD_S_RIGHT } from './ripemd160-tables.js';

/* RIPEMD-160 (Dobbertin, Bosselaers, Preneel 1996); its tables are in ripemd160-tables.ts. */

const X = new Int32Array(16);
export const RMD_STATE = new Int32Array(5);
export const RMD_TAIL = new Uint8Array(128);

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
export function ripemd160Compress(state: Int32Array, bytes: Uint8Array, offset: number): void {
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

export function ripemd160Digest(state: Int32Array): Uint8Array {
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
