/**
 * Exact decimal amounts as strings. Money never passes through a float: integers of the smallest
 * unit (satoshis, cents) are bigint, and the API shows them as decimal strings.
 */

/** 123456789n, 8 → "1.23456789"; trailing zeros after the point are dropped ("1.5", "2"). */
export function formatUnits(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** "1.5", 8 → 150000000n. Throws on malformed text or more fraction digits than `decimals`. */
export function parseUnits(text: string, decimals: number): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new RangeError(`not a decimal amount: ${text}`);
  const [, sign, whole, fraction = ''] = match;
  if (fraction.length > decimals) throw new RangeError(`more than ${decimals} decimal places: ${text}`);
  const units = BigInt(`${whole}${fraction.padEnd(decimals, '0')}`);
  return sign === '-' ? -units : units;
}
