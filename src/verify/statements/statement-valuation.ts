/**
 * A statement valued in a fiat currency: its balances at the bounds of each span (a month, the
 * period) and each movement at its time, from the prices of a named source. Pure: the job looks
 * the prices up (src/prices) and hands them in (docs/verify.md, "Reading a statement").
 *
 * Every value is a whole number of the currency's minor units (bigint), rounded once from the
 * exact product (`fiatMinorUnits`); totals are sums of rounded values, and each span's revaluation
 * is the remainder that makes it add up: opening + in − out − fees + revaluation = closing.
 */
import { fiatMinorUnits, formatFiat } from '../../prices/fiat-value.js';
import type { FiatCurrency } from '../../prices/currencies.js';
import type { PriceSourceDescription, PricedMoment } from '../../prices/price.service.js';
import { type StatementData, type StatementTotals } from './statement.schemas.js';
import {
  VALUATION_ROUNDING,
  type StatementValuation,
  type StatementValuationSummary,
  type StatementValueTotals,
} from './statement-valuation.schemas.js';

/**
 * The moments a valuation needs a price for: each span's start and end (the period's open and
 * close among them) and each counted transaction's block time. Sorted, each once.
 */
export function valuationMoments(data: StatementData): number[] {
  const moments = new Set<number>();
  for (const month of data.months) {
    moments.add(month.start);
    moments.add(month.end);
    for (const tx of month.transactions) moments.add(tx.block_time);
  }
  return [...moments].sort((a, b) => a - b);
}

/** A span's figures in the currency, from its BTC totals, the prices at its bounds and its movements' values. */
function spanValues(
  totals: StatementTotals,
  prices: { opening: string; closing: string },
  moved: { in: bigint; out: bigint; fees: bigint },
  currency: FiatCurrency,
): StatementValueTotals {
  const opening = fiatMinorUnits(BigInt(totals.opening_balance), prices.opening, currency);
  const closing = fiatMinorUnits(BigInt(totals.closing_balance), prices.closing, currency);
  const revaluation = closing - opening - moved.in + moved.out + moved.fees;
  const text = (minor: bigint) => formatFiat(minor, currency);
  return {
    opening_price: prices.opening,
    opening_value: text(opening),
    value_in: text(moved.in),
    value_out: text(moved.out),
    value_fees: text(moved.fees),
    revaluation: text(revaluation),
    closing_price: prices.closing,
    closing_value: text(closing),
  };
}

/**
 * Values the statement: each transaction gets its price and values, and `data.valuation` each
 * month's and the period's figures and every price used (by candle), with the source that gave
 * them. `prices` holds a price for every moment of {@link valuationMoments}. In place, and returns
 * `data`: the job values a statement it has just computed, and a copy of 10,000 transactions cost
 * the statement bench 17 MiB of its peak memory (docs/performance.md).
 */
export function valueStatement(
  data: StatementData,
  currency: FiatCurrency,
  source: PriceSourceDescription,
  prices: readonly PricedMoment[],
): StatementData {
  const at = new Map(prices.map((p) => [p.at, p]));
  const priceAt = (moment: number): PricedMoment => {
    const priced = at.get(moment);
    if (!priced) throw new Error(`no price for ${moment}: the look-up must answer every valuation moment`);
    return priced;
  };
  const whole = { in: 0n, out: 0n, fees: 0n };
  const valuedMonths: Extract<StatementValuation, { status: 'valued' }>['months'] = [];
  for (const month of data.months) {
    const moved = { in: 0n, out: 0n, fees: 0n };
    for (const tx of month.transactions) {
      const { price } = priceAt(tx.block_time);
      const valueIn = fiatMinorUnits(BigInt(tx.amount_in), price, currency);
      const valueOut = fiatMinorUnits(BigInt(tx.amount_out), price, currency);
      const valueFee = fiatMinorUnits(BigInt(tx.fee), price, currency);
      moved.in += valueIn;
      moved.out += valueOut;
      moved.fees += valueFee;
      tx.price = price;
      tx.value_in = formatFiat(valueIn, currency);
      tx.value_out = formatFiat(valueOut, currency);
      tx.value_fee = formatFiat(valueFee, currency);
    }
    whole.in += moved.in;
    whole.out += moved.out;
    whole.fees += moved.fees;
    valuedMonths.push({
      month: month.month,
      ...spanValues(month, { opening: priceAt(month.start).price, closing: priceAt(month.end).price }, moved, currency),
    });
  }
  const used = new Map<number, string>();
  for (const moment of valuationMoments(data)) used.set(priceAt(moment).candleOpen, priceAt(moment).price);
  const valuation: StatementValuation = {
    status: 'valued',
    currency,
    source: { ...source },
    rounding: VALUATION_ROUNDING,
    prices: [...used].sort(([a], [b]) => a - b).map(([candleOpen, price]) => ({ candle_open: candleOpen, price })),
    summary: spanValues(
      data.summary,
      { opening: priceAt(data.period.open).price, closing: priceAt(data.period.close).price },
      whole,
      currency,
    ),
    months: valuedMonths,
  };
  data.valuation = valuation;
  return data;
}

/** The statement without a valuation, saying why (the price source could not answer): never a silent wrong number. */
export function valuationUnavailable(
  data: StatementData,
  currency: string,
  reason: string,
  source?: PriceSourceDescription,
): StatementData {
  return { ...data, valuation: { status: 'unavailable', currency, reason, ...(source ? { source: { ...source } } : {}) } };
}

/** What the statement object shows of a valuation: the period's figures, or why there are none. */
export function valuationSummary(valuation: StatementValuation): StatementValuationSummary {
  if (valuation.status === 'unavailable') return { status: 'unavailable', currency: valuation.currency, reason: valuation.reason };
  return { status: 'valued', currency: valuation.currency, source: valuation.source, ...valuation.summary };
}
