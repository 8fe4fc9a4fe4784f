import { describe, expect, it } from 'vitest';
import { base64, hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { RawTx, RawWitness } from '@scure/btc-signer';
import { addressFromScript } from '../address.js';
import { makeWallet, signBip322, toSpendTxid } from './fixtures/signers.js';
import { decodeScriptNum, encodeScriptNum } from './script.js';
import { verifyMessage, type VerificationResult } from './verify-message.js';

/**
 * Script-rule tests through the public API: each builds an address committing to a script and
 * a BIP-322 full signature (a to_sign transaction) whose witness exercises one rule.
 */

const MESSAGE = 'script rules';
const n = (v: number): Uint8Array => {
  const e = encodeScriptNum(v);
  if (v >= 1 && v <= 16) return Uint8Array.of(0x50 + v);
  if (v === 0) return Uint8Array.of(0x00);
  return Uint8Array.of(e.length, ...e);
};
const push = (b: Uint8Array): Uint8Array => (b.length < 76 ? Uint8Array.of(b.length, ...b) : Uint8Array.of(0x4c, b.length, ...b));
const script = (...parts: (number | Uint8Array)[]): Uint8Array =>
  new Uint8Array(parts.flatMap((p) => (typeof p === 'number' ? [p] : [...p])));

const OP_IF = 0x63,
  OP_ELSE = 0x67,
  OP_ENDIF = 0x68,
  OP_DROP = 0x75,
  OP_EQUAL = 0x87,
  OP_SHA256 = 0xa8;
const OP_CHECKSIG = 0xac,
  OP_CHECKMULTISIG = 0xae,
  OP_CLTV = 0xb1,
  OP_CSV = 0xb2,
  OP_NOP4 = 0xb3,
  OP_CODESEPARATOR = 0xab;
const OP_CAT = 0x7e,
  OP_1 = 0x51,
  OP_NOP = 0x61,
  OP_ADD = 0x93;

interface TxShape {
  version?: number;
  lockTime?: number;
  sequence?: number;
  scriptSig?: Uint8Array;
}

/** A BIP-322 full signature spending `scriptPubKey` with `witness`, built with btc-signer's raw codec. */
function fullSignature(scriptPubKey: Uint8Array, witness: Uint8Array[], shape: TxShape = {}): string {
  const raw = RawTx.encode({
    version: shape.version ?? 0,
    segwitFlag: witness.length > 0,
    inputs: [
      {
        txid: toSpendTxid(scriptPubKey, MESSAGE),
        index: 0,
        finalScriptSig: shape.scriptSig ?? new Uint8Array(0),
        sequence: shape.sequence ?? 0,
      },
    ],
    outputs: [{ amount: 0n, script: Uint8Array.of(0x6a) }],
    witnesses: witness.length > 0 ? [witness] : [],
    lockTime: shape.lockTime ?? 0,
  });
  return 'ful' + base64.encode(raw);
}

function p2wsh(witnessScript: Uint8Array, stack: Uint8Array[], shape?: TxShape): VerificationResult {
  const spk = script(0x00, 0x20, sha256(witnessScript));
  const address = addressFromScript(spk, 'mainnet')!;
  return verifyMessage({ address, message: MESSAGE, signature: fullSignature(spk, [...stack, witnessScript], shape) });
}

const taggedHash = (tag: string, ...parts: Uint8Array[]): Uint8Array => {
  const t = sha256(new TextEncoder().encode(tag));
  return sha256(script(t, t, ...parts));
};

/** A single-leaf taproot output for `leaf`, computed with @noble/curves; returns address and control block. */
function taprootLeaf(leaf: Uint8Array, leafVersion = 0xc0): { spk: Uint8Array; control: Uint8Array } {
  const internal = schnorr.getPublicKey(secp256k1.utils.randomSecretKey());
  const leafHash = taggedHash('TapLeaf', Uint8Array.of(leafVersion), Uint8Array.of(leaf.length), leaf);
  const tweak = taggedHash('TapTweak', internal, leafHash);
  const P = secp256k1.Point.fromBytes(Uint8Array.of(0x02, ...internal));
  const Q = P.add(secp256k1.Point.BASE.multiply(BigInt('0x' + hex.encode(tweak)))).toBytes(true);
  return { spk: script(0x51, 0x20, Q.subarray(1)), control: Uint8Array.of(leafVersion | (Q[0]! & 1), ...internal) };
}

function tapscript(leaf: Uint8Array, stack: Uint8Array[], extra: Uint8Array[] = [], leafVersion?: number): VerificationResult {
  const { spk, control } = taprootLeaf(leaf, leafVersion);
  const address = addressFromScript(spk, 'mainnet')!;
  return verifyMessage({ address, message: MESSAGE, signature: fullSignature(spk, [...stack, leaf, control, ...extra]) });
}

describe('segwit v0 scripts', () => {
  const preimage = new TextEncoder().encode('open sesame');
  const hashlock = script(OP_SHA256, push(sha256(preimage)), OP_EQUAL);

  it('runs a hash lock: the right preimage is valid, another is invalid', () => {
    expect(p2wsh(hashlock, [preimage])).toMatchObject({ valid: true, format: 'bip322-full', address_type: 'p2wsh' });
    expect(p2wsh(hashlock, [new Uint8Array(3)])).toMatchObject({ valid: false, result: 'invalid' });
  });

  it('enforces CLEANSTACK: extra elements left on the stack are invalid', () => {
    const r = p2wsh(hashlock, [Uint8Array.of(1), preimage]);
    expect(r).toMatchObject({ valid: false, result: 'invalid' });
    expect(r.reason).toMatch(/CLEANSTACK/);
  });

  it('enforces MINIMALIF', () => {
    const s = script(OP_IF, OP_1, OP_ELSE, OP_1, OP_ENDIF);
    expect(p2wsh(s, [Uint8Array.of(1)]).valid).toBe(true);
    expect(p2wsh(s, [Uint8Array.of(2)]).reason).toMatch(/MINIMALIF/);
  });

  it('enforces MINIMALDATA for pushes and script numbers', () => {
    expect(p2wsh(script(0x4c, 0x01, 0x07), []).reason).toMatch(/MINIMALDATA/);
    expect(p2wsh(script(OP_ADD, n(3), OP_EQUAL), [Uint8Array.of(1, 0), Uint8Array.of(2)]).reason).toMatch(/non-minimally/);
    expect(p2wsh(script(OP_ADD, n(3), OP_EQUAL), [Uint8Array.of(1), Uint8Array.of(2)]).valid).toBe(true);
  });

  it('checks OP_CHECKSEQUENCEVERIFY against the to_sign version and sequence', () => {
    const s = script(n(144), OP_CSV, OP_DROP, OP_1);
    expect(p2wsh(s, [], { version: 2, sequence: 144 }).valid).toBe(true);
    expect(p2wsh(s, [], { version: 2, sequence: 143 }).reason).toMatch(/CHECKSEQUENCEVERIFY/);
    expect(p2wsh(s, [], { version: 0, sequence: 144 }).valid).toBe(false);
  });

  it('checks OP_CHECKLOCKTIMEVERIFY against the to_sign lock time', () => {
    const s = script(n(100), OP_CLTV, OP_DROP, OP_1);
    expect(p2wsh(s, [], { lockTime: 100 })).toMatchObject({ valid: true, time_lock: { lock_time: 100, sequence: 0 } });
    expect(p2wsh(s, [], { lockTime: 99 }).reason).toMatch(/CHECKLOCKTIMEVERIFY/);
    expect(p2wsh(s, [], { lockTime: 100, sequence: 0xffffffff }).valid).toBe(false);
    expect(p2wsh(s, [], { lockTime: 500_000_100 }).valid).toBe(false);
  });

  it('treats upgradeable NOPs as inconclusive when executed, and ignores them in unexecuted branches', () => {
    expect(p2wsh(script(OP_NOP4, OP_1), [])).toMatchObject({ valid: false, result: 'inconclusive' });
    expect(p2wsh(script(OP_IF, OP_NOP4, OP_ENDIF, OP_1), [new Uint8Array(0)]).valid).toBe(true);
  });

  it('forbids OP_CODESEPARATOR and disabled opcodes, even unexecuted ones', () => {
    expect(p2wsh(script(OP_CODESEPARATOR, OP_1), []).reason).toMatch(/CODESEPARATOR/);
    expect(p2wsh(script(OP_IF, OP_CAT, OP_ENDIF, OP_1), [new Uint8Array(0)]).reason).toMatch(/disabled/);
  });

  it('limits a script to 201 operations', () => {
    expect(p2wsh(script(...new Array(201).fill(OP_NOP), OP_1), []).valid).toBe(true);
    expect(p2wsh(script(...new Array(202).fill(OP_NOP), OP_1), []).reason).toMatch(/201 operations/);
  });

  it('limits the stack to 1000 elements', () => {
    expect(p2wsh(script(...new Array(1001).fill(OP_1)), []).reason).toMatch(/1000 elements/);
  });

  it('refuses the empty signature of a single-key script as a failed check', () => {
    const pub = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);
    const r = p2wsh(script(push(pub), OP_CHECKSIG), [new Uint8Array(0)]);
    expect(r).toMatchObject({ valid: false, result: 'invalid' });
    expect(r.reason).toMatch(/evaluated to false/);
  });

  it('judges an uncompressed key in a segwit script inconclusive (non-standard, not forged)', () => {
    const pub = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false);
    const sig = script(derOf(new Uint8Array(64).fill(1)), 0x01);
    expect(p2wsh(script(push(pub), OP_CHECKSIG), [sig])).toMatchObject({ valid: false, result: 'inconclusive' });
  });

  it('requires an empty OP_CHECKMULTISIG dummy (NULLDUMMY)', () => {
    const pub = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);
    const s = script(n(0), push(pub), n(1), OP_CHECKMULTISIG);
    expect(p2wsh(s, [new Uint8Array(0)]).valid).toBe(true); // 0-of-1 multisig
    expect(p2wsh(s, [Uint8Array.of(1)]).reason).toMatch(/NULLDUMMY/);
  });
});

