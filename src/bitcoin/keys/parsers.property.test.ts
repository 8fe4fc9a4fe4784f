import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkDescriptorChecksum, descriptorChecksum } from './descriptor-checksum.js';
import { parseDescriptor } from './descriptor.js';
import { convertExtendedPublicKey, decodeExtendedKey } from './extended-key.js';
import { BIP382, BIP383, BIP389 } from './fixtures/descriptor-vectors.js';
import { SLIP132_VECTORS } from './fixtures/bip32-slip132-vectors.js';
import { parseWalletDescriptor } from './wallet-descriptor.js';

const CHARSET = '0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const XPUB = 'xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL';

const seeds = [
  ...BIP382.valid.map((v) => v.descriptor),
  ...BIP383.valid.map((v) => v.descriptor),
  ...BIP389.valid.map((v) => v.descriptor),
  `wsh(sortedmulti(2,[deadbeef/48h/0h/0h/2h]${XPUB}/<0;1>/*,${XPUB}/<0;1>/*))`,
  `sh(wpkh(${XPUB}/<0;1>/*))`,
  SLIP132_VECTORS[2].pub,
];

/** Strings built from descriptor fragments, so mutations reach deep into the grammar. */
const descriptorish = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: fc.constantFrom(...CHARSET.split('')), maxLength: 200 }),
  fc
    .array(
      fc.constantFrom(
        'wpkh(',
        'sh(',
        'wsh(',
        'tr(',
        'multi(',
        'sortedmulti(',
        'pkh(',
        'pk(',
        ')',
        ',',
        '[deadbeef/0h]',
        XPUB,
        '/<0;1>',
        '/*',
        '/0',
        "/1'",
        '2',
        '#',
        '{',
        '}',
        '<',
        '>',
        ';',
        'addr(',
        'raw(',
        'deadbeef',
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.join('')),
  fc.tuple(fc.constantFrom(...seeds), fc.nat(), fc.string({ maxLength: 4 })).map(([s, at, insert]) => {
    const i = at % (s.length + 1);
    return s.slice(0, i) + insert + s.slice(i + (at % 3));
  }),
);

describe('parsers never throw on user input', () => {
  it('parseDescriptor returns a result for any string', () => {
    fc.assert(
      fc.property(descriptorish, fc.boolean(), (input, allowPrivateKeys) => {
        const result = parseDescriptor(input, { allowPrivateKeys });
        expect(typeof result.ok).toBe('boolean');
      }),
      { numRuns: 400 },
    );
  });

  it('parseWalletDescriptor returns a result for any value', () => {
    fc.assert(
      fc.property(fc.oneof(descriptorish, fc.anything()), (input) => {
        const result = parseWalletDescriptor(input, { mode: 'live' });
        expect(typeof result.ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });

  it('decodeExtendedKey and convertExtendedPublicKey return a result for any string', () => {
    const mutatedKey = fc
      .tuple(
        fc.constantFrom(...SLIP132_VECTORS.map((v) => v.pub)),
        fc.nat(),
        fc.constantFrom(...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl'.split('')),
      )
      .map(([k, at, ch]) => k.slice(0, at % k.length) + ch + k.slice((at % k.length) + 1));
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 130 }), mutatedKey), (input) => {
        expect(typeof decodeExtendedKey(input, { allowPrivate: true }).ok).toBe('boolean');
        expect(typeof convertExtendedPublicKey(input, 'xpub').ok).toBe('boolean');
      }),
      { numRuns: 400 },
    );
  });
});

describe('checksums catch edits', () => {
  it('rejects any single-character substitution in a checksummed descriptor', () => {
    const checksummed = seeds.slice(0, -1).map((s) => `${s}#${descriptorChecksum(s)}`);
    const position = fc.tuple(fc.constantFrom(...checksummed), fc.nat(), fc.constantFrom(...CHARSET.replace('#', '').split('')));
    fc.assert(
      fc.property(position, ([text, at, ch]) => {
        const i = at % text.length;
        fc.pre(text.charAt(i) !== ch && text.charAt(i) !== '#');
        const edited = text.slice(0, i) + ch + text.slice(i + 1);
        expect(checkDescriptorChecksum(edited).ok).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('accepts any descriptor-charset text once its own checksum is appended', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...CHARSET.replace('#', '').split('')), maxLength: 120 }), (body) => {
        const check = checkDescriptorChecksum(`${body}#${descriptorChecksum(body)}`);
        expect(check.ok).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
