import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../../platform/http/schemas.js';

/** An amount of money in the valuation currency: decimal text with every digit of its minor unit. */
export function Fiat(description: string) {
  return Type.String({
    description: `${description} In the valuation currency, as decimal text with every digit of its minor unit (\`1234.50\` EUR, \`123450\` JPY); negative with a leading \`-\`.`,
  });
}

/** A price: the valuation currency per bitcoin, decimal text as the source gave it. */
export const Price = (description: string) =>
  Type.String({
    description: `${description} The valuation currency per BTC, decimal text as the price source gave it.`,
    examples: ['61234.5'],
  });

export const StatementPriceSource = Type.Object(
  {
    name: Type.String({ description: 'The source by name: `Bitfinex`, `Kraken`, `Sandbox price series` (test mode).' }),
    exchange: Type.String({ description: 'Its ccxt exchange id (`bitfinex`, `kraken`), or `sandbox`.' }),
    market: Type.String({ description: 'The market whose prices are used, as ccxt writes it: `BTC/EUR`.' }),
    currency: Type.String({ description: 'The valuation currency (ISO 4217).' }),
    interval: Type.String({ description: 'The candle interval: `1h`.' }),
    rule: Type.String({ description: 'Which price of which candle a moment gets, in words.' }),
  },
  { additionalProperties: false, description: 'Where the prices come from, so anyone can look each one up again.' },
);

/** How a span (a month, the period) is worth in the valuation currency; opening + in − out − fees + revaluation = closing, exactly. */
export const StatementValueTotalsFields = {
  opening_price: Price('The price at the span’s start (the moment just before it).'),
  opening_value: Fiat('The opening balance at that price.'),
  value_in: Fiat('What was received, each receipt at the price of its time.'),
  value_out: Fiat('What was sent, each payment at the price of its time.'),
  value_fees: Fiat('The fees paid, each at the price of its time.'),
  revaluation: Fiat('What the price’s change made of the balance held: closing value − opening value − in + out + fees.'),
  closing_price: Price('The price at the span’s end.'),
  closing_value: Fiat('The closing balance at that price.'),
};
export const StatementValueTotals = Type.Object(StatementValueTotalsFields, { additionalProperties: false });
export type StatementValueTotals = Static<typeof StatementValueTotals>;

/** How a valuation's values are rounded (docs/verify.md, "Reading a statement"). */
export const VALUATION_ROUNDING =
  'Each value is the exact product of satoshis and price, rounded to the currency’s minor unit (a cent; a whole yen), an exact half away from zero. ' +
  'Totals are sums of the rounded values; the revaluation is what makes each span add up exactly.';

/** The valuation of a statement in a fiat currency, as asked for with `valuation_currency`. */
export const StatementValuation = Type.Union(
  [
    Type.Object(
      {
        status: Type.Literal('valued'),
        currency: Type.String({ description: 'ISO 4217.' }),
        source: StatementPriceSource,
        rounding: Type.String({ description: 'How values are rounded, in words.' }),
        prices: Type.Array(
          Type.Object(
            { candle_open: Timestamp('When the candle opened (Unix seconds, UTC); it closes an hour later.'), price: Price('Its close.') },
            { additionalProperties: false },
          ),
          { description: 'Every price the statement uses, by candle, in time order.' },
        ),
        summary: StatementValueTotals,
        months: Type.Array(Type.Object({ month: Type.String(), ...StatementValueTotalsFields }, { additionalProperties: false }), {
          description: 'Each month section of `months`, in the same order.',
        }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        status: Type.Literal('unavailable'),
        currency: Type.String({ description: 'ISO 4217.' }),
        reason: Type.String({
          description:
            'Why there is no valuation, in words (the price source was unreachable, has no price that far back, …); generate the statement again to try again.',
        }),
        source: Type.Optional(StatementPriceSource),
      },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      'The statement’s balances and movements in the valuation currency (from `version` 2 on, when `valuation_currency` was given).',
  },
);
export type StatementValuation = Static<typeof StatementValuation>;

/** A statement's valuation as the API object shows it: the period's figures, or why there are none. */
export const StatementValuationSummary = Type.Union(
  [
    Type.Object(
      { status: Type.Literal('valued'), currency: Type.String(), source: StatementPriceSource, ...StatementValueTotalsFields },
      { additionalProperties: false },
    ),
    Type.Object({ status: Type.Literal('unavailable'), currency: Type.String(), reason: Type.String() }, { additionalProperties: false }),
  ],
  {
    description:
      'The whole period in the valuation currency, or why it could not be valued. Null until `completed`, and when no `valuation_currency` was given.',
  },
);
export type StatementValuationSummary = Static<typeof StatementValuationSummary>;
