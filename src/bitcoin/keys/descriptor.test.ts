import { hex } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { descriptorChecksum } from './descriptor-checksum.js';
import { deriveOutput } from './descriptor-derivation.js';
import { expandMultipath, parseDescriptor, type Descriptor } from './descriptor.js';
import {
  BIP380_CHECKSUM,
  BIP380_KEYS,
  BIP381,
  BIP382,
  BIP383,
  BIP385,
  BIP386,
  BIP389,
  type ScriptVector,
} from './fixtures/descriptor-vectors.js';
import type { KeyErrorCode } from './parse-result.js';

function parsed(text: string, opts: Parameters<typeof parseDescriptor>[1] = { allowPrivateKeys: true }): Descriptor {
  const result = parseDescriptor(text, opts);
  if (!result.ok) throw new Error(`${text.slice(0, 60)}: ${result.error.code} ${result.error.reason}`);
  return result.value;
}

function errorCode(text: string, opts: Parameters<typeof parseDescriptor>[1] = { allowPrivateKeys: true }): KeyErrorCode | undefined {
  const result = parseDescriptor(text, opts);
  return result.ok ? undefined : result.error.code;
}

function scriptsOf(d: Descriptor, count: number): string[] {
  return Array.from({ length: count }, (_, i) => hex.encode(deriveOutput(d, i).scriptPubKey));
}

function checkScripts(vectors: readonly ScriptVector[]): void {
  for (const v of vectors) {
    expect(scriptsOf(parsed(v.descriptor), v.scripts.length), v.descriptor).toEqual(v.scripts);
  }
}

describe('BIP-380 checksums', () => {
  it('accepts the valid checksum vector and computes the same checksum', () => {
    const d = parsed(BIP380_CHECKSUM.valid);
    expect(d.text).toBe(BIP380_CHECKSUM.valid);
    expect(descriptorChecksum(BIP380_CHECKSUM.noChecksum)).toBe(BIP380_CHECKSUM.valid.split('#')[1]);
  });

  it('accepts a descriptor without checksum unless one is required', () => {
    expect(parseDescriptor(BIP380_CHECKSUM.noChecksum).ok).toBe(true);
    expect(errorCode(BIP380_CHECKSUM.noChecksum, { requireChecksum: true })).toBe('missing_checksum');
  });

  it.each(BIP380_CHECKSUM.invalid)('rejects $what', ({ descriptor, what }) => {
    expect(errorCode(descriptor)).toBe(what.startsWith('invalid characters') ? 'invalid_character' : 'bad_checksum');
  });
});

describe('BIP-380 key expressions', () => {
  it.each(BIP380_KEYS.valid)('parses the valid key expression %s', (key) => {
    expect(parseDescriptor(`pkh(${key})`, { allowPrivateKeys: true }).ok).toBe(true);
  });

  it.each(BIP380_KEYS.hardenedAfterXpub)('rejects hardened steps after an xpub, which cannot be derived: %s', (key) => {
    expect(errorCode(`pkh(${key})`)).toBe('hardened_derivation_from_public_key');
  });

  const expected: Record<string, KeyErrorCode> = {
    'children indicator in key origin': 'invalid_key_origin',
    'trailing slash in key origin': 'invalid_key_origin',
    'too short fingerprint': 'invalid_key_origin',
    'too long fingerprint': 'invalid_key_origin',
    'invalid hardened indicators': 'invalid_derivation_path',
    'private key with derivation': 'invalid_derivation_path',
    'private key with derivation children': 'invalid_derivation_path',
    'derivation index out of range': 'invalid_derivation_path',
    'invalid derivation index': 'invalid_derivation_path',
    'multiple key origins': 'invalid_key_origin',
    'missing key origin start': 'invalid_key_origin',
    'non hex fingerprint': 'invalid_key_origin',
    'key origin with no public key': 'invalid_key',
  };
  it.each(BIP380_KEYS.invalid)('rejects $what', ({ key, what }) => {
    expect(errorCode(`pkh(${key})`)).toBe(expected[what]);
  });
});

