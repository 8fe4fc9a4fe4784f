import { bytesEqual, hash160, ripemd160, sha1, sha256, sha256d } from '../hashes.js';
import { castToBool, encodeScriptNum, isOpSuccess, OP, parseScript } from './script.js';
import { invalid, num, ScriptFailure, type ExecContext } from './script-context.js';
import { checkEcdsaSig, checkMultisig, checkSchnorrSig } from './signature-opcodes.js';
import { binaryOp } from './script-arithmetic.js';
import { need, pop, pushBool, top } from './script-stack.js';

export { ScriptFailure, type ExecContext, type SignatureChecker, type SigVersion } from './script-context.js';
export { checkEcdsaEncoding, splitSchnorrSig } from './signature-opcodes.js';

/**
 * A script interpreter for the rules BIP-322 verification needs: legacy (P2PKH/P2SH), segwit v0
 * (P2WSH) and tapscript (BIP-342), with the BIP-322 "required rules" (SIGHASH_ALL only, no
 * OP_CODESEPARATOR/FindAndDelete, strict DER, low S, NULLFAIL, NULLDUMMY, MINIMALDATA,
 * MINIMALIF, CLEANSTACK) enforced as failures, and its "upgradeable rules" (reserved NOPs,
 * OP_SUCCESSx, unknown key types) reported as inconclusive.
 *
 * Every opcode that is enabled in Bitcoin is implemented, so any script that a wallet can spend
 * is judged; what we cannot judge (upgrade hooks) is inconclusive, never valid.
 */

export const MAX_SCRIPT_SIZE = 10_000;
export const MAX_ELEMENT_SIZE = 520;
export const MAX_STACK_SIZE = 1000;
const MAX_OPS = 201;

/**
 * What OP_1..OP_16 push, built once (multisig scripts push two of them per verification). Stack
 * elements are never modified in place, so sharing them, like TRUE and FALSE (script-stack.ts), is safe.
 */
const SMALL_NUMBERS = Array.from({ length: 16 }, (_, i) => encodeScriptNum(i + 1));

const DISABLED = new Set<number>([
  OP.CAT,
  OP.SUBSTR,
  OP.LEFT,
  OP.RIGHT,
  OP.INVERT,
  OP.AND,
  OP.OR,
  OP.XOR,
  OP['2MUL'],
  OP['2DIV'],
  OP.MUL,
  OP.DIV,
  OP.MOD,
  OP.LSHIFT,
  OP.RSHIFT,
]);

/**
 * Executes `script` on `stack` (mutated in place). Throws ScriptFailure when the script fails;
 * returning means it ran to completion (the caller checks the final stack).
 */
