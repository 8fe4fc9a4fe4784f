import { FIAT_CURRENCIES, type FiatCurrency } from './currencies.js';

/**
 * Valuation arithmetic: bitcoin amounts (satoshis) at a price (currency units per bitcoin, decimal
 * text as the price source gave it) → whole minor units of the currency. Exact: bigint only.
 *
 * Rounding rule: the exact product, rounded to the nearest minor unit of the currency (ISO 4217:
 * a cent for USD, EUR, GBP, CHF, CAD; a yen for JPY), an exact half rounded away from zero. Away
 * from zero keeps a movement's value symmetric (−x sats is worth exactly −value(x)); it is the
 * commercial rounding of the euro conversion rules (Council Regulation (EC) No 1103/97, art. 5).
 */

const SATS_PER_BTC_DIGITS = 8;

/** The value of `sats` at `price` in minor units of `currency`, rounded as stated above. */
export function fiatMinorUnits(sats: bigint, price: string, currency: FiatCurrency): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(price);
  if (!match) throw new RangeError(`not a price: ${price}`);
  const [, whole, fraction = ''] = match;
  // value = sats × (digits / 10^fraction) / 10^8 currency units = n / d minor units.
  const n = sats * BigInt(`${whole}${fraction}`) * 10n ** BigInt(FIAT_CURRENCIES[currency]);
  const d = 10n ** BigInt(SATS_PER_BTC_DIGITS + fraction.length);
  const magnitude = n < 0n ? -n : n;
  const rounded = magnitude / d + ((magnitude % d) * 2n >= d ? 1n : 0n);
  return n < 0n ? -rounded : rounded;
}

/** Minor units as decimal text with every digit of the minor unit: 6712345n EUR → "67123.45", 3n JPY → "3". */
export function formatFiat(minor: bigint, currency: FiatCurrency): string {
  const exponent = FIAT_CURRENCIES[currency];
  const digits = (minor < 0n ? -minor : minor).toString().padStart(exponent + 1, '0');
  const sign = minor < 0n ? '-' : '';
  if (exponent === 0) return `${sign}${digits}`;
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}
