import { bytesEqual, hash160, sha256, taggedHasher } from '../hashes.js';
import {
  checkEcdsaEncoding,
  evalScript,
  MAX_ELEMENT_SIZE,
  MAX_STACK_SIZE,
  ScriptFailure,
  splitSchnorrSig,
  type ExecContext,
  type SignatureChecker,
  type SigVersion,
} from './interpreter.js';
import { castToBool, encodePush, isPushOnly, OP, parseScript, type ScriptOp } from './script.js';
import { checkTaprootTweak, ecdsaVerify, schnorrVerify } from './secp256k1.js';
import { checkEcdsaSig } from './signature-opcodes.js';
import { legacySighashAll, segwitV0SighashAll, taprootSighash, type SighashCache } from './sighash.js';
import { isCompressedPublicKey, isStrictPublicKey } from './signature-encoding.js';
import { ByteWriter } from './transaction.js';

/** BIP-322's three verdicts for one input; `reason` names the rule that decided it. */
export type Outcome = { result: 'valid' } | { result: 'invalid' | 'inconclusive'; reason: string };

export const VALID: Outcome = { result: 'valid' };

const tapLeaf = taggedHasher('TapLeaf');
const tapBranch = taggedHasher('TapBranch');
const tapTweak = taggedHasher('TapTweak');
const TAPSCRIPT_LEAF_VERSION = 0xc0;
const LOCKTIME_THRESHOLD = 500_000_000;
const SEQUENCE_DISABLE_FLAG = 0x80000000;
const SEQUENCE_TYPE_FLAG = 1 << 22;
const SEQUENCE_MASK = SEQUENCE_TYPE_FLAG | 0xffff;

class TransactionChecker implements SignatureChecker {
  private lastScriptCode?: Uint8Array;
  private lastDigest?: Uint8Array;

  constructor(
    private readonly cache: SighashCache,
    private readonly index: number,
    private readonly leafHash?: Uint8Array,
  ) {}

  checkEcdsa(compactSig: Uint8Array, publicKey: Uint8Array, scriptCode: Uint8Array, sigVersion: SigVersion): boolean {
    // A k-of-n multisig signs one digest k times; compute it once per input.
    if (this.lastScriptCode !== scriptCode || this.lastDigest === undefined) {
      this.lastScriptCode = scriptCode;
      this.lastDigest =
        sigVersion === 'base'
          ? legacySighashAll(this.cache.tx, this.index, scriptCode)
          : segwitV0SighashAll(this.cache, this.index, scriptCode, this.cache.prevouts[this.index]!.value);
    }
    return ecdsaVerify(this.lastDigest, publicKey, compactSig);
  }

  checkSchnorr(sig64: Uint8Array, hashType: number, xOnlyKey: Uint8Array): boolean {
    return schnorrVerify(taprootSighash(this.cache, this.index, hashType, this.leafHash), xOnlyKey, sig64);
  }

  checkLockTime(lockTime: number): boolean {
    const txLock = this.cache.tx.lockTime;
    const sameKind = txLock < LOCKTIME_THRESHOLD === lockTime < LOCKTIME_THRESHOLD;
    return sameKind && lockTime <= txLock && this.cache.tx.inputs[this.index]!.sequence !== 0xffffffff;
  }

  checkSequence(sequence: number): boolean {
    const txSequence = this.cache.tx.inputs[this.index]!.sequence;
    if (this.cache.tx.version >>> 0 < 2) return false;
    if (txSequence & SEQUENCE_DISABLE_FLAG) return false;
    const txMasked = txSequence & SEQUENCE_MASK;
    const masked = Number(BigInt(sequence) & BigInt(SEQUENCE_MASK));
    const sameKind = txMasked < SEQUENCE_TYPE_FLAG === masked < SEQUENCE_TYPE_FLAG;
    return sameKind && masked <= txMasked;
  }
}