export function evalScript(stack: Uint8Array[], script: Uint8Array, ctx: ExecContext): void {
  const { sigVersion } = ctx;
  const tapscript = sigVersion === 'tapscript';
  const parsed = parseScript(script);
  if (tapscript) {
    // BIP-342: an OP_SUCCESSx anywhere decodable makes the script succeed by consensus; it is an
    // upgrade hook, so we cannot judge it.
    if (parsed.ops.some((op) => isOpSuccess(op.opcode)))
      throw new ScriptFailure('inconclusive', 'the script uses an OP_SUCCESS opcode reserved for upgrades');
  } else if (script.length > MAX_SCRIPT_SIZE) {
    throw invalid(`the script is ${script.length} bytes, over the ${MAX_SCRIPT_SIZE}-byte limit`);
  }
  if (parsed.error !== undefined) throw invalid(`the script cannot be decoded: ${parsed.error}`);

  const alt: Uint8Array[] = [];
  const exec: boolean[] = [];
  let falseBranches = 0;
  let opCount = 0;

  for (const op of parsed.ops) {
    const { opcode } = op;
    const fExec = falseBranches === 0;
    if (op.data !== undefined && op.data.length > MAX_ELEMENT_SIZE) throw invalid('a push exceeds 520 bytes');
    if (!tapscript && opcode > OP.OP_16 && ++opCount > MAX_OPS) throw invalid('the script exceeds 201 operations');
    if (DISABLED.has(opcode)) throw invalid(`the script contains the disabled opcode 0x${opcode.toString(16)}`);
    if (opcode === OP.CODESEPARATOR && fExec) throw invalid('OP_CODESEPARATOR is forbidden in BIP-322 signatures');

    if (opcode <= OP.PUSHDATA4) {
      if (!fExec) continue;
      if (!op.minimal) throw invalid('a push is not minimally encoded (MINIMALDATA)');
      stack.push(op.data!);
    } else if (fExec || (opcode >= OP.IF && opcode <= OP.ENDIF)) {
      switch (opcode) {
        case OP.OP_1NEGATE:
          stack.push(encodeScriptNum(-1));
          break;
        case OP.NOP:
          break;
        case OP.CHECKLOCKTIMEVERIFY: {
          need(stack, 1);
          const n = num(top(stack), 5);
          if (n < 0) throw invalid('negative lock time in OP_CHECKLOCKTIMEVERIFY');
          if (!ctx.checker.checkLockTime(n)) throw invalid('OP_CHECKLOCKTIMEVERIFY is not satisfied by the signature transaction');
          break;
        }
        case OP.CHECKSEQUENCEVERIFY: {
          need(stack, 1);
          const n = num(top(stack), 5);
          if (n < 0) throw invalid('negative sequence in OP_CHECKSEQUENCEVERIFY');
          const disabled = Math.floor(n / 2 ** 31) % 2 === 1;
          if (!disabled && !ctx.checker.checkSequence(n))
            throw invalid('OP_CHECKSEQUENCEVERIFY is not satisfied by the signature transaction');
          break;
        }
        case OP.IF:
        case OP.NOTIF: {
          let value = false;
          if (fExec) {
            need(stack, 1);
            const v = top(stack);
            if (sigVersion !== 'base' && (v.length > 1 || (v.length === 1 && v[0] !== 1))) {
              throw invalid('the argument of OP_IF/OP_NOTIF must be empty or 0x01 (MINIMALIF)');
            }
            value = castToBool(v);
            if (opcode === OP.NOTIF) value = !value;
            stack.pop();
          }
          exec.push(value);
          if (!value) falseBranches++;
          break;
        }
        case OP.ELSE: {
          if (exec.length === 0) throw invalid('OP_ELSE without OP_IF');
          const last = exec.length - 1;
          if (!exec[last]) falseBranches--;
          exec[last] = !exec[last];
          if (!exec[last]) falseBranches++;
          break;
        }
        case OP.ENDIF: {
          if (exec.length === 0) throw invalid('OP_ENDIF without OP_IF');
          if (!exec.pop()) falseBranches--;
          break;
        }
        case OP.VERIFY:
          need(stack, 1);
          if (!castToBool(top(stack))) throw invalid('OP_VERIFY failed');
          stack.pop();
          break;
        case OP.RETURN:
          throw invalid('the script executes OP_RETURN');
        case OP.TOALTSTACK:
          alt.push(pop(stack));
          break;
        case OP.FROMALTSTACK:
          if (alt.length === 0) throw invalid('OP_FROMALTSTACK on an empty alt stack');
          stack.push(alt.pop()!);
          break;
        case OP['2DROP']:
          need(stack, 2);
          stack.length -= 2;
          break;
        case OP['2DUP']:
          need(stack, 2);
          stack.push(top(stack, 2), top(stack, 1));
          break;
        case OP['3DUP']:
          need(stack, 3);
          stack.push(top(stack, 3), top(stack, 2), top(stack, 1));
          break;
        case OP['2OVER']:
          need(stack, 4);
          stack.push(top(stack, 4), top(stack, 3));
          break;
        case OP['2ROT']: {
          need(stack, 6);
          const moved = stack.splice(stack.length - 6, 2);
          stack.push(...moved);
          break;
        }
        case OP['2SWAP']: {
          need(stack, 4);
          const moved = stack.splice(stack.length - 4, 2);
          stack.push(...moved);
          break;
        }
        case OP.IFDUP:
          need(stack, 1);
          if (castToBool(top(stack))) stack.push(top(stack));
          break;
        case OP.DEPTH:
          stack.push(encodeScriptNum(stack.length));
          break;
        case OP.DROP:
          pop(stack);
          break;
        case OP.DUP:
          need(stack, 1);
          stack.push(top(stack));
          break;
        case OP.NIP:
          need(stack, 2);
          stack.splice(stack.length - 2, 1);
          break;
        case OP.OVER:
          need(stack, 2);
          stack.push(top(stack, 2));
          break;
        case OP.PICK:
        case OP.ROLL: {
          need(stack, 2);
          const n = num(pop(stack));
          if (n < 0 || n >= stack.length) throw invalid('OP_PICK/OP_ROLL index out of range');
          const v = top(stack, n + 1);
          if (opcode === OP.ROLL) stack.splice(stack.length - n - 1, 1);
          stack.push(v);
          break;
        }
        case OP.ROT: {
          need(stack, 3);
          const [v] = stack.splice(stack.length - 3, 1);
          stack.push(v!);
          break;
        }
        case OP.SWAP: {
          need(stack, 2);
          const a = stack.pop()!;
          const b = stack.pop()!;
          stack.push(a, b);
          break;
        }
        case OP.TUCK: {
          need(stack, 2);
          stack.splice(stack.length - 2, 0, top(stack));
          break;
        }
        case OP.SIZE:
          need(stack, 1);
          stack.push(encodeScriptNum(top(stack).length));
          break;
        case OP.EQUAL:
        case OP.EQUALVERIFY: {
          need(stack, 2);
          const equal = bytesEqual(pop(stack), pop(stack));
          if (opcode === OP.EQUALVERIFY) {
            if (!equal) throw invalid('OP_EQUALVERIFY failed');
          } else pushBool(stack, equal);
          break;
        }
        case OP['1ADD']:
        case OP['1SUB']:
        case OP.NEGATE:
        case OP.ABS:
        case OP.NOT:
        case OP['0NOTEQUAL']: {
          const a = num(pop(stack));
          const r =
            opcode === OP['1ADD']
              ? a + 1
              : opcode === OP['1SUB']
                ? a - 1
                : opcode === OP.NEGATE
                  ? -a
                  : opcode === OP.ABS
                    ? Math.abs(a)
                    : opcode === OP.NOT
                      ? Number(a === 0)
                      : Number(a !== 0);
          stack.push(encodeScriptNum(r));
          break;
        }
        case OP.ADD:
        case OP.SUB:
        case OP.BOOLAND:
        case OP.BOOLOR:
        case OP.NUMEQUAL:
        case OP.NUMEQUALVERIFY:
        case OP.NUMNOTEQUAL:
        case OP.LESSTHAN:
        case OP.GREATERTHAN:
        case OP.LESSTHANOREQUAL:
        case OP.GREATERTHANOREQUAL:
        case OP.MIN:
        case OP.MAX: {
          need(stack, 2);
          const b = num(pop(stack));
          const a = num(pop(stack));
          const r = binaryOp(opcode, a, b);
          if (opcode === OP.NUMEQUALVERIFY) {
            if (!r) throw invalid('OP_NUMEQUALVERIFY failed');
          } else stack.push(encodeScriptNum(r));
          break;
        }
        case OP.WITHIN: {
          need(stack, 3);
          const max = num(pop(stack));
          const min = num(pop(stack));
          const x = num(pop(stack));
          pushBool(stack, min <= x && x < max);
          break;
        }
        case OP.RIPEMD160:
          stack.push(ripemd160(pop(stack)));
          break;
        case OP.SHA1:
          stack.push(sha1(pop(stack)));
          break;
        case OP.SHA256:
          stack.push(sha256(pop(stack)));
          break;
        case OP.HASH160:
          stack.push(hash160(pop(stack)));
          break;
        case OP.HASH256:
          stack.push(sha256d(pop(stack)));
          break;
        case OP.CHECKSIG:
        case OP.CHECKSIGVERIFY: {
          need(stack, 2);
          const pubkey = pop(stack);
          const sig = pop(stack);
          const ok = tapscript ? checkSchnorrSig(sig, pubkey, ctx) : checkEcdsaSig(sig, pubkey, script, ctx);
          if (!ok && sig.length > 0 && !tapscript) throw invalid('the signature does not verify for this message and address');
          if (opcode === OP.CHECKSIGVERIFY) {
            if (!ok) throw invalid('OP_CHECKSIGVERIFY failed');
          } else pushBool(stack, ok);
          break;
        }
        case OP.CHECKSIGADD: {
          if (!tapscript) throw invalid('OP_CHECKSIGADD is only defined in tapscript');
          need(stack, 3);
          const pubkey = pop(stack);
          const n = num(pop(stack));
          const sig = pop(stack);
          const ok = checkSchnorrSig(sig, pubkey, ctx);
          stack.push(encodeScriptNum(n + (ok ? 1 : 0)));
          break;
        }
        case OP.CHECKMULTISIG:
        case OP.CHECKMULTISIGVERIFY: {
          if (tapscript) throw invalid('OP_CHECKMULTISIG is disabled in tapscript');
          const { ok, ops } = checkMultisig(stack, script, ctx);
          opCount += ops;
          if (opCount > MAX_OPS) throw invalid('the script exceeds 201 operations');
          if (opcode === OP.CHECKMULTISIGVERIFY) {
            if (!ok) throw invalid('OP_CHECKMULTISIGVERIFY failed');
          } else pushBool(stack, ok);
          break;
        }
        default:
          if (opcode >= OP.OP_1 && opcode <= OP.OP_16) {
            stack.push(SMALL_NUMBERS[opcode - OP.OP_1]!);
          } else if (opcode === OP.NOP1 || (opcode >= OP.NOP4 && opcode <= OP.NOP10)) {
            throw new ScriptFailure('inconclusive', `the script uses the upgradeable NOP 0x${opcode.toString(16)}`);
          } else {
            throw invalid(`the script executes the invalid opcode 0x${opcode.toString(16)}`);
          }
      }
    }
    if (stack.length + alt.length > MAX_STACK_SIZE) throw invalid('the stack exceeds 1000 elements');
  }
  if (exec.length !== 0) throw invalid('unbalanced OP_IF/OP_ENDIF');
}
