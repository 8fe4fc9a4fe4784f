import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Signer, Verifier } from 'bip322-js';
import { NETWORK, TEST_NETWORK, WIF, p2pkh } from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bip322Vectors, legacyVectors } from './fixtures/vectors.js';
import type { NetworkName } from '../network.js';
import { makeWallet, signBip322, signLegacy, type TestWallet } from './fixtures/signers.js';
import { verifyMessage } from './verify-message.js';

/**
 * Cross-check against an independent implementation, bip322-js 3.0.0, in both directions.
 * Compared only where the two policies agree (vectors README): bip322-js also accepts legacy
 * signatures whose header names another address type and legacy signatures for P2TR, which we
 * refuse; it cannot verify P2WSH or full/proof-of-funds signatures, nor read v2.0.0 prefixes.
 */

function theirVerdict(address: string, message: string, signature: string): boolean | 'throws' {
  try {
    return Verifier.verifySignature(address, message, signature);
  } catch {
    return 'throws';
  }
}

function wifOf(wallet: TestWallet): string {
  return WIF(wallet.network === 'mainnet' ? NETWORK : TEST_NETWORK).encode(wallet.privateKeys[0]!);
}

const NETWORKS: NetworkName[] = ['mainnet', 'testnet', 'regtest'];
const SINGLE_KEY = ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2tr'] as const;
const MESSAGES = ['', 'Hello World', 'UTF-8: öäü 测试 😄', 'line\r\nbreak\u0000nul'];

describe('bip322-js signs, we verify', () => {
  for (const network of NETWORKS) {
    for (const type of SINGLE_KEY) {
      it(`${network} ${type}: every message verifies and a changed message does not`, () => {
        const wallet = makeWallet(type, network);
        for (const message of MESSAGES) {
          const signature = Signer.sign(wifOf(wallet), wallet.address, message) as unknown as string;
          const ours = verifyMessage({ address: wallet.address, message, signature });
          expect(ours.valid, ours.reason ?? '').toBe(true);
          expect(ours.format).toBe(type === 'p2pkh' ? 'legacy' : 'bip322-simple');
          expect(verifyMessage({ address: wallet.address, message: message + '.', signature }).valid).toBe(false);
        }
      });
    }
  }
});

describe('we sign (with @scure/btc-signer and @noble/curves), bip322-js verifies', () => {
  for (const network of NETWORKS) {
    for (const type of ['p2sh-p2wpkh', 'p2wpkh', 'p2tr'] as const) {
      it(`${network} ${type} simple signatures are accepted by bip322-js, altered ones refused by both`, () => {
        const wallet = makeWallet(type, network);
        for (const message of MESSAGES) {
          const signature = signBip322(wallet, message, 'simple', { prefix: false });
          expect(theirVerdict(wallet.address, message, signature)).toBe(true);
          expect(verifyMessage({ address: wallet.address, message, signature }).valid).toBe(true);
          expect(theirVerdict(wallet.address, message + '.', signature)).not.toBe(true);
          expect(verifyMessage({ address: wallet.address, message: message + '.', signature }).valid).toBe(false);
        }
      });
    }
  }

  it('legacy signatures with the header matching the address type are accepted by both', () => {
    const priv = secp256k1.utils.randomSecretKey();
    const uncompressed = p2pkh(secp256k1.getPublicKey(priv, false)).address!;
    const wallets = {
      p2pkh: makeWallet('p2pkh'),
      'p2sh-p2wpkh': makeWallet('p2sh-p2wpkh'),
      p2wpkh: makeWallet('p2wpkh'),
    };
    const cases: [string, string][] = [
      [uncompressed, signLegacy(priv, 'legacy', 'uncompressed')],
      [wallets.p2pkh.address, signLegacy(wallets.p2pkh.privateKeys[0]!, 'legacy', 'compressed')],
      [wallets['p2sh-p2wpkh'].address, signLegacy(wallets['p2sh-p2wpkh'].privateKeys[0]!, 'legacy', 'p2sh-p2wpkh')],
      [wallets.p2wpkh.address, signLegacy(wallets.p2wpkh.privateKeys[0]!, 'legacy', 'p2wpkh')],
    ];
    for (const [address, signature] of cases) {
      expect(theirVerdict(address, 'legacy', signature)).toBe(true);
      expect(verifyMessage({ address, message: 'legacy', signature }).valid).toBe(true);
      expect(theirVerdict(address, 'legacy!', signature)).not.toBe(true);
      expect(verifyMessage({ address, message: 'legacy!', signature }).valid).toBe(false);
    }
  });

  it('agrees with bip322-js on random messages (property)', () => {
    const wallet = makeWallet('p2wpkh');
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.string({ minLength: 1, maxLength: 5 }), (message, suffix) => {
        const signature = signBip322(wallet, message, 'simple', { prefix: false });
        const ours = verifyMessage({ address: wallet.address, message, signature }).valid;
        const theirs = theirVerdict(wallet.address, message, signature);
        const oursAltered = verifyMessage({ address: wallet.address, message: message + suffix, signature }).valid;
        const theirsAltered = theirVerdict(wallet.address, message + suffix, signature);
        return ours === true && theirs === true && !oursAltered && theirsAltered !== true;
      }),
      { numRuns: 25 },
    );
  });
});

describe('on the shared vectors, wherever bip322-js gives an answer and the policies agree', () => {
  const comparable = [...bip322Vectors, ...legacyVectors].filter((v) => !v.policy_dependent);

  it('we give the same answer as bip322-js', () => {
    let compared = 0;
    const disagreements: string[] = [];
    for (const v of comparable) {
      const theirs = theirVerdict(v.address, v.message, v.signature);
      if (theirs === 'throws') continue;
      compared++;
      const ours = verifyMessage({ address: v.address, message: v.message, signature: v.signature }).valid;
      if (ours !== theirs) disagreements.push(`${v.id}: ours ${ours}, bip322-js ${theirs}`);
    }
    expect(disagreements).toEqual([]);
    expect(compared).toBeGreaterThan(250);
  });
});