/** DER encoding of a 64-byte r‖s (test helper, independent of the verifier's parser). */
function derOf(compact: Uint8Array): Uint8Array {
  const int = (b: Uint8Array): number[] => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    const v = [...b.subarray(i)];
    return v[0]! & 0x80 ? [0, ...v] : v;
  };
  const r = int(compact.subarray(0, 32));
  const s = int(compact.subarray(32));
  return Uint8Array.of(0x30, r.length + s.length + 4, 0x02, r.length, ...r, 0x02, s.length, ...s);
}

describe('signature encoding rules (P2WPKH signed by btc-signer, then altered)', () => {
  const wallet = makeWallet('p2wpkh');
  const signature = signBip322(wallet, MESSAGE, 'simple');
  const [sig, pub] = RawWitness.decode(base64.decode(signature.slice(3))) as [Uint8Array, Uint8Array];
  const compact = secp256k1.Signature.fromBytes(sig.subarray(0, -1), 'der').toBytes('compact');
  const withSig = (s: Uint8Array): VerificationResult =>
    verifyMessage({ address: wallet.address, message: MESSAGE, signature: 'smp' + base64.encode(RawWitness.encode([s, pub])) });

  it('accepts the original', () => {
    expect(withSig(sig).valid).toBe(true);
  });

  it('refuses the high-S twin of a valid signature', () => {
    const N = secp256k1.Point.CURVE().n;
    const s = BigInt('0x' + hex.encode(compact.subarray(32)));
    const high = compact.slice();
    high.set(hex.decode((N - s).toString(16).padStart(64, '0')), 32);
    const r = withSig(script(derOf(high), 0x01));
    expect(r).toMatchObject({ valid: false, result: 'invalid' });
    expect(r.reason).toMatch(/high S/);
  });

  it('refuses non-strict DER (a padded integer) and a wrong sighash type', () => {
    const padded = script(0x30, sig[1]! + 1, 0x02, sig[3]! + 1, 0x00, sig.subarray(4, -1), 0x01);
    expect(withSig(padded).reason).toMatch(/DER/);
    expect(withSig(script(sig.subarray(0, -1), 0x02)).reason).toMatch(/SIGHASH_ALL/);
  });
});

