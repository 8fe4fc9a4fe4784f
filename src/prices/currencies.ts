/**
 * The currencies a statement can be valued in: ISO 4217 code → exponent, the number of digits of
 * its minor unit (ISO 4217's "minor unit" column: cents for USD, none for JPY). Amounts in these
 * currencies are whole numbers of minor units (bigint), never floats.
 */
export const FIAT_CURRENCIES = { USD: 2, EUR: 2, GBP: 2, CHF: 2, CAD: 2, JPY: 0 } as const;

export type FiatCurrency = keyof typeof FIAT_CURRENCIES;

/** The supported ISO 4217 codes, in the order documents and errors list them. */
export const SUPPORTED_CURRENCIES = Object.keys(FIAT_CURRENCIES) as readonly FiatCurrency[];

/** Whether `code` is a supported ISO 4217 code (upper case, as the standard writes it). */
export function isFiatCurrency(code: string): code is FiatCurrency {
  return Object.hasOwn(FIAT_CURRENCIES, code);
}
