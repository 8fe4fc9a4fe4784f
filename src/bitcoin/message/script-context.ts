/** Types shared by the script interpreter and its signature opcodes. */
import { decodeScriptNum, ScriptNumError } from './script.js';

export type SigVersion = 'base' | 'witness_v0' | 'tapscript';

/** Why a script did not succeed: `invalid` breaks a rule, `inconclusive` uses an upgrade hook. */
export class ScriptFailure extends Error {
  constructor(
    readonly outcome: 'invalid' | 'inconclusive',
    message: string,
  ) {
    super(message);
  }
}

/** Signature and time-lock checks, which need the spending transaction. */
export interface SignatureChecker {
  /** ECDSA over the legacy or BIP-143 sighash (SIGHASH_ALL) with `scriptCode`. */
  checkEcdsa(compactSig: Uint8Array, publicKey: Uint8Array, scriptCode: Uint8Array, sigVersion: SigVersion): boolean;
  /** BIP-340 over the BIP-342 sighash of the executing leaf. */
  checkSchnorr(sig64: Uint8Array, hashType: number, xOnlyKey: Uint8Array): boolean;
  /** OP_CHECKLOCKTIMEVERIFY against the transaction's nLockTime and the input's nSequence. */
  checkLockTime(lockTime: number): boolean;
  /** OP_CHECKSEQUENCEVERIFY against the input's nSequence and the transaction version. */
  checkSequence(sequence: number): boolean;
}

export interface ExecContext {
  sigVersion: SigVersion;
  checker: SignatureChecker;
  /** BIP-342 validation weight budget (tapscript only), decremented by 50 per signature checked. */
  budget: { remaining: number };
}

/** Shorthand for an `invalid` failure. */
export const invalid = (reason: string): ScriptFailure => new ScriptFailure('invalid', reason);

/** A stack element as a script number; malformed numbers fail the script. */
export function num(v: Uint8Array, maxLength = 4): number {
  try {
    return decodeScriptNum(v, maxLength);
  } catch (e) {
    if (e instanceof ScriptNumError) throw invalid(e.message);
    throw e;
  }
}
