import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { base64 } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { p2pkh, p2sh, p2wpkh, p2tr } from '@scure/btc-signer';
import { NETWORK_NAMES, NETWORK_PARAMS } from '../network.js';
import { makeWallet, signBip322, signLegacy, SIMPLE_TYPES, WALLET_TYPES, type TestWallet, type WalletType } from './fixtures/signers.js';
import { verifyMessage } from './verify-message.js';

const MESSAGE = 'Ownership proof for account 42 — 2024-06-30 ✓';
const VARIANTS = ['simple', 'full', 'pof'] as const;
type Variant = (typeof VARIANTS)[number];

interface Case {
  name: string;
  wallet: TestWallet;
  variant: Variant;
  signature: string;
}

// One wallet per type and network, signed once per variant; built at collection time so each
// case is a separate test.
const cases: Case[] = [];
for (const network of NETWORK_NAMES) {
  for (const type of WALLET_TYPES) {
    const wallet = makeWallet(type, network);
    for (const variant of VARIANTS) {
      if (variant === 'simple' && !SIMPLE_TYPES.includes(type)) continue;
      const funds =
        variant === 'pof'
          ? [
              { wallet: makeWallet('p2wpkh', network), value: 150_000n },
              { wallet: makeWallet('p2pkh', network), value: 20_000n },
              { wallet: makeWallet('p2tr', network), value: 7_000n },
              { wallet: makeWallet('p2wsh-multi', network), value: 1_000n },
            ]
          : undefined;
      const signature = signBip322(wallet, MESSAGE, variant, { funds, ...(variant === 'simple' ? {} : { version: 2 }) });
      cases.push({ name: `${network} ${type} ${variant}`, wallet, variant, signature });
    }
  }
}

const expectedFormat = (v: Variant): string => (v === 'simple' ? 'bip322-simple' : v === 'full' ? 'bip322-full' : 'bip322-pof');
const expectedType = (t: WalletType): string => (t.startsWith('p2sh') ? 'p2sh' : t.startsWith('p2wsh') ? 'p2wsh' : t);

