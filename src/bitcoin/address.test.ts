import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createBase58check, hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { p2pkh, p2sh, p2tr, p2wpkh, p2wsh, p2ms } from '@scure/btc-signer';
import { addressFromScript, parseAddress } from './address.js';
import { NETWORK_NAMES, NETWORK_PARAMS } from './network.js';

// BIP-350 "valid segwit addresses" (bitcoin/bips bip-0350.mediawiki), with the type we assign.
const BIP350_VALID: [string, string, string | null][] = [
  ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', '0014751e76e8199196d454941c45d1b3a323f1433bd6', 'p2wpkh'],
  [
    'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
    '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262',
    'p2wsh',
  ],
  [
    'tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy',
    '0020000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433',
    'p2wsh',
  ],
  [
    'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c',
    '5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433',
    'p2tr',
  ],
  [
    'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
    '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
    'p2tr',
  ],
  // Valid encodings of witness versions/lengths that no supported type uses.
  ['bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y', '', null],
  ['BC1SW50QGDZ25J', '', null],
  ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', '', null],
];

// BIP-350 "invalid segwit addresses" with the error code we give each.
const BIP350_INVALID: [string, string][] = [
  ['tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut', 'unknown_prefix'],
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', 'bad_checksum'],
  ['tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf', 'bad_checksum'],
  ['BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL', 'bad_checksum'],
  ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'bad_checksum'],
  ['tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47', 'bad_checksum'],
  ['bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4', 'invalid_encoding'],
  ['BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R', 'invalid_encoding'],
  ['bc1pw5dgrnzv', 'invalid_program'],
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav', 'invalid_program'],
  ['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'invalid_program'],
  ['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq', 'invalid_encoding'],
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf', 'invalid_encoding'],
  ['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j', 'invalid_encoding'],
  ['bc1gmk9yu', 'invalid_encoding'],
];

