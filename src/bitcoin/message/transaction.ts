import { sha256d } from '../hashes.js';

/** A transaction input; `txid` is in internal (little-endian) byte order, as serialized. */
export interface TxInput {
  txid: Uint8Array;
  vout: number;
  scriptSig: Uint8Array;
  sequence: number;
  witness: Uint8Array[];
}

export interface TxOutput {
  /** Satoshis. A bigint because a hostile serialization can carry any 64-bit value. */
  value: bigint;
  script: Uint8Array;
}

export interface Transaction {
  version: number;
  inputs: TxInput[];
  outputs: TxOutput[];
  lockTime: number;
}

/** The outcome of decoding; `reason` says what is wrong with the bytes. */
export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Malformed input while decoding. Deliberately not an Error: capturing a stack trace costs more
 * than decoding a signature, and the unprefixed-signature path expects some decodes to fail.
 */
class DecodeError {
  constructor(readonly message: string) {}
}

/** Sequential reader over untrusted bytes: every read is bounds-checked. */
export class ByteReader {
  pos = 0;
  constructor(readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  u8(): number {
    if (this.pos >= this.bytes.length) throw new DecodeError('unexpected end of data');
    return this.bytes[this.pos++]!;
  }

  u32(): number {
    const b = this.take(4);
    return (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0;
  }

  u64(): bigint {
    const lo = BigInt(this.u32());
    const hi = BigInt(this.u32());
    return (hi << 32n) | lo;
  }

  /** Bitcoin CompactSize, refusing non-canonical (over-long) encodings. */
  compactSize(): number {
    const first = this.u8();
    if (first < 0xfd) return first;
    let n: number;
    if (first === 0xfd) {
      const b = this.take(2);
      n = b[0]! | (b[1]! << 8);
      if (n < 0xfd) throw new DecodeError('non-canonical CompactSize');
    } else if (first === 0xfe) {
      n = this.u32();
      if (n < 0x10000) throw new DecodeError('non-canonical CompactSize');
    } else {
      const v = this.u64();
      if (v < 0x100000000n) throw new DecodeError('non-canonical CompactSize');
      throw new DecodeError('CompactSize too large');
    }
    return n;
  }

  take(n: number): Uint8Array {
    if (n > this.remaining) throw new DecodeError('unexpected end of data');
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  varBytes(): Uint8Array {
    return this.take(this.compactSize());
  }

  /** A count of items each at least `minItemSize` bytes long, so a hostile count cannot make us allocate. */
  count(minItemSize: number): number {
    const n = this.compactSize();
    if (n * minItemSize > this.remaining) throw new DecodeError('item count exceeds the data');
    return n;
  }
}

function readWitnessStack(r: ByteReader): Uint8Array[] {
  const n = r.count(1);
  const items: Uint8Array[] = new Array(n);
  for (let i = 0; i < n; i++) items[i] = r.varBytes();
  return items;
}

/**
 * Decodes a witness stack serialized as in a transaction (count, then length-prefixed items):
 * the BIP-322 "simple" signature encoding. Trailing bytes are an error.
 */
export function decodeWitnessStack(bytes: Uint8Array): Decoded<Uint8Array[]> {
  try {
    const r = new ByteReader(bytes);
    const stack = readWitnessStack(r);
    if (r.remaining !== 0) return { ok: false, reason: `${r.remaining} unexpected bytes after the witness stack` };
    return { ok: true, value: stack };
  } catch (e) {
    if (e instanceof DecodeError) return { ok: false, reason: `malformed witness stack: ${e.message}` };
    throw e;
  }
}

/*
 * Non-throwing cursor for isWholeTransaction: reading past the end or a malformed CompactSize
 * sets `scanPos` to -1, after which every read is a no-op.
 */
const NOTHING = new Uint8Array(0);
let scanBytes: Uint8Array = NOTHING;
let scanPos = 0;

function scanSkip(n: number): void {
  if (scanPos < 0) return;
  scanPos = n <= scanBytes.length - scanPos ? scanPos + n : -1;
}

/** A CompactSize as ByteReader.compactSize reads it, or -1 (and a failed scan) where it throws. */
function scanCompactSize(): number {
  if (scanPos < 0 || scanPos >= scanBytes.length) return (scanPos = -1);
  const first = scanBytes[scanPos++]!;
  if (first < 0xfd) return first;
  let n = -1;
  if (first === 0xfd && scanBytes.length - scanPos >= 2) {
    n = scanBytes[scanPos]! | (scanBytes[scanPos + 1]! << 8);
    scanPos += 2;
    if (n < 0xfd) n = -1;
  } else if (first === 0xfe && scanBytes.length - scanPos >= 4) {
    n = (scanBytes[scanPos]! | (scanBytes[scanPos + 1]! << 8) | (scanBytes[scanPos + 2]! << 16) | (scanBytes[scanPos + 3]! << 24)) >>> 0;
    scanPos += 4;
    if (n < 0x10000) n = -1;
  }
  // 0xff (a 64-bit size) is always refused: either non-canonical or too large.
  if (n < 0) scanPos = -1;
  return n;
}

/**
 * Whether decodeTransaction(bytes) would succeed: the same walk over the same grammar, without
 * building anything or throwing. Every unprefixed signature is first tried as a transaction, and
 * most are witness stacks; a failed decode throws internally, which costs V8 a few microseconds,
 * so that attempt is made only when this says it will succeed (fast-paths.test.ts checks that
 * the two agree).
 */
export function isWholeTransaction(bytes: Uint8Array): boolean {
  scanBytes = bytes;
  scanPos = 0;
  const whole = scanTransaction();
  scanBytes = NOTHING; // do not keep the caller's bytes alive
  return whole;
}

function scanTransaction(): boolean {
  const bytes = scanBytes;
  scanSkip(4); // version
  let inCount = scanCompactSize();
  let segwit = false;
  if (inCount === 0) {
    if (scanPos < 0 || scanPos >= bytes.length || bytes[scanPos] !== 1) return false;
    scanPos++;
    segwit = true;
    inCount = scanCompactSize();
  }
  if (scanPos < 0 || inCount * 41 > bytes.length - scanPos) return false;
  for (let i = 0; i < inCount && scanPos >= 0; i++) {
    scanSkip(36); // outpoint
    scanSkip(scanCompactSize()); // scriptSig
    scanSkip(4); // sequence
  }
  const outCount = scanCompactSize();
  if (scanPos < 0 || outCount * 9 > bytes.length - scanPos) return false;
  for (let i = 0; i < outCount && scanPos >= 0; i++) {
    scanSkip(8); // value
    scanSkip(scanCompactSize()); // script
  }
  if (segwit) {
    let any = false;
    for (let i = 0; i < inCount && scanPos >= 0; i++) {
      const items = scanCompactSize();
      if (scanPos < 0 || items > bytes.length - scanPos) return false;
      if (items > 0) any = true;
      for (let j = 0; j < items && scanPos >= 0; j++) scanSkip(scanCompactSize());
    }
    if (!any) return false;
  }
  scanSkip(4); // nLockTime
  return scanPos === bytes.length;
}

/** Reads one transaction (BIP-144 segwit serialization when marked) from the reader's position. */
export function readTransaction(r: ByteReader): Transaction {
  const version = r.u32();
  let inCount = r.compactSize();
  let segwit = false;
  if (inCount === 0) {
    const flag = r.u8();
    if (flag !== 1) throw new DecodeError(`unknown segwit flag ${flag}`);
    segwit = true;
    inCount = r.compactSize();
  }
  if (inCount * 41 > r.remaining) throw new DecodeError('input count exceeds the data');
  const inputs: TxInput[] = new Array(inCount);
  for (let i = 0; i < inCount; i++) {
    const txid = r.take(32);
    const vout = r.u32();
    const scriptSig = r.varBytes();
    const sequence = r.u32();
    inputs[i] = { txid, vout, scriptSig, sequence, witness: [] };
  }
  const outCount = r.count(9);
  const outputs: TxOutput[] = new Array(outCount);
  for (let i = 0; i < outCount; i++) outputs[i] = { value: r.u64(), script: r.varBytes() };
  if (segwit) {
    let any = false;
    for (const input of inputs) {
      input.witness = readWitnessStack(r);
      if (input.witness.length > 0) any = true;
    }
    // BIP-144: a segwit marker with all-empty witnesses must use the legacy serialization.
    if (!any) throw new DecodeError('segwit marker with no witness data');
  }
  const lockTime = r.u32();
  return { version, inputs, outputs, lockTime };
}

/** Decodes a whole transaction; trailing bytes are an error. */
export function decodeTransaction(bytes: Uint8Array): Decoded<Transaction> {
  try {
    const r = new ByteReader(bytes);
    const tx = readTransaction(r);
    if (r.remaining !== 0) return { ok: false, reason: `${r.remaining} unexpected bytes after the transaction` };
    return { ok: true, value: tx };
  } catch (e) {
    if (e instanceof DecodeError) return { ok: false, reason: `malformed transaction: ${e.message}` };
    throw e;
  }
}

/** Growable byte buffer for serialization. */
export class ByteWriter {
  private buf: Uint8Array;
  private len = 0;
  /** `initial`: a capacity, or a buffer to write into from its start (see {@link Scratch}). */
  constructor(initial: number | Uint8Array = 256) {
    this.buf = typeof initial === 'number' ? new Uint8Array(initial) : initial;
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  u8(v: number): this {
    this.reserve(1);
    this.buf[this.len++] = v;
    return this;
  }

  u32(v: number): this {
    this.reserve(4);
    this.buf[this.len++] = v & 0xff;
    this.buf[this.len++] = (v >>> 8) & 0xff;
    this.buf[this.len++] = (v >>> 16) & 0xff;
    this.buf[this.len++] = (v >>> 24) & 0xff;
    return this;
  }

  u64(v: bigint): this {
    // Every real amount is below 2^53 and converts exactly, sparing the BigInt arithmetic.
    if (v >= 0n && v <= 0x1fffffffffffffn) {
      const n = Number(v);
      return this.u32(n >>> 0).u32(Math.floor(n / 0x100000000));
    }
    this.u32(Number(v & 0xffffffffn));
    return this.u32(Number((v >> 32n) & 0xffffffffn));
  }

  compactSize(n: number): this {
    if (n < 0xfd) return this.u8(n);
    if (n <= 0xffff)
      return this.u8(0xfd)
        .u8(n & 0xff)
        .u8(n >>> 8);
    return this.u8(0xfe).u32(n);
  }

  bytes(b: Uint8Array): this {
    this.reserve(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  varBytes(b: Uint8Array): this {
    return this.compactSize(b.length).bytes(b);
  }

  finish(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

/** Serializations at most this long reuse a {@link Scratch}; longer ones get their own buffer. */
const MAX_SCRATCH = 16_384;

/**
 * A reusable buffer for serializations that are hashed at once and never kept (to_spend, sighash
 * preimages). V8 gives a Uint8Array of more than 64 bytes an off-heap backing store, which costs
 * about 1 µs to allocate and collect: as much as hashing the bytes. Each call site owns its
 * Scratch and must be done with the bytes before it serializes into the same Scratch again
 * (verification is synchronous, so that means: hash before the next call).
 */
export class Scratch {
  private buf: Uint8Array;
  constructor(size = 512) {
    this.buf = new Uint8Array(size);
  }

  /** A writer for about `size` bytes over this scratch (or a fresh buffer above MAX_SCRATCH). */
  writer(size: number): ByteWriter {
    if (size > this.buf.length) {
      if (size > MAX_SCRATCH) return new ByteWriter(size);
      this.buf = new Uint8Array(Math.max(size, 2 * this.buf.length));
    }
    return new ByteWriter(this.buf);
  }
}

/** Serialization without witness data, which is what the txid commits to. */
export function serializeWithoutWitness(tx: Transaction, w = new ByteWriter()): Uint8Array {
  w.u32(tx.version).compactSize(tx.inputs.length);
  for (const input of tx.inputs) w.bytes(input.txid).u32(input.vout).varBytes(input.scriptSig).u32(input.sequence);
  w.compactSize(tx.outputs.length);
  for (const output of tx.outputs) w.u64(output.value).varBytes(output.script);
  return w.u32(tx.lockTime).finish();
}

/** Transaction id in internal byte order (reverse it for display). */
export function txid(tx: Transaction): Uint8Array {
  return sha256d(serializeWithoutWitness(tx));
}

/** Hex of a txid in the usual display (big-endian) order. */
export function txidToHex(id: Uint8Array): string {
  let s = '';
  for (let i = id.length - 1; i >= 0; i--) s += id[i]!.toString(16).padStart(2, '0');
  return s;
}

export { DecodeError };