describe('tapscript (BIP-342 script path)', () => {
  const preimage = Uint8Array.of(7, 7, 7);
  const hashlock = script(OP_SHA256, push(sha256(preimage)), OP_EQUAL);

  it('verifies a script-path spend whose control block commits to the address', () => {
    expect(tapscript(hashlock, [preimage])).toMatchObject({ valid: true, address_type: 'p2tr' });
    expect(tapscript(hashlock, [Uint8Array.of(8)]).valid).toBe(false);
  });

  it('refuses a control block for another output', () => {
    const { spk } = taprootLeaf(hashlock);
    const { control } = taprootLeaf(hashlock);
    const address = addressFromScript(spk, 'mainnet')!;
    const r = verifyMessage({ address, message: MESSAGE, signature: fullSignature(spk, [preimage, hashlock, control]) });
    expect(r.reason).toMatch(/does not commit/);
  });

  it('judges OP_SUCCESS opcodes, unknown leaf versions, unknown key types and annexes inconclusive', () => {
    expect(tapscript(script(0x50), [])).toMatchObject({ result: 'inconclusive' });
    expect(tapscript(hashlock, [preimage], [], 0xc2)).toMatchObject({ result: 'inconclusive' });
    const unknownKey = script(push(new Uint8Array(33).fill(2)), OP_CHECKSIG);
    expect(tapscript(unknownKey, [new Uint8Array(64).fill(1)])).toMatchObject({ result: 'inconclusive' });
    expect(tapscript(hashlock, [preimage], [Uint8Array.of(0x50, 1)])).toMatchObject({ result: 'inconclusive' });
  });

  it('refuses an empty public key and a failing non-empty Schnorr signature', () => {
    expect(tapscript(script(push(new Uint8Array(0)), OP_CHECKSIG), [new Uint8Array(0)]).result).toBe('invalid');
    const key = schnorr.getPublicKey(secp256k1.utils.randomSecretKey());
    const r = tapscript(script(push(key), OP_CHECKSIG), [new Uint8Array(64).fill(3)]);
    expect(r).toMatchObject({ valid: false, result: 'invalid' });
  });

  it('allows OP_CAT-numbered opcodes only as OP_SUCCESS (inconclusive), never as valid', () => {
    expect(tapscript(script(OP_CAT), [])).toMatchObject({ valid: false, result: 'inconclusive' });
  });
});

describe('script numbers', () => {
  it('round-trip through the minimal encoding', () => {
    for (const v of [0, 1, -1, 127, 128, -128, 255, 256, 32767, -32768, 2 ** 31 - 1, -(2 ** 31 - 1)]) {
      expect(decodeScriptNum(encodeScriptNum(v))).toBe(v);
    }
    expect(hex.encode(encodeScriptNum(-1))).toBe('81');
    expect(hex.encode(encodeScriptNum(128))).toBe('8000');
    expect(() => decodeScriptNum(Uint8Array.of(1, 2, 3, 4, 5))).toThrow(/longer than 4/);
  });
});