describe('parseAddress', () => {
  it.each(BIP350_VALID.filter(([, , t]) => t !== null))('accepts the BIP-350 address %s with its scriptPubKey', (addr, script, type) => {
    const r = parseAddress(addr);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(hex.encode(r.address.scriptPubKey)).toBe(script);
    expect(r.address.type).toBe(type);
    expect(r.address.address).toBe(addr.toLowerCase());
  });

  it.each(BIP350_VALID.filter(([, , t]) => t === null))('reports the valid but unknown segwit output %s as unsupported_type', (addr) => {
    const r = parseAddress(addr);
    expect(r).toMatchObject({ ok: false, error: { code: 'unsupported_type' } });
  });

  it.each(BIP350_INVALID)('rejects the BIP-350 invalid address %s as %s', (addr, code) => {
    const r = parseAddress(addr);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe(code);
    expect(r.error.reason.length).toBeGreaterThan(10);
  });

  it('names the expected checksum variant when bech32 and bech32m are swapped', () => {
    const r = parseAddress('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd');
    expect(!r.ok && r.error.reason).toMatch(/bech32 checksum.*must use bech32m/);
  });

  it('parses base58 P2PKH and P2SH addresses on mainnet and the test networks', () => {
    expect(parseAddress('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toMatchObject({
      ok: true,
      address: { type: 'p2pkh', networks: ['mainnet'] },
    });
    expect(parseAddress('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy')).toMatchObject({
      ok: true,
      address: { type: 'p2sh', networks: ['mainnet'] },
    });
    expect(parseAddress('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn')).toMatchObject({
      ok: true,
      address: { type: 'p2pkh', networks: ['testnet', 'signet', 'regtest'] },
    });
    expect(parseAddress('2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc')).toMatchObject({
      ok: true,
      address: { type: 'p2sh', networks: ['testnet', 'signet', 'regtest'] },
    });
  });

  it('maps tb1 to testnet and signet, and bcrt1 to regtest only', () => {
    expect(parseAddress('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx')).toMatchObject({
      ok: true,
      address: { networks: ['testnet', 'signet'] },
    });
    expect(parseAddress('bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk')).toMatchObject({ ok: true, address: { networks: ['regtest'] } });
  });

  it('reports a mistyped base58 address as a bad checksum', () => {
    expect(parseAddress('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3')).toMatchObject({ ok: false, error: { code: 'bad_checksum' } });
  });

  it('refuses an address of another network when networks are restricted, naming both', () => {
    const r = parseAddress('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', { networks: ['testnet', 'signet', 'regtest'] });
    expect(r).toMatchObject({ ok: false, error: { code: 'wrong_network' } });
    expect(!r.ok && r.error.reason).toMatch(/mainnet address.*testnet, signet or regtest/);
    const t = parseAddress('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', { networks: ['mainnet'] });
    expect(t).toMatchObject({ ok: false, error: { code: 'wrong_network' } });
  });

  it('narrows the networks to those allowed', () => {
    const r = parseAddress('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', { networks: ['regtest'] });
    expect(r).toMatchObject({ ok: true, address: { networks: ['regtest'] } });
  });

  it('refuses other coins, whitespace, empty and oversized input with a reason', () => {
    expect(parseAddress('ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9')).toMatchObject({ ok: false, error: { code: 'unknown_prefix' } });
    expect(parseAddress('LVg2kJoFNg45Nbpy53h7Fe1wKyeXVRhMH9')).toMatchObject({ ok: false, error: { code: 'unknown_prefix' } });
    expect(parseAddress(' 1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toMatchObject({ ok: false, error: { code: 'invalid_encoding' } });
    expect(parseAddress('')).toMatchObject({ ok: false, error: { code: 'invalid_encoding' } });
    expect(parseAddress('1'.repeat(10_000))).toMatchObject({ ok: false, error: { code: 'invalid_encoding' } });
    expect(parseAddress(undefined as unknown as string)).toMatchObject({ ok: false, error: { code: 'invalid_encoding' } });
  });

  it('rejects a base58 payload of the wrong length', () => {
    // Version 0x00 followed by 19 bytes, with a correct checksum.
    const bad = addressLikeBase58(0x00, 19);
    expect(parseAddress(bad)).toMatchObject({ ok: false, error: { code: 'invalid_length' } });
  });

  it('never throws on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (s) => {
        const r = parseAddress(s);
        expect(typeof r.ok).toBe('boolean');
        if (!r.ok) expect(r.error.reason).toBeTruthy();
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on strings shaped like addresses', () => {
    const bech = fc.tuple(
      fc.constantFrom('bc1', 'tb1', 'bcrt1', 'BC1'),
      fc.string({ unit: fc.constantFrom(...'qpzry9x8gf2tvdw0s3jn54khce6mua7lQPZ1bio'), maxLength: 80 }),
    );
    fc.assert(
      fc.property(bech, ([p, s]) => typeof parseAddress(p + s).ok === 'boolean'),
      { numRuns: 2000 },
    );
  });
});

describe('addressFromScript', () => {
  const priv = secp256k1.utils.randomSecretKey();
  const pub = secp256k1.getPublicKey(priv, true);
  const xonly = schnorr.getPublicKey(priv);

  it.each(NETWORK_NAMES)('round-trips every supported script type on %s', (network) => {
    const net = NETWORK_PARAMS[network];
    const payments = [
      p2pkh(pub, net),
      p2sh(p2wpkh(pub, net), net),
      p2wpkh(pub, net),
      p2wsh(p2ms(1, [pub]), net),
      p2tr(xonly, undefined, net),
    ];
    for (const pay of payments) {
      const addr = addressFromScript(pay.script, network);
      expect(addr).toBe(pay.address);
      const parsed = parseAddress(addr!);
      expect(parsed.ok && parsed.address.networks.includes(network)).toBe(true);
      expect(parsed.ok && hex.encode(parsed.address.scriptPubKey)).toBe(hex.encode(pay.script));
    }
  });

  it('returns undefined for scripts that have no supported address', () => {
    expect(addressFromScript(Uint8Array.from([0x6a, 0x01, 0x00]), 'mainnet')).toBeUndefined();
    expect(addressFromScript(hex.decode('6002751e'), 'mainnet')).toBeUndefined();
    expect(addressFromScript(new Uint8Array(0), 'mainnet')).toBeUndefined();
  });
});

function addressLikeBase58(version: number, hashLength: number): string {
  // Built with scure so the checksum is computed independently of the code under test.
  const payload = new Uint8Array(1 + hashLength);
  payload[0] = version;
  return base58checkEncode(payload);
}

const base58checkEncode = (b: Uint8Array): string => createBase58check(sha256).encode(b);
