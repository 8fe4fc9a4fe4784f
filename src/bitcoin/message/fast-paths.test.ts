/**
 * The verifier's performance shortcuts (see "Performance" in README.md) checked against the slow
 * way: hashes against node:crypto and @noble/hashes, precomputed constants recomputed from their
 * serializations, fast decoders and direct script paths against the general code they stand for.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash, randomBytes } from 'node:crypto';
import { base64, hex } from '@scure/base';
import { ripemd160 as nobleRipemd160 } from '@noble/hashes/legacy.js';
import { parseAddress } from '../address.js';
import { decodeBase64Named, decodeBase64Strict } from './base64.js';
import { bip322MessageHash, buildToSpend, toSpendTxid } from './bip322.js';
import { hash160, ripemd160, sha256, sha256d, taggedHasher } from '../hashes.js';
import { makeWallet, signBip322, WALLET_TYPES } from './fixtures/signers.js';
import { bip322Vectors, legacyVectors } from './fixtures/vectors.js';
import {
  BIP322_OUTPUT,
  HASH_BIP322_OUTPUT,
  HASH_SINGLE_ZERO_SEQUENCE,
  segwitV0SighashAll,
  SighashCache,
  ZERO_SEQUENCE,
} from './sighash.js';
import { verifyInput } from './spend.js';
import { ByteWriter, decodeTransaction, isWholeTransaction, serializeWithoutWitness, txid, type Transaction } from './transaction.js';

const nodeSha256 = (d: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(d).digest());
const bytes = (n: number): Uint8Array => new Uint8Array(randomBytes(n));

describe('hashes', () => {
  // Every length through four blocks covers the one- and two-block JavaScript paths, their
  // padding boundaries (55/56, 119/120 bytes) and the hand-over to node:crypto.
  const lengths = Array.from({ length: 300 }, (_, i) => i);

  it('SHA-256, SHA256d, RIPEMD-160 and HASH160 match node:crypto and @noble/hashes at every length', () => {
    for (const n of lengths) {
      const d = bytes(n);
      expect(hex.encode(sha256(d)), `sha256 of ${n} bytes`).toBe(hex.encode(nodeSha256(d)));
      expect(hex.encode(sha256d(d)), `sha256d of ${n} bytes`).toBe(hex.encode(nodeSha256(nodeSha256(d))));
      expect(hex.encode(ripemd160(d)), `ripemd160 of ${n} bytes`).toBe(hex.encode(nobleRipemd160(d)));
      expect(hex.encode(hash160(d)), `hash160 of ${n} bytes`).toBe(hex.encode(nobleRipemd160(nodeSha256(d))));
    }
  });

  it('match the published test vectors', () => {
    const abc = new TextEncoder().encode('abc');
    expect(hex.encode(sha256(abc))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hex.encode(sha256(new Uint8Array(0)))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hex.encode(ripemd160(abc))).toBe('8eb208f7e05d987a9b044a8e98c6b087f15a0bfc');
    expect(hex.encode(ripemd160(new Uint8Array(0)))).toBe('9c1185a5c5e9fc54612808977ee8f548b2258d31');
    const million = new Uint8Array(1_000_000).fill(0x61);
    expect(hex.encode(sha256(million))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
    expect(hex.encode(ripemd160(million))).toBe('52783243c1697bdbe16d37f97f68f08325dc1528');
  });

  it('tagged hashes equal SHA256(SHA256(tag) ‖ SHA256(tag) ‖ data), whole or in parts', () => {
    const tag = 'BIP0322-signed-message';
    const tagged = taggedHasher(tag);
    const t = nodeSha256(new TextEncoder().encode(tag));
    for (const n of lengths) {
      const d = bytes(n);
      const expected = hex.encode(nodeSha256(new Uint8Array([...t, ...t, ...d])));
      expect(hex.encode(tagged(d)), `${n} bytes`).toBe(expected);
      expect(hex.encode(tagged(d.subarray(0, n >> 1), d.subarray(n >> 1))), `${n} bytes in two parts`).toBe(expected);
    }
    // BIP-322's own message-hash vectors.
    expect(hex.encode(bip322MessageHash(new Uint8Array(0)))).toBe('c90c269c4f8fcbe6880f72a721ddfbf1914268a794cbb21cfafee13770ae19f1');
    expect(hex.encode(bip322MessageHash(new TextEncoder().encode('Hello World')))).toBe(
      'f0eb03b1a75ac6d9847f55c624a99169b5dccba2a31f5b23bea77ba270de0a7a',
    );
  });

  it('return fresh arrays (the shared scratch state never leaks into results)', () => {
    const d = bytes(40);
    const a = sha256(d);
    const b = sha256(d);
    const h = hash160(d);
    expect(a).not.toBe(b);
    a.fill(0);
    sha256(bytes(10));
    hash160(bytes(10));
    expect(hex.encode(b)).toBe(hex.encode(nodeSha256(d)));
    expect(hex.encode(h)).toBe(hex.encode(nobleRipemd160(nodeSha256(d))));
  });

  it('agree with node:crypto on arbitrary inputs', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (d) => {
        expect(hex.encode(sha256d(d))).toBe(hex.encode(nodeSha256(nodeSha256(d))));
        expect(hex.encode(hash160(d))).toBe(hex.encode(nobleRipemd160(nodeSha256(d))));
      }),
      { numRuns: 300 },
    );
  });
});

describe('precomputed BIP-322 constants', () => {
  it('hashSequence of a single input with sequence 0 and hashOutputs of the OP_RETURN output are SHA256d of their serializations', () => {
    const sequence = new ByteWriter().u32(0).finish();
    const output = new ByteWriter().u64(0n).varBytes(Uint8Array.of(0x6a)).finish();
    expect(hex.encode(ZERO_SEQUENCE)).toBe(hex.encode(sequence));
    expect(hex.encode(BIP322_OUTPUT)).toBe(hex.encode(output));
    expect(hex.encode(HASH_SINGLE_ZERO_SEQUENCE)).toBe(hex.encode(nodeSha256(nodeSha256(sequence))));
    expect(hex.encode(HASH_BIP322_OUTPUT)).toBe(hex.encode(nodeSha256(nodeSha256(output))));
  });

  it('the sighash cache uses them only for the shapes they describe', () => {
    const toSign = (sequence: number, outputs: Transaction['outputs']): SighashCache =>
      new SighashCache(
        { version: 0, lockTime: 0, inputs: [{ txid: bytes(32), vout: 0, scriptSig: new Uint8Array(0), sequence, witness: [] }], outputs },
        [{ script: Uint8Array.of(0x00, 0x14, ...bytes(20)), value: 0n }],
      );
    const slow = (cache: SighashCache) => ({
      sequence: hex.encode(sha256d(new ByteWriter().u32(cache.tx.inputs[0]!.sequence).finish())),
      outputs: hex.encode(sha256d(cache.tx.outputs.reduce((w, o) => w.u64(o.value).varBytes(o.script), new ByteWriter()).finish())),
      prevouts: hex.encode(sha256d(new ByteWriter().bytes(cache.tx.inputs[0]!.txid).u32(0).finish())),
    });
    for (const cache of [
      toSign(0, [{ value: 0n, script: Uint8Array.of(0x6a) }]),
      toSign(5, [{ value: 0n, script: Uint8Array.of(0x6a) }]),
      toSign(0, [{ value: 1n, script: Uint8Array.of(0x6a) }]),
      toSign(0, [{ value: 0n, script: Uint8Array.of(0x6a, 0x00) }]),
      toSign(0, [
        { value: 0n, script: Uint8Array.of(0x6a) },
        { value: 0n, script: Uint8Array.of(0x6a) },
      ]),
    ]) {
      const expected = slow(cache);
      expect(hex.encode(cache.bip143Sequence())).toBe(expected.sequence);
      expect(hex.encode(cache.bip143Outputs())).toBe(expected.outputs);
      expect(hex.encode(cache.bip143Prevouts())).toBe(expected.prevouts);
      // The BIP-341 (single SHA-256) forms come from the same shortcuts.
      expect(hex.encode(sha256(cache.sequencesHash()))).toBe(expected.sequence);
      expect(hex.encode(sha256(cache.outputsHash()))).toBe(expected.outputs);
    }
  });

  it('the BIP-143 digest equals SHA256d of the preimage written out field by field', () => {
    const cache = new SighashCache(
      {
        version: 2,
        lockTime: 7,
        inputs: [{ txid: bytes(32), vout: 3, scriptSig: new Uint8Array(0), sequence: 9, witness: [] }],
        outputs: [{ value: 5n, script: bytes(22) }],
      },
      [{ script: bytes(22), value: 12345n }],
    );
    const scriptCode = bytes(25);
    const { tx } = cache;
    const input = tx.inputs[0]!;
    const preimage = new ByteWriter()
      .u32(tx.version)
      .bytes(sha256d(new ByteWriter().bytes(input.txid).u32(input.vout).finish()))
      .bytes(sha256d(new ByteWriter().u32(input.sequence).finish()))
      .bytes(input.txid)
      .u32(input.vout)
      .varBytes(scriptCode)
      .u64(12345n)
      .u32(input.sequence)
      .bytes(sha256d(new ByteWriter().u64(5n).varBytes(tx.outputs[0]!.script).finish()))
      .u32(tx.lockTime)
      .u32(1)
      .finish();
    expect(hex.encode(segwitV0SighashAll(cache, 0, scriptCode, 12345n))).toBe(hex.encode(nodeSha256(nodeSha256(preimage))));
  });

  it('to_spend txids from the fixed template equal txid(buildToSpend(...)) and the BIP-322 vectors', () => {
    const vectors = bip322Vectors.filter((v) => v.to_spend_txid !== undefined);
    expect(vectors.length).toBeGreaterThan(0);
    for (const v of vectors) {
      const parsed = parseAddress(v.address);
      if (!parsed.ok) throw new Error(parsed.error.reason);
      const hash = bip322MessageHash(new TextEncoder().encode(v.message));
      const fast = toSpendTxid(hash, parsed.address.scriptPubKey);
      expect(hex.encode(fast)).toBe(hex.encode(txid(buildToSpend(hash, parsed.address.scriptPubKey))));
      expect(hex.encode(fast.slice().reverse())).toBe(v.to_spend_txid);
    }
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 300 }), (hash, script) => {
        expect(hex.encode(toSpendTxid(hash, script))).toBe(hex.encode(sha256d(serializeWithoutWitness(buildToSpend(hash, script)))));
      }),
      { numRuns: 200 },
    );
  });
});

describe('decoders', () => {
  const signatures = [
    ...bip322Vectors.map((v) => v.signature),
    ...legacyVectors.map((v) => v.signature),
    ...WALLET_TYPES.flatMap((t) => {
      const w = makeWallet(t);
      return (['simple', 'full', 'pof'] as const).map((variant) => signBip322(w, 'fast paths', variant, { prefix: false }));
    }),
  ].map((s) => s.trim().replace(/^(smp|ful|pof)/, ''));

  it('strict base64 answers exactly like the JavaScript decoder, on signatures and on near misses', () => {
    const same = (text: string): void => {
      const fast = decodeBase64Strict(text);
      const slow = decodeBase64Named(text);
      expect(fast.ok, text).toBe(slow.ok);
      if (fast.ok && slow.ok) expect(hex.encode(fast.value)).toBe(hex.encode(slow.value));
      else if (!fast.ok && !slow.ok) expect(fast.reason).toBe(slow.reason);
    };
    for (const s of signatures) same(s);
    for (const s of [
      '',
      '=',
      '==',
      'A',
      'AA==',
      'AB==',
      'AAA=',
      'AAB=',
      'AAAA',
      'AA=A',
      'A===',
      'AA',
      'AAA',
      'AA-_',
      'AA+/',
      'AA A',
      ' AAA',
      'AAAA\n',
      'ÀAAA',
      'AA==AA==',
    ]) {
      same(s);
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (d) => {
        same(base64.encode(d));
      }),
      { numRuns: 300 },
    );
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n.';
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 40 }), (chars) => {
        same(chars.join(''));
      }),
      { numRuns: 1000 },
    );
    // Canonical text with one character replaced, dropped or added.
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 60 }),
        fc.nat(),
        fc.constantFrom(...alphabet),
        fc.integer({ min: 0, max: 2 }),
        (d, at, c, edit) => {
          const text = base64.encode(d);
          const i = at % text.length;
          same(
            edit === 0
              ? text.slice(0, i) + c + text.slice(i + 1)
              : edit === 1
                ? text.slice(0, i) + text.slice(i + 1)
                : text.slice(0, i) + c + text.slice(i),
          );
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('isWholeTransaction is true exactly when decodeTransaction succeeds', () => {
    const same = (b: Uint8Array): void => {
      expect(isWholeTransaction(b), hex.encode(b)).toBe(decodeTransaction(b).ok);
    };
    const decoded = signatures.map((s) => decodeBase64Named(s)).flatMap((d) => (d.ok ? [d.value] : []));
    expect(decoded.filter((b) => decodeTransaction(b).ok).length).toBeGreaterThan(10);
    for (const b of decoded) {
      same(b);
      // Every truncation and one-byte extension of a transaction or witness stack.
      for (let n = 0; n < b.length; n++) same(b.subarray(0, n));
      same(new Uint8Array([...b, 0]));
    }
    // Random byte changes, especially in counts and lengths.
    fc.assert(
      fc.property(fc.constantFrom(...decoded), fc.nat(), fc.constantFrom(0x00, 0x01, 0xfc, 0xfd, 0xfe, 0xff, 0x29, 0x41), (b, at, v) => {
        const copy = b.slice();
        copy[at % copy.length] = v;
        same(copy);
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), (b) => {
        same(b);
      }),
      { numRuns: 2000 },
    );
    // CompactSize edge cases in the input count.
    for (const count of [
      [0x00],
      [0x00, 0x01],
      [0x00, 0x02],
      [0xfd, 0xfc, 0x00],
      [0xfd, 0xfd, 0x00],
      [0xfe, 0xff, 0xff, 0x00, 0x00],
      [0xfe, 0x00, 0x00, 0x01, 0x00],
      [0xff, 0, 0, 0, 0, 1, 0, 0, 0],
    ]) {
      same(new Uint8Array([2, 0, 0, 0, ...count, ...new Array(60).fill(0)]));
    }
  });
});

describe('direct script paths (P2PKH, P2SH-wrapped segwit) agree with the interpreter', () => {
  /** A full to_sign for `type` and the output it spends. */
  function signed(type: 'p2pkh' | 'p2sh-p2wpkh' | 'p2sh-p2wsh-multi' | 'p2sh-multi') {
    const wallet = makeWallet(type);
    const decoded = decodeBase64Strict(signBip322(wallet, 'direct paths', 'full', { prefix: false }));
    if (!decoded.ok) throw new Error(decoded.reason);
    const tx = decodeTransaction(decoded.value);
    if (!tx.ok) throw new Error(tx.reason);
    return { tx: tx.value, script: wallet.script };
  }
  const cases = (['p2pkh', 'p2sh-p2wpkh', 'p2sh-p2wsh-multi', 'p2sh-multi'] as const).map(signed);
  const otherP2pkh = signed('p2pkh');
  const otherP2sh = signed('p2sh-p2wpkh');
  /** The pushes of a scriptSig made only of direct pushes (opcodes 1–75). */
  const pushes = (scriptSig: Uint8Array): Uint8Array[] => {
    const out: Uint8Array[] = [];
    for (let i = 0; i < scriptSig.length; i += 1 + scriptSig[i]!) out.push(scriptSig.subarray(i, i + 1 + scriptSig[i]!));
    return out;
  };

  function compare(tx: Transaction, script: Uint8Array): void {
    const run = (interpreterOnly: boolean) => verifyInput(new SighashCache(tx, [{ script, value: 0n }]), 0, { interpreterOnly });
    expect(run(false)).toEqual(run(true));
  }
  const withScriptSig = (tx: Transaction, scriptSig: Uint8Array, witness?: Uint8Array[]): Transaction => ({
    ...tx,
    inputs: [{ ...tx.inputs[0]!, scriptSig, witness: witness ?? tx.inputs[0]!.witness }],
  });

  it('on valid signatures and on hand-made variants', () => {
    for (const { tx, script } of cases) {
      expect(verifyInput(new SighashCache(tx, [{ script, value: 0n }]), 0).result).toBe('valid');
      compare(tx, script);
      const sigScript = tx.inputs[0]!.scriptSig;
      // Another key's pushes, another key's signature with this key, another redeem script, a
      // witness where none belongs, no witness, an extra push.
      compare(withScriptSig(tx, otherP2pkh.tx.inputs[0]!.scriptSig), script);
      const [otherSig] = pushes(otherP2pkh.tx.inputs[0]!.scriptSig);
      const ownPushes = pushes(sigScript);
      if (ownPushes.length === 2) compare(withScriptSig(tx, new Uint8Array([...otherSig!, ...ownPushes[1]!])), script);
      compare(withScriptSig(tx, otherP2sh.tx.inputs[0]!.scriptSig), script);
      compare(withScriptSig(tx, sigScript, [Uint8Array.of(1)]), script);
      compare(withScriptSig(tx, sigScript, []), script);
      compare(withScriptSig(tx, new Uint8Array([...sigScript, 0x01, 0x07])), script);
      compare(withScriptSig(tx, new Uint8Array([0x00, ...sigScript])), script);
      // Non-minimal re-encoding of the first push (PUSHDATA1), and an empty first push.
      const first = sigScript[0]!;
      if (first > 0 && first < 0x4c) {
        compare(withScriptSig(tx, new Uint8Array([0x4c, ...sigScript])), script);
        compare(withScriptSig(tx, new Uint8Array([0x00, ...sigScript.subarray(1 + first)])), script);
      }
    }
  });

  it('on random changes to the scriptSig', () => {
    fc.assert(
      fc.property(fc.constantFrom(...cases), fc.nat(), fc.nat(255), fc.boolean(), ({ tx, script }, at, v, insert) => {
        const s = tx.inputs[0]!.scriptSig;
        const i = at % (s.length + 1);
        const changed = insert
          ? new Uint8Array([...s.subarray(0, i), v, ...s.subarray(i)])
          : new Uint8Array([...s.subarray(0, i), v, ...s.subarray(i + 1)]);
        compare(withScriptSig(tx, changed), script);
      }),
      { numRuns: 400 },
    );
  });
});
