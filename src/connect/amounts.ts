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

/**
 * An exchange's decimal text in our canonical form: "0.0000051000" → "0.0000051", "-00.50" → "-0.5",
 * "1e-8" → "0.00000001". Exact (no float); throws on anything that is not a decimal number.
 */
export function canonicalDecimal(text: string): string {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new RangeError(`not a decimal amount: ${text}`);
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const shift = Number(exponent);
  if (!Number.isSafeInteger(shift) || Math.abs(shift) > 100) throw new RangeError(`exponent out of range: ${text}`);
  // Move the point: digits with `fraction.length - shift` of them after the point.
  const digits = `${whole}${fraction}`;
  const decimals = fraction.length - shift;
  const value =
    decimals >= 0 ? formatUnits(BigInt(digits || '0'), decimals) : (BigInt(digits || '0') * 10n ** BigInt(-decimals)).toString();
  return sign === '-' && value !== '0' ? `-${value}` : value;
}

/** The exact sum of two amounts in canonical form (see canonicalDecimal): "0.1" + "0.2" → "0.3". */
export function addDecimals(a: string, b: string): string {
  const places = Math.max(a.split('.')[1]?.length ?? 0, b.split('.')[1]?.length ?? 0);
  return formatUnits(parseUnits(a, places) + parseUnits(b, places), places);
}
