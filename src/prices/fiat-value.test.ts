import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIAT_CURRENCIES, isFiatCurrency } from './currencies.js';
import { fiatMinorUnits, formatFiat } from './fiat-value.js';

describe('fiat values of bitcoin amounts', () => {
  it('knows the six currencies statements are valued in, with their ISO 4217 minor units (JPY has none)', () => {
    expect(FIAT_CURRENCIES).toEqual({ USD: 2, EUR: 2, GBP: 2, CHF: 2, CAD: 2, JPY: 0 });
    expect(isFiatCurrency('JPY')).toBe(true);
    expect(isFiatCurrency('jpy')).toBe(false);
    expect(isFiatCurrency('BTC')).toBe(false);
    expect(isFiatCurrency('toString')).toBe(false);
  });

  it.each([
    // sats, price (currency per BTC), currency, minor units: worked out by hand
    [100_000_000n, '67123.45', 'EUR', 6_712_345n],
    [12_345_678n, '67123.45', 'EUR', 828_684n], // 8286.8449994… EUR → 8286.84 (not half: down)
    [12_345_678n, '9876543', 'JPY', 1_219_326n], // 1219326.1963… JPY → 1219326 yen
    [1n, '67123.45', 'USD', 0n], // 0.0006712345 USD
    [2_100_000_000_000_000n, '100000', 'CHF', 210_000_000_000_000n], // 21 million BTC: 2.1 trillion CHF
    [0n, '50000', 'GBP', 0n],
  ] as const)('%s sats at %s %s are %s minor units', (sats, price, currency, minor) => {
    expect(fiatMinorUnits(sats, price, currency)).toBe(minor);
    // A negative amount (sent) is the same value, negative.
    expect(fiatMinorUnits(-sats, price, currency)).toBe(-minor);
  });

  it('rounds half away from zero, at the currency’s minor unit', () => {
    // 0.5 BTC at 0.01 USD = 0.005 USD: exactly half a cent.
    expect(fiatMinorUnits(50_000_000n, '0.01', 'USD')).toBe(1n);
    expect(fiatMinorUnits(-50_000_000n, '0.01', 'USD')).toBe(-1n);
    // Just under half a cent rounds to zero.
    expect(fiatMinorUnits(49_999_999n, '0.01', 'USD')).toBe(0n);
    // 0.5 BTC at 3 JPY = 1.5 yen → 2 yen; at 1 JPY = 0.5 yen → 1 yen.
    expect(fiatMinorUnits(50_000_000n, '3', 'JPY')).toBe(2n);
    expect(fiatMinorUnits(50_000_000n, '1', 'JPY')).toBe(1n);
    expect(fiatMinorUnits(-50_000_000n, '1', 'JPY')).toBe(-1n);
  });

  it('is the exact product rounded to the nearest minor unit, for any amount and price', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.integer({ min: 0, max: 8 }),
        fc.constantFrom(...(Object.keys(FIAT_CURRENCIES) as (keyof typeof FIAT_CURRENCIES)[])),
        (sats, priceUnits, priceDecimals, currency) => {
          const price =
            priceDecimals === 0
              ? priceUnits.toString()
              : `${priceUnits / 10n ** BigInt(priceDecimals)}.${(priceUnits % 10n ** BigInt(priceDecimals)).toString().padStart(priceDecimals, '0')}`;
          const minor = fiatMinorUnits(sats, price, currency);
          // Exact value in minor units = sats × priceUnits × 10^exp / (10^8 × 10^priceDecimals) = n / d.
          const n = sats * priceUnits * 10n ** BigInt(FIAT_CURRENCIES[currency]);
          const d = 10n ** BigInt(8 + priceDecimals);
          // |minor − n/d| ≤ 1/2, and on an exact half the larger magnitude is taken.
          const distance2 = (minor * d - n) * 2n; // 2·d·(minor − n/d)
          const abs = (x: bigint) => (x < 0n ? -x : x);
          if (abs(distance2) > d) return false;
          if (abs(distance2) === d) return abs(minor * d) > abs(n);
          return true;
        },
      ),
    );
  });

  it('refuses a price that is not plain decimal text', () => {
    for (const price of ['-1', '1e5', '', '1.', '.5', ' 1']) expect(() => fiatMinorUnits(1n, price, 'EUR')).toThrow(RangeError);
  });

  it.each([
    [6_712_345n, 'EUR', '67123.45'],
    [5n, 'USD', '0.05'],
    [-5n, 'USD', '-0.05'],
    [-120n, 'GBP', '-1.20'],
    [0n, 'CAD', '0.00'],
    [1_219_326n, 'JPY', '1219326'],
    [-3n, 'JPY', '-3'],
  ] as const)('writes %s minor units of %s as %s', (minor, currency, text) => {
    expect(formatFiat(minor, currency)).toBe(text);
  });
});
