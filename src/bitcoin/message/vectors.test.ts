import { describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { parseAddress } from '../address.js';
import { bip322MessageHash, buildToSpend } from './bip322.js';
import { txid, txidToHex, type Transaction } from './transaction.js';
import { verifyMessage } from './verify-message.js';
import { bip322Vectors as bip322, legacyVectors as legacy } from './fixtures/vectors.js';

describe('public test vectors (copied from the shared corpus; see fixtures/)', () => {
  it('has every case of both files', () => {
    expect(bip322).toHaveLength(264);
    expect(legacy).toHaveLength(264);
  });

  it.each([...bip322, ...legacy].map((v) => [v.id, v] as const))('%s verifies as expected', (_id, v) => {
    const r = verifyMessage({ address: v.address, message: v.message, signature: v.signature });
    expect(r.valid, r.reason ?? '').toBe(v.expected);
    if (v.expected) {
      expect(r.result).toBe('valid');
      expect(r.reason).toBeNull();
      const format = v.bip322_variant === 'proof_of_funds' ? 'bip322-pof' : v.format_hint;
      expect(r.format).toBe(format);
    } else {
      expect(r.result).not.toBe('valid');
      expect(r.reason).toMatch(/\w{4}/);
    }
  });
});

describe('BIP-322 hash vectors', () => {
  const withHashes = bip322.filter((v) => v.message_hash !== undefined);

  it('are present in the corpus', () => {
    expect(withHashes.length).toBeGreaterThan(0);
  });

  it.each(withHashes.map((v) => [v.id, v] as const))('%s: message hash, to_spend and to_sign txids match', (_id, v) => {
    const message = new TextEncoder().encode(v.message);
    expect(hex.encode(bip322MessageHash(message))).toBe(v.message_hash);
    const parsed = parseAddress(v.address);
    if (!parsed.ok) throw new Error(parsed.error.reason);
    const toSpend = buildToSpend(bip322MessageHash(message), parsed.address.scriptPubKey);
    const toSpendId = txid(toSpend);
    expect(txidToHex(toSpendId)).toBe(v.to_spend_txid);
    const toSign: Transaction = {
      version: 0,
      inputs: [{ txid: toSpendId, vout: 0, scriptSig: new Uint8Array(0), sequence: 0, witness: [] }],
      outputs: [{ value: 0n, script: Uint8Array.of(0x6a) }],
      lockTime: 0,
    };
    expect(txidToHex(txid(toSign))).toBe(v.to_sign_txid);
  });
});
