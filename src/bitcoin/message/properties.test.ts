import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { base64 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { addressFromScript } from '../address.js';
import { makeWallet, signBip322, signLegacy, WALLET_TYPES, SIMPLE_TYPES, encodeWitness } from './fixtures/signers.js';
import { verifyMessage, type VerificationResult, type VerifyMessageInput } from './verify-message.js';

// A verdict must come back quickly whatever the input; 250 ms is generous (a verification
// takes well under 1 ms) and catches accidental quadratic or unbounded work.
const TIME_LIMIT_MS = 250;

function checkedVerify(input: VerifyMessageInput): VerificationResult {
  const started = performance.now();
  const r = verifyMessage(input);
  const elapsed = performance.now() - started;
  expect(elapsed).toBeLessThan(TIME_LIMIT_MS);
  expect(['valid', 'invalid', 'inconclusive']).toContain(r.result);
  expect(r.valid).toBe(r.result === 'valid');
  if (!r.valid) expect(typeof r.reason).toBe('string');
  return r;
}

const wallets = WALLET_TYPES.map((t) => makeWallet(t));
const message = 'property';
const signed = wallets.flatMap((w) =>
  (['simple', 'full', 'pof'] as const)
    .filter((v) => v !== 'simple' || SIMPLE_TYPES.includes(w.type))
    .map((v) => ({ address: w.address, signature: signBip322(w, message, v) })),
);
const legacyWallet = makeWallet('p2pkh');
signed.push({ address: legacyWallet.address, signature: signLegacy(legacyWallet.privateKeys[0]!, message, 'compressed') });

/** The mainnet P2WSH address of a witness script, computed without judging the script. */
function p2wshAddress(script: Uint8Array): string {
  return addressFromScript(new Uint8Array([0x00, 0x20, ...sha256(script)]), 'mainnet')!;
}

const p2trSigned = signed.find((s) => s.address === wallets.find((w) => w.type === 'p2tr')!.address)!;

const anyAddress = fc.oneof(fc.constantFrom(...wallets.map((w) => w.address)), fc.string({ maxLength: 100 }));
const prefix = fc.constantFrom('', 'smp', 'ful', 'pof', 'xyz');

describe('verifyMessage never throws and always answers quickly', () => {
  it('for arbitrary values in every field, including wrong types', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (address, msg, signature) => {
        checkedVerify({ address, message: msg, signature } as unknown as VerifyMessageInput);
      }),
      { numRuns: 500 },
    );
    for (const bad of [null, undefined, 42, 'string', [], {}]) {
      expect(verifyMessage(bad as unknown as VerifyMessageInput).valid).toBe(false);
    }
  });

  it('for arbitrary strings as address, message and signature', () => {
    fc.assert(
      fc.property(anyAddress, fc.string({ maxLength: 200 }), fc.string({ maxLength: 300 }), (address, msg, signature) => {
        expect(checkedVerify({ address, message: msg, signature }).valid).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('for arbitrary bytes in base64 with or without a variant prefix', () => {
    fc.assert(
      fc.property(anyAddress, prefix, fc.uint8Array({ maxLength: 400 }), (address, p, bytes) => {
        expect(checkedVerify({ address, message, signature: p + base64.encode(bytes) }).valid).toBe(false);
      }),
      { numRuns: 1500 },
    );
  });

  it('for arbitrary witness stacks, including ones whose script matches a P2WSH address', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 80 }), { maxLength: 12 }), fc.uint8Array({ minLength: 1, maxLength: 120 }), (items, script) => {
        // The address commits to the random script, so the interpreter really runs it.
        checkedVerify({ address: p2wshAddress(script), message, signature: 'smp' + encodeWitness([...items, script]) });
        checkedVerify({ address: p2trSigned.address, message, signature: encodeWitness(items) });
      }),
      { numRuns: 1500 },
    );
  });

  it('for huge and pathological inputs', () => {
    const huge = 'A'.repeat(1_000_000);
    checkedVerify({ address: wallets[0]!.address, message, signature: huge });
    checkedVerify({ address: wallets[0]!.address, message, signature: huge + 'A' });
    checkedVerify({ address: 'bc1' + 'q'.repeat(100_000), message, signature: huge });
    expect(checkedVerify({ ...p2trSigned, message: 'x'.repeat(1_000_000) }).valid).toBe(false);
    expect(checkedVerify({ ...p2trSigned, message: '\uD800' }).reason).toMatch(/unpaired surrogate/);
    // A witness script of 10,000 OP_IFs nested inside an unexecuted branch, and of 10,001 bytes.
    for (const script of [new Uint8Array(10_000).fill(0x63), new Uint8Array(10_001).fill(0x61)]) {
      expect(checkedVerify({ address: p2wshAddress(script), message, signature: encodeWitness([new Uint8Array(0), script]) }).valid).toBe(false);
    }
    // A witness of 100,000 empty items.
    const many = Array.from({ length: 100_000 }, () => new Uint8Array(0));
    expect(checkedVerify({ address: p2trSigned.address, message, signature: encodeWitness(many) }).valid).toBe(false);
  });
});

describe('tampering never yields a valid verdict', () => {
  it('replacing, inserting or deleting bytes of a valid signature', () => {
    const edit = fc.record({
      which: fc.nat(signed.length - 1),
      kind: fc.constantFrom('replace', 'insert', 'delete', 'truncate'),
      at: fc.nat(),
      byte: fc.integer({ min: 0, max: 255 }),
    });
    fc.assert(
      fc.property(edit, ({ which, kind, at, byte }) => {
        const { address, signature } = signed[which]!;
        const p = /^(smp|ful|pof)/.test(signature) ? signature.slice(0, 3) : '';
        const bytes = base64.decode(signature.slice(p.length));
        const i = at % bytes.length;
        let tampered: Uint8Array;
        if (kind === 'replace') {
          if (bytes[i] === byte) return;
          tampered = bytes.slice();
          tampered[i] = byte;
        } else if (kind === 'insert') tampered = new Uint8Array([...bytes.subarray(0, i), byte, ...bytes.subarray(i)]);
        else if (kind === 'delete') tampered = new Uint8Array([...bytes.subarray(0, i), ...bytes.subarray(i + 1)]);
        else tampered = bytes.subarray(0, i);
        const r = checkedVerify({ address, message, signature: p + base64.encode(tampered) });
        expect(r.valid, `${kind} at ${i}`).toBe(false);
      }),
      { numRuns: 1500 },
    );
  });

  it('changing the message in any way', () => {
    fc.assert(
      fc.property(fc.nat(signed.length - 1), fc.string({ maxLength: 20 }), (which, other) => {
        fc.pre(other !== message);
        const { address, signature } = signed[which]!;
        expect(checkedVerify({ address, message: other, signature }).valid).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('every untampered signature used above is itself valid', () => {
    expect(signed.length).toBeGreaterThan(20);
    for (const { address, signature } of signed) expect(verifyMessage({ address, message, signature }).valid).toBe(true);
  });
});
