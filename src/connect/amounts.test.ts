import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDecimals, canonicalDecimal, formatUnits, parseUnits } from './amounts.js';

describe('decimal amounts', () => {
  it.each([
    [0n, 8, '0'],
    [1n, 8, '0.00000001'],
    [150_000_000n, 8, '1.5'],
    [-2_100_000_000_000_000n, 8, '-21000000'],
    [12_345n, 2, '123.45'],
  ])('formats %s with %i decimals as %s', (value, decimals, text) => {
    expect(formatUnits(value, decimals)).toBe(text);
    expect(parseUnits(text, decimals)).toBe(value);
  });

  it('round-trips every integer exactly', () => {
    fc.assert(
      fc.property(
        fc.bigInt(),
        fc.integer({ min: 0, max: 18 }),
        (value, decimals) => parseUnits(formatUnits(value, decimals), decimals) === value,
      ),
    );
  });

  it.each(['1e5', '0.1.2', '', '1.123456789', ' 1'])('refuses %j', (text) => {
    expect(() => parseUnits(text, 8)).toThrow(RangeError);
  });

  it.each([
    ['0.1', '0.2', '0.3'],
    ['1000.5', '0.00000001', '1000.50000001'],
    ['-0.5', '0.5', '0'],
    ['12345678901234.56789012', '1', '12345678901235.56789012'],
  ])('adds %s and %s exactly: %s', (a, b, sum) => {
    expect(addDecimals(a, b)).toBe(sum);
  });

  it('adds amounts of any two scales as the integers they stand for', () => {
    fc.assert(
      fc.property(fc.bigInt(), fc.integer({ min: 0, max: 18 }), fc.bigInt(), fc.integer({ min: 0, max: 18 }), (a, da, b, db) => {
        const places = Math.max(da, db);
        const sum = a * 10n ** BigInt(places - da) + b * 10n ** BigInt(places - db);
        return addDecimals(formatUnits(a, da), formatUnits(b, db)) === canonicalDecimal(formatUnits(sum, places));
      }),
    );
  });
});

describe('exchange decimals in canonical form', () => {
  it.each([
    ['0.0000051000', '0.0000051'],
    ['25435.21', '25435.21'],
    ['-00.50', '-0.5'],
    ['-0.000', '0'],
    ['1e-8', '0.00000001'],
    ['1.5E3', '1500'],
    ['+7', '7'],
    ['.5', '0.5'],
    ['100', '100'],
  ])('reads %j as %j', (text, canonical) => {
    expect(canonicalDecimal(text)).toBe(canonical);
  });

  it('keeps every digit of an amount past float precision', () => {
    expect(canonicalDecimal('12345678901234567890.123456789012345678')).toBe('12345678901234567890.123456789012345678');
  });

  it.each(['', '.', 'abc', '1.2.3', '0x10', '1e', 'NaN', '1e999'])('refuses %j', (text) => {
    expect(() => canonicalDecimal(text)).toThrow(RangeError);
  });
});
