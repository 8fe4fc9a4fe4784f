import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatUnits, parseUnits } from './amounts.js';

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
    fc.assert(fc.property(fc.bigInt(), fc.integer({ min: 0, max: 18 }), (value, decimals) => parseUnits(formatUnits(value, decimals), decimals) === value));
  });

  it.each(['1e5', '0.1.2', '', '1.123456789', ' 1'])('refuses %j', (text) => {
    expect(() => parseUnits(text, 8)).toThrow(RangeError);
  });
});