describe('BIP-322 signatures made with @scure/btc-signer', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s verifies', (_name, c) => {
    const r = verifyMessage({ address: c.wallet.address, message: MESSAGE, signature: c.signature });
    expect(r, r.reason ?? '').toMatchObject({
      valid: true,
      result: 'valid',
      format: expectedFormat(c.variant),
      address_type: expectedType(c.wallet.type),
      // The network is the first the encoding matches: tb1 and base58 test addresses say testnet.
      network: c.wallet.network === 'mainnet' || c.wallet.address.startsWith('bcrt1') ? c.wallet.network : 'testnet',
    });
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s fails for a one-character change to the message', (_name, c) => {
    const r = verifyMessage({ address: c.wallet.address, message: MESSAGE.replace('42', '43'), signature: c.signature });
    expect(r.valid).toBe(false);
    expect(r.reason).toBeTruthy();
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s fails for another address of the same type', (_name, c) => {
    const other = makeWallet(c.wallet.type, c.wallet.network);
    const r = verifyMessage({ address: other.address, message: MESSAGE, signature: c.signature });
    expect(r.valid).toBe(false);
  });

  it('accepts the unprefixed forms wallets still emit (simple, and full that decodes as to_sign)', () => {
    for (const type of ['p2wpkh', 'p2tr', 'p2wsh-multi', 'p2sh-p2wpkh'] as const) {
      const w = makeWallet(type);
      const simple = signBip322(w, MESSAGE, 'simple', { prefix: false });
      expect(verifyMessage({ address: w.address, message: MESSAGE, signature: simple })).toMatchObject({
        valid: true,
        format: 'bip322-simple',
      });
      const full = signBip322(w, MESSAGE, 'full', { prefix: false });
      expect(verifyMessage({ address: w.address, message: MESSAGE, signature: full })).toMatchObject({
        valid: true,
        format: 'bip322-full',
      });
    }
  });

  it('reports time locks of full signatures as "valid at time T and age S"', () => {
    const w = makeWallet('p2wpkh');
    const sig = signBip322(w, MESSAGE, 'full', { version: 2, lockTime: 800_000, sequence: 144 });
    expect(verifyMessage({ address: w.address, message: MESSAGE, signature: sig })).toMatchObject({
      valid: true,
      time_lock: { lock_time: 800_000, sequence: 144 },
    });
  });

  it('lists the outputs a proof of funds proves, for the caller to look up on chain', () => {
    const w = makeWallet('p2tr', 'regtest');
    const fund = makeWallet('p2wpkh', 'regtest');
    const sig = signBip322(w, MESSAGE, 'pof', { funds: [{ wallet: fund, value: 123_456n }] });
    const r = verifyMessage({ address: w.address, message: MESSAGE, signature: sig });
    expect(r.valid).toBe(true);
    expect(r.proven_outputs).toHaveLength(1);
    expect(r.proven_outputs![0]).toMatchObject({ vout: 0, value_sat: 123_456, address: fund.address });
  });

  it('refuses a full to_sign with extra inputs as inconclusive, since their outputs are unknown', () => {
    const w = makeWallet('p2wpkh');
    const sig = signBip322(w, MESSAGE, 'full', { funds: [{ wallet: makeWallet('p2wpkh'), value: 1n }] });
    const r = verifyMessage({ address: w.address, message: MESSAGE, signature: sig });
    expect(r).toMatchObject({ valid: false, result: 'inconclusive' });
  });

  it('refuses a BIP-322 signature whose variant prefix does not match its content', () => {
    const w = makeWallet('p2wpkh');
    const simple = signBip322(w, MESSAGE, 'simple', { prefix: false });
    expect(verifyMessage({ address: w.address, message: MESSAGE, signature: 'ful' + simple }).valid).toBe(false);
    expect(verifyMessage({ address: w.address, message: MESSAGE, signature: 'pof' + simple }).valid).toBe(false);
    const full = signBip322(w, MESSAGE, 'full', { prefix: false });
    expect(verifyMessage({ address: w.address, message: MESSAGE, signature: 'smp' + full }).valid).toBe(false);
  });

  it('refuses an address of a network the caller excludes', () => {
    const w = makeWallet('p2wpkh', 'testnet');
    const sig = signBip322(w, MESSAGE, 'simple');
    const r = verifyMessage({ address: w.address, message: MESSAGE, signature: sig }, { networks: ['mainnet'] });
    expect(r.valid).toBe(false);
    expect(r.reason).toMatch(/testnet or signet address.*mainnet/);
  });
});

/** Flips one bit of the decoded signature bytes and re-encodes (keeping the prefix). */
function flipBit(signature: string, bitIndex: number): string {
  const prefix = /^(smp|ful|pof)/.test(signature) ? signature.slice(0, 3) : '';
  const bytes = base64.decode(signature.slice(prefix.length));
  const i = bitIndex % (bytes.length * 8);
  bytes[i >> 3]! ^= 1 << (i & 7);
  return prefix + base64.encode(bytes);
}

describe('tampered signatures', () => {
  it.each(cases.filter((c) => c.wallet.network === 'mainnet').map((c) => [c.name, c] as const))(
    '%s: no single-bit change of the signature verifies',
    (_name, c) => {
      fc.assert(
        fc.property(fc.nat(), (bit) => {
          const r = verifyMessage({ address: c.wallet.address, message: MESSAGE, signature: flipBit(c.signature, bit) });
          return !r.valid && r.result !== 'valid';
        }),
        { numRuns: 60 },
      );
    },
  );
});

