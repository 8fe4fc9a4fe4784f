/** Script opcodes we refer to by name (values from Bitcoin Core's script.h). */
export const OP = {
  OP_0: 0x00,
  PUSHDATA1: 0x4c,
  PUSHDATA2: 0x4d,
  PUSHDATA4: 0x4e,
  OP_1NEGATE: 0x4f,
  RESERVED: 0x50,
  OP_1: 0x51,
  OP_16: 0x60,
  NOP: 0x61,
  VER: 0x62,
  IF: 0x63,
  NOTIF: 0x64,
  VERIF: 0x65,
  VERNOTIF: 0x66,
  ELSE: 0x67,
  ENDIF: 0x68,
  VERIFY: 0x69,
  RETURN: 0x6a,
  TOALTSTACK: 0x6b,
  FROMALTSTACK: 0x6c,
  '2DROP': 0x6d,
  '2DUP': 0x6e,
  '3DUP': 0x6f,
  '2OVER': 0x70,
  '2ROT': 0x71,
  '2SWAP': 0x72,
  IFDUP: 0x73,
  DEPTH: 0x74,
  DROP: 0x75,
  DUP: 0x76,
  NIP: 0x77,
  OVER: 0x78,
  PICK: 0x79,
  ROLL: 0x7a,
  ROT: 0x7b,
  SWAP: 0x7c,
  TUCK: 0x7d,
  CAT: 0x7e,
  SUBSTR: 0x7f,
  LEFT: 0x80,
  RIGHT: 0x81,
  SIZE: 0x82,
  INVERT: 0x83,
  AND: 0x84,
  OR: 0x85,
  XOR: 0x86,
  EQUAL: 0x87,
  EQUALVERIFY: 0x88,
  RESERVED1: 0x89,
  RESERVED2: 0x8a,
  '1ADD': 0x8b,
  '1SUB': 0x8c,
  '2MUL': 0x8d,
  '2DIV': 0x8e,
  NEGATE: 0x8f,
  ABS: 0x90,
  NOT: 0x91,
  '0NOTEQUAL': 0x92,
  ADD: 0x93,
  SUB: 0x94,
  MUL: 0x95,
  DIV: 0x96,
  MOD: 0x97,
  LSHIFT: 0x98,
  RSHIFT: 0x99,
  BOOLAND: 0x9a,
  BOOLOR: 0x9b,
  NUMEQUAL: 0x9c,
  NUMEQUALVERIFY: 0x9d,
  NUMNOTEQUAL: 0x9e,
  LESSTHAN: 0x9f,
  GREATERTHAN: 0xa0,
  LESSTHANOREQUAL: 0xa1,
  GREATERTHANOREQUAL: 0xa2,
  MIN: 0xa3,
  MAX: 0xa4,
  WITHIN: 0xa5,
  RIPEMD160: 0xa6,
  SHA1: 0xa7,
  SHA256: 0xa8,
  HASH160: 0xa9,
  HASH256: 0xaa,
  CODESEPARATOR: 0xab,
  CHECKSIG: 0xac,
  CHECKSIGVERIFY: 0xad,
  CHECKMULTISIG: 0xae,
  CHECKMULTISIGVERIFY: 0xaf,
  NOP1: 0xb0,
  CHECKLOCKTIMEVERIFY: 0xb1,
  CHECKSEQUENCEVERIFY: 0xb2,
  NOP4: 0xb3,
  NOP10: 0xb9,
  CHECKSIGADD: 0xba,
} as const;

/** One parsed script element: an opcode, with its pushed data when it is a push. */
export interface ScriptOp {
  opcode: number;
  /** Pushed bytes for push opcodes (OP_0 and 0x01–0x4e); undefined for other opcodes. */
  data?: Uint8Array;
  /** Whether the push used the shortest possible encoding (BIP-62 MINIMALDATA). */
  minimal: boolean;
}

/** A parsed script; `error` is set when decoding stopped at a truncated push. */
export interface ParsedScript {
  ops: ScriptOp[];
  error?: string;
}

/**
 * Splits a script into opcodes. A truncated push stops decoding with `error` set and the ops
 * decoded so far kept (tapscript needs them: an earlier OP_SUCCESS wins over a later bad push).
 */
export function parseScript(script: Uint8Array): ParsedScript {
  try {
    return { ops: parseOps(script) };
  } catch (e) {
    if (e instanceof ScriptParseError) return { ops: e.ops, error: e.message };
    throw e;
  }
}

class ScriptParseError extends Error {
  constructor(
    message: string,
    readonly ops: ScriptOp[],
  ) {
    super(message);
  }
}

