import { HDKey } from '@scure/bip32';
import { utils as btcUtils } from '@scure/btc-signer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { publicChild, taprootOutputKey } from './child-public-key.js';
import { BIP86_VECTOR } from './fixtures/bip32-slip132-vectors.js';

describe('fast public derivation on libsecp256k1', () => {
  it('derives the same child keys and chain codes as @scure/bip32', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 64 }), fc.integer({ min: 0, max: 0x7fffffff }), (seed, index) => {
        const parent = HDKey.fromMasterSeed(seed).deriveChild(7);
        const expected = HDKey.fromExtendedKey(parent.publicExtendedKey).deriveChild(index);
        const child = publicChild({ publicKey: parent.publicKey as Uint8Array, chainCode: parent.chainCode as Uint8Array }, index);
        expect(child?.publicKey).toEqual(expected.publicKey);
        expect(child?.chainCode).toEqual(expected.chainCode);
      }),
      { numRuns: 100 },
    );
  });

  it('tweaks taproot internal keys as @scure/btc-signer does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 64 }), (seed) => {
        const internal = (HDKey.fromMasterSeed(seed).publicKey as Uint8Array).subarray(1);
        expect(taprootOutputKey(internal)).toEqual(btcUtils.taprootTweakPubkey(internal, new Uint8Array(0))[0]);
      }),
      { numRuns: 100 },
    );
  });

  it('gives the BIP-86 output key of the vector internal key', () => {
    const internal = Uint8Array.from(Buffer.from(BIP86_VECTOR.receive0.internalKey, 'hex'));
    expect(Buffer.from(taprootOutputKey(internal)).toString('hex')).toBe(BIP86_VECTOR.receive0.scriptPubKey.slice(4));
  });
});