describe('BIP-381 pk, pkh, sh', () => {
  it('derives the scripts of every valid vector', () => checkScripts(BIP381.valid));

  it.each(BIP381.invalid)('rejects: $what', ({ descriptor, what }) => {
    expect(errorCode(descriptor)).toBe(what === 'sh() is top level only' ? 'invalid_nesting' : 'syntax_error');
  });
});

describe('BIP-382 wpkh, wsh', () => {
  it('derives the scripts of every valid vector', () => checkScripts(BIP382.valid));

  it.each(BIP382.invalid)('rejects: $what', ({ descriptor, what }) => {
    const code = what.startsWith('uncompressed')
      ? 'uncompressed_key_not_allowed'
      : what.includes('nested')
        ? 'invalid_nesting'
        : 'syntax_error';
    expect(errorCode(descriptor)).toBe(code);
  });
});

describe('BIP-383 multi, sortedmulti', () => {
  it('derives the scripts of every valid vector', () => checkScripts(BIP383.valid));

  it.each(BIP383.invalid)('rejects: $what', ({ descriptor, what }) => {
    expect(errorCode(descriptor)).toBe(what.startsWith('more than') ? 'too_many_keys' : 'invalid_threshold');
  });

  it('gives wsh(sortedmulti) the same address whatever the key order', () => {
    const [a, b] = BIP383.valid[4]?.descriptor.slice('sortedmulti(2,'.length, -1).split(',') as [string, string];
    const one = parsed(`wsh(sortedmulti(2,${a},${b}))`);
    const two = parsed(`wsh(sortedmulti(2,${b},${a}))`);
    expect(deriveOutput(one, 7).address).toBe(deriveOutput(two, 7).address);
    expect(deriveOutput(parsed(`wsh(multi(2,${a},${b}))`), 7).address).not.toBe(deriveOutput(parsed(`wsh(multi(2,${b},${a}))`), 7).address);
  });
});

describe('BIP-385 raw, addr', () => {
  it('derives the scripts of every valid vector', () => checkScripts(BIP385.valid));

  it('gives raw() an address only when the script has one', () => {
    expect(deriveOutput(parsed(BIP385.valid[0]?.descriptor as string), 0).address).toBeUndefined();
    expect(deriveOutput(parsed(BIP385.valid[2]?.descriptor as string), 0).address).toMatch(/^3/);
    expect(deriveOutput(parsed(BIP385.valid[3]?.descriptor as string), 0).address).toBe('3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j');
  });

  it.each(BIP385.invalid)('rejects: $what', ({ descriptor, what }) => {
    const code = what === 'non-hex script' ? 'syntax_error' : what === 'invalid address' ? 'invalid_address' : 'invalid_nesting';
    expect(errorCode(descriptor)).toBe(code);
  });
});

describe('BIP-386 tr', () => {
  it('derives the scripts of every valid key-path vector', () => checkScripts(BIP386.valid));

  it.each(BIP386.withTree)('reports script trees as unsupported: $descriptor', ({ descriptor }) => {
    expect(errorCode(descriptor)).toBe('unsupported_function');
  });

  it.each(BIP386.invalid)('rejects: $what', ({ descriptor, what }) => {
    const code = what.startsWith('uncompressed')
      ? 'uncompressed_key_not_allowed'
      : what.includes('nested in tr')
        ? 'unsupported_function'
        : 'invalid_nesting';
    expect(errorCode(descriptor)).toBe(code);
  });
});

describe('BIP-389 multipath', () => {
  it.each(BIP389.valid)('expands $descriptor', ({ descriptor, expansions }) => {
    const d = parsed(descriptor);
    expect(d.multipathCount).toBe(expansions.length);
    const expanded = expandMultipath(d);
    expect(expanded.map((e) => e.body)).toEqual(expansions);
    expanded.forEach((e) => expect(e.text).toBe(`${e.body}#${descriptorChecksum(e.body)}`));
  });

  it('derives each alternative the same as its expansion', () => {
    const d = parsed(BIP389.valid[2]?.descriptor as string);
    const [first, second] = expandMultipath(d) as [Descriptor, Descriptor];
    expect(hex.encode(deriveOutput(d, 5, 1).scriptPubKey)).toBe(hex.encode(deriveOutput(second, 5).scriptPubKey));
    expect(hex.encode(deriveOutput(d, 5, 0).scriptPubKey)).toBe(hex.encode(deriveOutput(first, 5).scriptPubKey));
  });

  it.each(BIP389.invalid)('rejects: $what', ({ descriptor, what }) => {
    const code = what.includes('origin')
      ? 'invalid_key_origin'
      : what.includes('taproot tree')
        ? 'unsupported_function'
        : 'invalid_multipath';
    expect(errorCode(descriptor)).toBe(code);
  });
});