/** The witness version and program of a native segwit output script, if it is one. */
export function witnessProgram(script: Uint8Array): { version: number; program: Uint8Array } | undefined {
  if (script.length < 4 || script.length > 42) return undefined;
  const v = script[0]!;
  if (v !== OP.OP_0 && (v < OP.OP_1 || v > OP.OP_16)) return undefined;
  if (script[1]! + 2 !== script.length) return undefined;
  return { version: v === OP.OP_0 ? 0 : v - OP.OP_1 + 1, program: script.subarray(2) };
}

function isP2pkh(s: Uint8Array): boolean {
  return s.length === 25 && s[0] === OP.DUP && s[1] === OP.HASH160 && s[2] === 20 && s[23] === OP.EQUALVERIFY && s[24] === OP.CHECKSIG;
}

function isP2sh(script: Uint8Array): boolean {
  return script.length === 23 && script[0] === OP.HASH160 && script[1] === 20 && script[22] === OP.EQUAL;
}

function p2pkhScript(hash: Uint8Array): Uint8Array {
  const s = new Uint8Array(25);
  s.set([OP.DUP, OP.HASH160, 20]);
  s.set(hash, 3);
  s[23] = OP.EQUALVERIFY;
  s[24] = OP.CHECKSIG;
  return s;
}

const fail = (reason: string): never => {
  throw new ScriptFailure('invalid', reason);
};

function requireCleanTrueStack(stack: Uint8Array[]): void {
  if (stack.length === 0 || !castToBool(stack[stack.length - 1]!)) fail('the script evaluated to false: the signature does not verify');
  if (stack.length !== 1) fail(`${stack.length} elements remain on the stack; exactly one is allowed (CLEANSTACK)`);
}

function checkElementSizes(stack: readonly Uint8Array[]): void {
  if (stack.length > MAX_STACK_SIZE) fail('the witness has more than 1000 elements');
  for (const item of stack) if (item.length > MAX_ELEMENT_SIZE) fail('a witness element exceeds 520 bytes');
}

function witnessSize(witness: readonly Uint8Array[]): number {
  const cs = (n: number): number => (n < 0xfd ? 1 : n <= 0xffff ? 3 : 5);
  let size = cs(witness.length);
  for (const item of witness) size += cs(item.length) + item.length;
  return size;
}

function verifyWitnessProgram(
  cache: SighashCache,
  index: number,
  version: number,
  program: Uint8Array,
  witness: readonly Uint8Array[],
  p2shWrapped: boolean,
): void {
  const base = { checker: new TransactionChecker(cache, index), budget: { remaining: 0 } };
  if (version === 0) {
    if (program.length === 20) {
      // BIP-141 defines P2WPKH as DUP HASH160 <program> EQUALVERIFY CHECKSIG over a two-item
      // witness, with that script as scriptCode; done directly, it is the hot path of BIP-322.
      if (witness.length !== 2) fail(`a P2WPKH witness has exactly 2 items (signature, public key), this one has ${witness.length}`);
      const [sig, pubkey] = witness as [Uint8Array, Uint8Array];
      checkElementSizes(witness);
      if (!bytesEqual(hash160(pubkey), program)) fail('the public key in the signature does not belong to this address');
      if (sig.length === 0) fail('the signature is empty');
      const compact = checkEcdsaEncoding(sig);
      if (!isStrictPublicKey(pubkey)) fail('the public key is not a valid SEC1 encoding');
      if (!isCompressedPublicKey(pubkey))
        throw new ScriptFailure('inconclusive', 'an uncompressed public key in a segwit output is non-standard');
      if (!base.checker.checkEcdsa(compact, pubkey, p2pkhScript(program), 'witness_v0'))
        fail('the signature does not verify for this message and address');
      return;
    }
    if (program.length === 32) {
      if (witness.length === 0) fail('the witness is empty');
      const witnessScript = witness[witness.length - 1]!;
      if (!bytesEqual(sha256(witnessScript), program)) fail('the witness script does not hash to the address');
      const stack = witness.slice(0, -1);
      checkElementSizes(stack);
      evalScript(stack, witnessScript, { ...base, sigVersion: 'witness_v0' });
      requireCleanTrueStack(stack);
      return;
    }
    fail(`a version 0 witness program must be 20 or 32 bytes, not ${program.length}`);
  }
  if (version === 1 && program.length === 32 && !p2shWrapped) {
    verifyTaproot(cache, index, program, witness);
    return;
  }
  throw new ScriptFailure('inconclusive', `witness version ${version} (${program.length}-byte program) is reserved for future upgrades`);
}

