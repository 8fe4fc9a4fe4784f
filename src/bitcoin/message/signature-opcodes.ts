/**
 * The signature opcodes (CHECKSIG, CHECKMULTISIG, CHECKSIGADD) with Bitcoin Core's encoding
 * checks and the BIP-322 rules on sighash types.
 */
import { encodePush } from './script.js';
import { invalid, num, ScriptFailure, type ExecContext } from './script-context.js';
import { derToCompact, isCompressedPublicKey, isLowS, isStrictDer, isStrictPublicKey } from './signature-encoding.js';
import { SIGHASH_ALL, SIGHASH_DEFAULT } from './sighash.js';

const MAX_MULTISIG_KEYS = 20;

/**
 * Legacy/segwit-v0 signature check with Bitcoin Core's encoding checks first. An empty signature
 * is simply false (the honest way to decline in a multi-branch script).
 */
export function checkEcdsaSig(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, ctx: ExecContext): boolean {
  if (sig.length === 0) return false;
  const compact = checkEcdsaEncoding(sig);
  if (!isStrictPublicKey(pubkey)) throw invalid('a public key is not a valid SEC1 encoding');
  if (ctx.sigVersion === 'witness_v0' && !isCompressedPublicKey(pubkey)) {
    throw new ScriptFailure('inconclusive', 'an uncompressed public key in a segwit script is non-standard');
  }
  if (ctx.sigVersion === 'base' && containsPush(scriptCode, sig)) {
    throw invalid('the signature appears in the script it signs (FindAndDelete is forbidden by BIP-322)');
  }
  return ctx.checker.checkEcdsa(compact, pubkey, scriptCode, ctx.sigVersion);
}

/** Strict DER, SIGHASH_ALL only, low S; returns r‖s. */
export function checkEcdsaEncoding(sig: Uint8Array): Uint8Array {
  if (!isStrictDer(sig)) throw invalid('a signature is not strict DER (BIP-66)');
  const hashType = sig[sig.length - 1]!;
  if (hashType !== SIGHASH_ALL)
    throw invalid(`a signature uses sighash type 0x${hashType.toString(16).padStart(2, '0')}; BIP-322 requires SIGHASH_ALL`);
  const compact = derToCompact(sig);
  if (compact === undefined) throw invalid('a signature has an out-of-range r or s');
  if (!isLowS(compact)) throw invalid('a signature has a high S value (BIP-146 LOW_S)');
  return compact;
}

function containsPush(script: Uint8Array, data: Uint8Array): boolean {
  const needle = encodePush(data);
  outer: for (let i = 0; i + needle.length <= script.length; i++) {
    for (let j = 0; j < needle.length; j++) if (script[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** BIP-342 signature check: empty declines, anything else must verify. */
export function checkSchnorrSig(sig: Uint8Array, pubkey: Uint8Array, ctx: ExecContext): boolean {
  if (sig.length > 0) {
    ctx.budget.remaining -= 50;
    if (ctx.budget.remaining < 0) throw invalid('the tapscript exceeds its signature-operation budget');
  }
  if (pubkey.length === 0) throw invalid('an empty public key in tapscript');
  if (pubkey.length !== 32) {
    if (sig.length === 0) return false;
    throw new ScriptFailure('inconclusive', `a ${pubkey.length}-byte public key is an unknown tapscript key type reserved for upgrades`);
  }
  if (sig.length === 0) return false;
  const { sig64, hashType } = splitSchnorrSig(sig);
  if (!ctx.checker.checkSchnorr(sig64, hashType, pubkey)) throw invalid('a Schnorr signature does not verify for this message and address');
  return true;
}

/** Splits a 64/65-byte BIP-341 signature, enforcing BIP-322's SIGHASH_DEFAULT/ALL rule. */
export function splitSchnorrSig(sig: Uint8Array): { sig64: Uint8Array; hashType: number } {
  if (sig.length === 64) return { sig64: sig, hashType: SIGHASH_DEFAULT };
  if (sig.length !== 65) throw invalid(`a Schnorr signature is ${sig.length} bytes (64 or 65 expected)`);
  const hashType = sig[64]!;
  if (hashType === SIGHASH_DEFAULT) throw invalid('a 65-byte Schnorr signature may not use sighash type 0x00');
  if (hashType !== SIGHASH_ALL)
    throw invalid(
      `a Schnorr signature uses sighash type 0x${hashType.toString(16).padStart(2, '0')}; BIP-322 requires SIGHASH_ALL or SIGHASH_DEFAULT`,
    );
  return { sig64: sig.subarray(0, 64), hashType };
}

// A stack element counted from the top (1 = top); module level, not a closure, as it is on the hot path.
function at(stack: readonly Uint8Array[], i: number): Uint8Array {
  if (i > stack.length) throw invalid('the script reads past the bottom of the stack');
  return stack[stack.length - i]!;
}

/** OP_CHECKMULTISIG as in Bitcoin Core, with NULLDUMMY and NULLFAIL. Leaves its result for the caller to push. */
export function checkMultisig(stack: Uint8Array[], script: Uint8Array, ctx: ExecContext): { ok: boolean; ops: number } {
  let i = 1;
  let keys = num(at(stack, i));
  if (keys < 0 || keys > MAX_MULTISIG_KEYS) throw invalid('OP_CHECKMULTISIG key count out of range');
  const ops = keys;
  let ikey = ++i;
  let ikey2 = keys + 2;
  i += keys;
  let sigs = num(at(stack, i));
  if (sigs < 0 || sigs > keys) throw invalid('OP_CHECKMULTISIG signature count out of range');
  let isig = ++i;
  i += sigs;
  at(stack, i); // the dummy element must exist
  let ok = true;
  while (ok && sigs > 0) {
    const sig = at(stack, isig);
    const pubkey = at(stack, ikey);
    if (checkEcdsaSig(sig, pubkey, script, ctx)) {
      isig++;
      sigs--;
    }
    ikey++;
    keys--;
    if (sigs > keys) ok = false;
  }
  while (i-- > 1) {
    if (!ok && ikey2 === 0 && at(stack, 1).length > 0) throw invalid('the multisig signatures do not verify for this message and address');
    if (ikey2 > 0) ikey2--;
    stack.pop();
  }
  if (stack.length < 1) throw invalid('OP_CHECKMULTISIG is missing its dummy element');
  if (at(stack, 1).length > 0) throw invalid('the OP_CHECKMULTISIG dummy element must be empty (NULLDUMMY)');
  stack.pop();
  return { ok, ops };
}