describe('errors that say what is wrong', () => {
  const xpub = 'xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL';
  const tpub = 'tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp';

  it('refuses private keys unless explicitly allowed', () => {
    expect(errorCode('wpkh(L4rK1yDtCWekvXuE6oXD9jCYfFNV2cWRpVuPLBcCU2z8TrisoyY1)', {})).toBe('private_key_not_accepted');
    expect(errorCode(BIP382.valid[2]?.descriptor as string, {})).toBe('private_key_not_accepted');
  });

  it('names unsupported and unknown functions', () => {
    expect(errorCode(`combo(${xpub})`)).toBe('unsupported_function');
    expect(errorCode(`wsh(and_v(v:pk(${xpub}),older(10)))`)).toBe('unsupported_function');
    expect(errorCode(`tr(${xpub},multi_a(1,${xpub}))`)).toBe('unsupported_function');
    expect(errorCode(`frobnicate(${xpub})`)).toBe('unknown_function');
  });

  it('refuses keys of the wrong network for the requested network or mode', () => {
    expect(errorCode(`wpkh(${xpub}/0/*)`, { network: 'regtest' })).toBe('wrong_network');
    expect(errorCode(`wpkh(${xpub}/0/*)`, { mode: 'test' })).toBe('wrong_network');
    expect(errorCode(`wpkh(${tpub}/0/*)`, { mode: 'live' })).toBe('wrong_network');
    expect(errorCode(`wsh(multi(1,${xpub}/0/*,${tpub}/0/*))`)).toBe('mixed_networks');
    expect(errorCode('addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j)', { network: 'testnet' })).toBe('wrong_network');
  });

  it('encodes addresses for the requested test network', () => {
    expect(deriveOutput(parsed(`wpkh(${tpub}/0/*)`, { network: 'regtest' }), 0).address).toMatch(/^bcrt1q/);
    expect(deriveOutput(parsed(`wpkh(${tpub}/0/*)`, { network: 'signet' }), 0).address).toMatch(/^tb1q/);
    expect(parsed(`wpkh(${tpub}/0/*)`).network).toBe('testnet');
    expect(parsed('wpkh(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd)').network).toBe('mainnet');
  });

  it('refuses a SLIP-132 key whose prefix contradicts the script', () => {
    const zpub = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
    expect(parseDescriptor(`wpkh(${zpub}/0/*)`).ok).toBe(true);
    expect(errorCode(`pkh(${zpub}/0/*)`)).toBe('key_type_mismatch');
  });

  it('points at the offending position', () => {
    const result = parseDescriptor(`wpkh(${xpub}/0/1h/*)`);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('hardened_derivation_from_public_key');
      expect(result.error.position).toBe(5 + xpub.length);
    }
  });

  it('rejects the wildcard anywhere but last, and hardened wildcards after an xpub', () => {
    expect(errorCode(`wpkh(${xpub}/*/0)`)).toBe('invalid_derivation_path');
    expect(errorCode(`wpkh(${xpub}/*h)`)).toBe('hardened_derivation_from_public_key');
  });

  it('rejects text that is not a descriptor at all', () => {
    expect(errorCode('')).toBe('empty_input');
    expect(errorCode(42 as unknown as string)).toBe('empty_input');
    expect(errorCode('hello world')).toBe('syntax_error');
    expect(errorCode(`wpkh(${xpub}`)).toBe('syntax_error');
    expect(errorCode(`wpkh(${xpub}))`)).toBe('syntax_error');
    expect(errorCode('x'.repeat(20_000))).toBe('input_too_long');
  });
});