describe('legacy signmessage signatures made with @noble/curves', () => {
  const priv = secp256k1.utils.randomSecretKey();
  const compressed = secp256k1.getPublicKey(priv, true);
  const uncompressed = secp256k1.getPublicKey(priv, false);
  const addresses = {
    p2pkhUncompressed: p2pkh(uncompressed).address!,
    p2pkh: p2pkh(compressed).address!,
    p2wpkh: p2wpkh(compressed).address!,
    p2shP2wpkh: p2sh(p2wpkh(compressed)).address!,
    p2tr: p2tr(compressed.subarray(1)).address!,
  };
  // [address, header family, expected] — the header policy of the vectors README.
  const matrix: [keyof typeof addresses, Parameters<typeof signLegacy>[2], boolean][] = [
    ['p2pkhUncompressed', 'uncompressed', true],
    ['p2pkhUncompressed', 'compressed', false],
    ['p2pkh', 'compressed', true],
    ['p2pkh', 'uncompressed', false],
    ['p2pkh', 'p2sh-p2wpkh', false],
    ['p2pkh', 'p2wpkh', false],
    ['p2wpkh', 'compressed', true],
    ['p2wpkh', 'p2wpkh', true],
    ['p2wpkh', 'p2sh-p2wpkh', false],
    ['p2wpkh', 'uncompressed', false],
    ['p2shP2wpkh', 'compressed', true],
    ['p2shP2wpkh', 'p2sh-p2wpkh', true],
    ['p2shP2wpkh', 'p2wpkh', false],
    ['p2shP2wpkh', 'uncompressed', false],
    ['p2tr', 'compressed', false],
    ['p2tr', 'p2wpkh', false],
  ];

  it.each(matrix)('%s with a %s header: valid is %s', (addressKind, header, expected) => {
    const signature = signLegacy(priv, MESSAGE, header);
    const r = verifyMessage({ address: addresses[addressKind], message: MESSAGE, signature });
    expect(r.valid, r.reason ?? '').toBe(expected);
    expect(r.format).toBe('legacy');
    if (!expected) expect(r.reason).toMatch(/header|P2TR|does not match/);
  });

  it('names a compressed/uncompressed header mix-up', () => {
    const signature = signLegacy(priv, MESSAGE, 'uncompressed');
    const header = base64.decode(signature)[0];
    const r = verifyMessage({ address: addresses.p2pkh, message: MESSAGE, signature });
    expect(r.reason).toBe(`header byte ${header} says the key is uncompressed, but the address is for the compressed key`);
  });

  it('accepts a high-S legacy signature, as Bitcoin Core and Electrum do', () => {
    const signature = signLegacy(priv, MESSAGE, 'compressed', { highS: true });
    expect(verifyMessage({ address: addresses.p2pkh, message: MESSAGE, signature }).valid).toBe(true);
  });

  it('works on every network the address names', () => {
    for (const network of NETWORK_NAMES) {
      const address = p2wpkh(compressed, NETWORK_PARAMS[network]).address!;
      const r = verifyMessage({ address, message: MESSAGE, signature: signLegacy(priv, MESSAGE, 'p2wpkh') });
      expect(r.valid).toBe(true);
    }
  });

  it('fails for any single-bit change of the signature or message', () => {
    const signature = signLegacy(priv, MESSAGE, 'compressed');
    fc.assert(
      fc.property(
        fc.nat(),
        (bit) => !verifyMessage({ address: addresses.p2pkh, message: MESSAGE, signature: flipBit(signature, bit) }).valid,
      ),
      { numRuns: 200 },
    );
    expect(verifyMessage({ address: addresses.p2pkh, message: MESSAGE + ' ', signature }).valid).toBe(false);
  });

  it('compares messages as exact UTF-8 bytes, without Unicode normalisation or trimming', () => {
    const nfc = 'Café déjà vu';
    const signature = signLegacy(priv, nfc, 'compressed');
    expect(verifyMessage({ address: addresses.p2pkh, message: nfc, signature }).valid).toBe(true);
    expect(nfc.normalize('NFD')).not.toBe(nfc);
    expect(verifyMessage({ address: addresses.p2pkh, message: nfc.normalize('NFD'), signature }).valid).toBe(false);
    expect(verifyMessage({ address: addresses.p2pkh, message: ` ${nfc}`, signature }).valid).toBe(false);
    expect(verifyMessage({ address: addresses.p2pkh, message: new TextEncoder().encode(nfc), signature }).valid).toBe(true);
  });
});