function verifyTaproot(cache: SighashCache, index: number, outputKey: Uint8Array, witness: readonly Uint8Array[]): void {
  if (witness.length === 0) fail('the witness is empty');
  if (witness.length >= 2 && witness[witness.length - 1]![0] === 0x50) {
    throw new ScriptFailure('inconclusive', 'the witness carries an annex, which is reserved for future upgrades');
  }
  if (witness.length === 1) {
    const { sig64, hashType } = splitSchnorrSig(witness[0]!);
    const checker = new TransactionChecker(cache, index);
    if (!checker.checkSchnorr(sig64, hashType, outputKey)) fail('the Schnorr signature does not verify for this address and message');
    return;
  }
  const stack = witness.slice();
  const control = stack.pop()!;
  const script = stack.pop()!;
  if (control.length < 33 || control.length > 33 + 128 * 32 || (control.length - 33) % 32 !== 0) {
    fail(`the taproot control block has an invalid length (${control.length} bytes)`);
  }
  const leafVersion = control[0]! & 0xfe;
  const w = new ByteWriter(script.length + 4).u8(leafVersion).varBytes(script);
  const leafHash = tapLeaf(w.finish());
  let node = leafHash;
  for (let i = 33; i < control.length; i += 32) {
    const sibling = control.subarray(i, i + 32);
    node = compareBytes(node, sibling) < 0 ? tapBranch(node, sibling) : tapBranch(sibling, node);
  }
  const internalKey = control.subarray(1, 33);
  const tweak = tapTweak(internalKey, node);
  if (!checkTaprootTweak(internalKey, tweak, outputKey, (control[0]! & 1) as 0 | 1)) {
    fail('the taproot script path does not commit to this address');
  }
  if (leafVersion !== TAPSCRIPT_LEAF_VERSION) {
    throw new ScriptFailure('inconclusive', `tapleaf version 0x${leafVersion.toString(16)} is reserved for future upgrades`);
  }
  checkElementSizes(stack);
  const ctx: ExecContext = {
    sigVersion: 'tapscript',
    checker: new TransactionChecker(cache, index, leafHash),
    budget: { remaining: 50 + witnessSize(witness) },
  };
  evalScript(stack, script, ctx);
  requireCleanTrueStack(stack);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * A push the interpreter would accept and leave on the stack as is: minimally encoded (BIP-322
 * requires MINIMALDATA), non-empty and within the 520-byte element limit.
 */
function isPlainPush(op: ScriptOp): boolean {
  return op.data !== undefined && op.minimal && op.data.length > 0 && op.data.length <= MAX_ELEMENT_SIZE;
}

function verifyLegacyAndP2sh(cache: SighashCache, index: number, direct: boolean): void {
  const input = cache.tx.inputs[index]!;
  const scriptPubKey = cache.prevouts[index]!.script;
  const sigParsed = parseScript(input.scriptSig);
  const pushOnly = sigParsed.error === undefined && isPushOnly(sigParsed.ops);
  const p2sh = isP2sh(scriptPubKey);
  if (!pushOnly) {
    if (p2sh) fail('a P2SH scriptSig must contain only pushes');
    throw new ScriptFailure('inconclusive', 'a scriptSig with non-push operations is non-standard');
  }
  const ops = sigParsed.ops;

  // The two standard shapes, P2SH-wrapped segwit (one push of the redeem script) and P2PKH (two
  // pushes), are done directly: the same checks, in the same order and with the same reasons as
  // running both scripts through the interpreter below, without parsing and executing them.
  if (direct && p2sh && ops.length === 1 && isPlainPush(ops[0]!)) {
    const redeemScript = ops[0]!.data!;
    const wp = witnessProgram(redeemScript);
    if (wp !== undefined) {
      // scriptPubKey: HASH160 <hash> EQUAL; scriptSig is then exactly the minimal push of the
      // redeem script, as BIP-141 requires.
      if (!bytesEqual(hash160(redeemScript), scriptPubKey.subarray(2, 22)))
        fail('the script evaluated to false: the signature does not verify');
      verifyWitnessProgram(cache, index, wp.version, wp.program, input.witness, true);
      return;
    }
  }
  const ctx: ExecContext = { sigVersion: 'base', checker: new TransactionChecker(cache, index), budget: { remaining: 0 } };
  if (direct && isP2pkh(scriptPubKey) && ops.length === 2 && isPlainPush(ops[0]!) && isPlainPush(ops[1]!) && input.witness.length === 0) {
    // scriptPubKey: DUP HASH160 <hash> EQUALVERIFY CHECKSIG over the stack [sig, pubkey].
    const sig = ops[0]!.data!;
    const pubkey = ops[1]!.data!;
    if (!bytesEqual(hash160(pubkey), scriptPubKey.subarray(3, 23))) fail('the public key in the signature does not belong to this address');
    if (!checkEcdsaSig(sig, pubkey, scriptPubKey, ctx)) fail('the signature does not verify for this message and address');
    return;
  }

  const stack: Uint8Array[] = [];
  evalScript(stack, input.scriptSig, ctx);
  const afterScriptSig = stack.slice();
  if (isP2pkh(scriptPubKey) && stack.length > 0 && !bytesEqual(hash160(stack[stack.length - 1]!), scriptPubKey.subarray(3, 23))) {
    fail('the public key in the signature does not belong to this address');
  }
  evalScript(stack, scriptPubKey, ctx);
  if (stack.length === 0 || !castToBool(stack[stack.length - 1]!)) fail('the script evaluated to false: the signature does not verify');

  if (p2sh) {
    const redeemScript = afterScriptSig.pop()!;
    const wp = witnessProgram(redeemScript);
    if (wp !== undefined) {
      if (!bytesEqual(input.scriptSig, encodePush(redeemScript))) {
        fail('a P2SH-wrapped segwit scriptSig must be exactly one push of the redeem script');
      }
      verifyWitnessProgram(cache, index, wp.version, wp.program, input.witness, true);
      return;
    }
    evalScript(afterScriptSig, redeemScript, ctx);
    requireCleanTrueStack(afterScriptSig);
  } else {
    requireCleanTrueStack(stack);
  }
  if (input.witness.length > 0) fail('the input carries witness data but spends a non-segwit output');
}

/** Test hook for {@link verifyInput}. */
export interface VerifyInputOptions {
  /**
   * Run P2PKH and P2SH-wrapped segwit spends through the interpreter instead of their direct
   * paths (fast-paths.test.ts checks that both give the same outcome and reason).
   */
  interpreterOnly?: boolean;
}

/**
 * Verifies that input `index` of `cache.tx` validly spends `cache.prevouts[index]` under
 * consensus rules plus BIP-322's required rules. Never throws.
 */
export function verifyInput(cache: SighashCache, index: number, opts?: VerifyInputOptions): Outcome {
  try {
    const input = cache.tx.inputs[index]!;
    const wp = witnessProgram(cache.prevouts[index]!.script);
    if (wp !== undefined) {
      if (input.scriptSig.length !== 0) fail('the scriptSig must be empty when spending a native segwit output');
      verifyWitnessProgram(cache, index, wp.version, wp.program, input.witness, false);
    } else {
      verifyLegacyAndP2sh(cache, index, opts?.interpreterOnly !== true);
    }
    return VALID;
  } catch (e) {
    if (e instanceof ScriptFailure) return { result: e.outcome, reason: e.message };
    return { result: 'invalid', reason: `verification failed unexpectedly: ${e instanceof Error ? e.message : String(e)}` };
  }
}
