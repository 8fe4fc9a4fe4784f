import { describe, expect, it } from 'vitest';
import { chainOf, change, outsider, receive, tx, walletClaim } from '../../../test/support/statement-chain.js';
import { candleOpenOf, PRICE_RULE, type PriceSourceDescription } from '../../prices/price.service.js';
import { computeStatement } from './statement-computation.js';
import { valuationMoments, valuationSummary, valueStatement } from './statement-valuation.js';
import type { StatementData } from './statement.schemas.js';
import type { StatementValueTotals } from './statement-valuation.schemas.js';

const at = (iso: string) => Date.parse(iso) / 1000;

/** Fiat decimal text → minor units (the currency's exponent taken from the text itself). */
const minor = (text: string) => BigInt(text.replace('.', ''));

/** opening + in − out − fees + revaluation = closing, exactly, in minor units. */
function reconciles(v: StatementValueTotals): boolean {
  return (
    minor(v.opening_value) + minor(v.value_in) - minor(v.value_out) - minor(v.value_fees) + minor(v.revaluation) === minor(v.closing_value)
  );
}

const source = (currency: 'EUR' | 'JPY'): PriceSourceDescription => ({
  name: 'Test prices',
  exchange: 'test',
  market: `BTC/${currency}`,
  currency,
  interval: '1h',
  rule: PRICE_RULE,
});

/** A Europe/London statement across the October 2026 clock change, with a receipt, a payment (fee paid) and a transfer to self. */
function londonStatement(): StatementData {
  const history = [
    tx(
      100,
      at('2026-09-10T10:00:00Z'),
      [[outsider(0), 200_000n]],
      [
        [receive(0), 150_000n],
        [outsider(1), 49_000n],
      ],
    ),
    tx(110, at('2026-10-05T10:20:00Z'), [[outsider(0), 80_001n]], [[receive(1), 80_001n]]),
    tx(
      120,
      at('2026-10-25T00:30:00Z'),
      [[receive(0), 150_000n]],
      [
        [outsider(2), 100_000n],
        [change(0), 49_000n],
      ],
    ),
    tx(
      130,
      at('2026-11-03T10:00:00Z'),
      [
        [receive(1), 80_001n],
        [change(0), 49_000n],
      ],
      [[receive(0), 128_001n]],
    ),
  ];
  return computeStatement({
    period: { open: at('2026-09-30T23:00:00Z'), close: at('2026-12-01T00:00:00Z') },
    timezone: 'Europe/London',
    claims: [walletClaim('clm_w', [receive(0), receive(1), change(0)])],
    transactions: history,
    chain: chainOf(history),
  });
}

/** A made-up price per moment (its candle): 60,000.00 + the hour index's last two digits, with a half cent to round. */
function pricesFor(data: StatementData, price: (candleOpen: number) => string) {
  return valuationMoments(data).map((moment) => ({ at: moment, candleOpen: candleOpenOf(moment), price: price(candleOpenOf(moment)) }));
}

describe('valuing a statement in a fiat currency', () => {
  it('asks a price for every span bound and every counted transaction, once each', () => {
    const data = londonStatement();
    const moments = valuationMoments(data);
    expect(moments).toEqual([...new Set(moments)].sort((a, b) => a - b));
    expect(moments).toContain(data.period.open);
    expect(moments).toContain(data.period.close);
    // The London months start at local midnight: 1 November is 00:00 GMT, 1 October 23:00 UTC the day before.
    expect(moments).toContain(at('2026-11-01T00:00:00Z'));
    for (const month of data.months) for (const row of month.transactions) expect(moments).toContain(row.block_time);
  });

  it('values each movement at the price of its time, each balance at the bounds, and every span adds up exactly', () => {
    const data = londonStatement();
    const valued = valueStatement(
      data,
      'EUR',
      source('EUR'),
      pricesFor(data, (open) => `${60_000 + ((open / 3600) % 100)}.005`),
    );
    const valuation = valued.valuation;
    if (valuation?.status !== 'valued') throw new Error('not valued');
    expect(reconciles(valuation.summary), 'period').toBe(true);
    valuation.months.forEach((month) => expect(reconciles(month), month.month).toBe(true));
    expect(valuation.months.map((m) => m.month)).toEqual(data.months.map((m) => m.month));
    // The October payment: 100,000 sats out and a 1,000-sat fee at its hour's price.
    const payment = valued.months[0]!.transactions.find((row) => row.amount_out === '100000')!;
    const price = Number(payment.price);
    // value in cents = sats × price / 10^6 (the prices here end in half a cent only at 10^-3).
    expect(payment.value_out).toBe((Math.round((price * 100_000) / 1e6) / 100).toFixed(2));
    expect(payment.value_fee).toBe((Math.round((price * 1_000) / 1e6) / 100).toFixed(2));
    expect(payment.value_in).toBe('0.00');
    // Totals are sums of the rounded values.
    const outs = valued.months.flatMap((m) => m.transactions).reduce((sum, row) => sum + minor(row.value_out as string), 0n);
    expect(minor(valuation.summary.value_out)).toBe(outs);
    // The opening value is the opening balance at the open's price.
    const opening = valuation.summary.opening_price;
    expect(valuation.summary.opening_value).toBe(
      (Math.round((Number(opening) * Number(data.summary.opening_balance)) / 1e6) / 100).toFixed(2),
    );
    // Every price used, once per candle, in time order, with where it came from.
    expect(valuation.prices.map((p) => p.candle_open)).toEqual(
      [...new Set(valuationMoments(data).map(candleOpenOf))].sort((a, b) => a - b),
    );
    expect(valuation.source).toMatchObject({ market: 'BTC/EUR', interval: '1h' });
    expect(valuationSummary(valuation)).toMatchObject({
      status: 'valued',
      currency: 'EUR',
      closing_value: valuation.summary.closing_value,
    });
  });

  it('rounds an exact half away from zero, and values yen in whole yen', () => {
    const data = londonStatement();
    // 80,001 sats at 1,250,000.5 yen per BTC is 1,000.0165… yen → 1,000.
    const yen = valueStatement(
      data,
      'JPY',
      source('JPY'),
      pricesFor(data, () => '1250000.5'),
    );
    if (yen.valuation?.status !== 'valued') throw new Error('not valued');
    const receipt = yen.months[0]!.transactions.find((row) => row.amount_in === '80001')!;
    expect(receipt.value_in).toBe('1000');
    expect(yen.valuation.summary.closing_value).toMatch(/^\d+$/);
    expect(reconciles(yen.valuation.summary)).toBe(true);
    // A 1,000-sat fee at 500 EUR/BTC is exactly half a cent: 0.01 EUR, away from zero.
    const euros = valueStatement(
      data,
      'EUR',
      source('EUR'),
      pricesFor(data, () => '500'),
    );
    const payment = euros.months[0]!.transactions.find((row) => row.amount_out === '100000')!;
    expect(payment.value_fee).toBe('0.01');
    expect(payment.value_out).toBe('0.50');
  });
});