function parseOps(script: Uint8Array): ScriptOp[] {
  const ops: ScriptOp[] = [];
  let i = 0;
  while (i < script.length) {
    const opcode = script[i++]!;
    if (opcode > OP.PUSHDATA4) {
      ops.push({ opcode, minimal: true });
      continue;
    }
    let len: number;
    if (opcode < OP.PUSHDATA1) len = opcode;
    else if (opcode === OP.PUSHDATA1) {
      if (i + 1 > script.length) throw new ScriptParseError('truncated PUSHDATA1', ops);
      len = script[i]!;
      i += 1;
    } else if (opcode === OP.PUSHDATA2) {
      if (i + 2 > script.length) throw new ScriptParseError('truncated PUSHDATA2', ops);
      len = script[i]! | (script[i + 1]! << 8);
      i += 2;
    } else {
      if (i + 4 > script.length) throw new ScriptParseError('truncated PUSHDATA4', ops);
      len = (script[i]! | (script[i + 1]! << 8) | (script[i + 2]! << 16) | (script[i + 3]! << 24)) >>> 0;
      i += 4;
    }
    if (i + len > script.length) throw new ScriptParseError('push past the end of the script', ops);
    const data = script.subarray(i, i + len);
    i += len;
    ops.push({ opcode, data, minimal: isMinimalPush(opcode, data) });
  }
  return ops;
}

/** BIP-62 rule 3: a push must use OP_0/OP_1..16/OP_1NEGATE or the shortest push opcode. */
function isMinimalPush(opcode: number, data: Uint8Array): boolean {
  const n = data.length;
  if (n === 0) return opcode === OP.OP_0;
  if (n === 1 && data[0]! >= 1 && data[0]! <= 16) return false;
  if (n === 1 && data[0] === 0x81) return false;
  if (n <= 75) return opcode === n;
  if (n <= 255) return opcode === OP.PUSHDATA1;
  if (n <= 65535) return opcode === OP.PUSHDATA2;
  return true;
}

/** Whether every opcode of the script is a push (OP_16 and below). */
export function isPushOnly(ops: readonly ScriptOp[]): boolean {
  return ops.every((op) => op.opcode <= OP.OP_16);
}

/** Encodes a push of `data` with the minimal opcode. */
export function encodePush(data: Uint8Array): Uint8Array {
  const n = data.length;
  let head: number[];
  if (n < OP.PUSHDATA1) head = [n];
  else if (n <= 0xff) head = [OP.PUSHDATA1, n];
  else head = [OP.PUSHDATA2, n & 0xff, n >>> 8];
  const out = new Uint8Array(head.length + n);
  out.set(head);
  out.set(data, head.length);
  return out;
}

/** Thrown when a stack element is not a valid script number in the current context. */
export class ScriptNumError extends Error {}

/**
 * Decodes a CScriptNum: little-endian sign-magnitude, at most `maxLength` bytes, minimally
 * encoded (MINIMALDATA is a BIP-322 required rule). Five-byte numbers (for CLTV/CSV) still fit a
 * double exactly.
 */
export function decodeScriptNum(bytes: Uint8Array, maxLength = 4): number {
  const n = bytes.length;
  if (n > maxLength) throw new ScriptNumError(`script number longer than ${maxLength} bytes`);
  if (n === 0) return 0;
  if ((bytes[n - 1]! & 0x7f) === 0 && (n === 1 || (bytes[n - 2]! & 0x80) === 0)) {
    throw new ScriptNumError('non-minimally encoded script number');
  }
  let v = 0;
  for (let i = 0; i < n; i++) v += (i === n - 1 ? bytes[i]! & 0x7f : bytes[i]!) * 2 ** (8 * i);
  return bytes[n - 1]! & 0x80 ? -v : v;
}

/** Encodes a number as a minimal CScriptNum. */
export function encodeScriptNum(value: number): Uint8Array {
  if (value === 0) return new Uint8Array(0);
  const neg = value < 0;
  let abs = Math.abs(value);
  const out: number[] = [];
  while (abs > 0) {
    out.push(abs % 256);
    abs = Math.floor(abs / 256);
  }
  if (out[out.length - 1]! & 0x80) out.push(neg ? 0x80 : 0);
  else if (neg) out[out.length - 1]! |= 0x80;
  return Uint8Array.from(out);
}

/** Script truthiness: any non-zero byte, except that a lone sign bit (negative zero) is false. */
export function castToBool(v: Uint8Array): boolean {
  for (let i = 0; i < v.length; i++) {
    if (v[i] !== 0) return !(i === v.length - 1 && v[i] === 0x80);
  }
  return false;
}

/** Tapscript OP_SUCCESSx opcodes (BIP-342): their presence makes a script succeed unconditionally. */
export function isOpSuccess(opcode: number): boolean {
  return (
    opcode === 80 ||
    opcode === 98 ||
    (opcode >= 126 && opcode <= 129) ||
    (opcode >= 131 && opcode <= 134) ||
    (opcode >= 137 && opcode <= 138) ||
    (opcode >= 141 && opcode <= 142) ||
    (opcode >= 149 && opcode <= 153) ||
    (opcode >= 187 && opcode <= 254)
  );
}
