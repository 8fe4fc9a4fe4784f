import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../test/support/database.js';
import { startTestApp, type TestApp } from '../../test/support/test-app.js';
import { fiatMinorUnits, formatFiat } from './fiat-value.js';
import { candleOpenOf, describePriceSource, lookUpPrices, PRICE_RULE, type PriceLookup } from './price.service.js';
import { sandboxClose } from './sandbox-prices.js';

/** Unix seconds of an ISO 8601 time with its offset. */
const at = (iso: string) => DateTime.fromISO(iso, { setZone: true }).toSeconds();

function prices(lookup: PriceLookup) {
  if (!lookup.ok) throw new Error(`no prices: ${lookup.reason}`);
  return lookup.prices;
}

describe('the sandbox price series', () => {
  it('gives the documented figures (docs/sandbox.md, worked by hand there)', () => {
    // 2025-01-01 00:00 UTC is hour 482,136: 3,000,000 + 2,001,368 + 214,285 + 50,000 = 5,265,653 cents.
    const open = at('2025-01-01T00:00:00Z');
    expect(sandboxClose('USD', open)).toBe('52656.53');
    expect(sandboxClose('EUR', open)).toBe('48444'); // ⌊5,265,653 · 92 / 100⌋ = 4,844,400 cents
    expect(sandboxClose('GBP', open)).toBe('41598.65'); // ⌊5,265,653 · 79 / 100⌋
    expect(sandboxClose('CHF', open)).toBe('46337.74'); // ⌊5,265,653 · 88 / 100⌋
    expect(sandboxClose('CAD', open)).toBe('72139.44'); // ⌊5,265,653 · 137 / 100⌋
    expect(sandboxClose('JPY', open)).toBe('7898479'); // ⌊5,265,653 · 150 / 100⌋ yen, no decimals
  });

  it('stays within realistic bounds and moves smoothly from hour to hour', () => {
    let previous = Number(sandboxClose('USD', at('2020-01-01T00:00:00Z')));
    for (let open = at('2020-01-01T01:00:00Z'); open < at('2024-01-01T00:00:00Z'); open += 3600) {
      const usd = Number(sandboxClose('USD', open));
      expect(usd).toBeGreaterThanOrEqual(30_000);
      expect(usd).toBeLessThanOrEqual(73_500);
      expect(Math.abs(usd - previous)).toBeLessThan(100);
      previous = usd;
    }
  });
});

describe.each(engines())('prices in test mode on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(() => t.close());

  const lookUp = (currency: string, instants: number[]) => lookUpPrices(t.ctx, { mode: 'test', currency, instants });

  it('prices each moment at the close of the hourly candle containing it; a moment on the hour takes the candle that closes then', async () => {
    const moments = [
      '2025-01-01T00:30:00Z',
      '2025-01-01T01:00:00Z',
      '2025-01-01T00:00:01Z',
      '2024-12-31T23:59:59Z',
      '2025-01-01T00:00:00Z',
    ].map(at);
    const lookup = await lookUp('EUR', moments);
    expect(lookup).toMatchObject({
      ok: true,
      source: { name: 'Sandbox price series', exchange: 'sandbox', market: 'BTC/EUR', currency: 'EUR', interval: '1h', rule: PRICE_RULE },
    });
    expect(prices(lookup).map((p) => [p.at, p.candleOpen])).toEqual([
      [moments[0], at('2025-01-01T00:00:00Z')],
      [moments[1], at('2025-01-01T00:00:00Z')],
      [moments[2], at('2025-01-01T00:00:00Z')],
      [moments[3], at('2024-12-31T23:00:00Z')],
      [moments[4], at('2024-12-31T23:00:00Z')],
    ]);
    expect(prices(lookup)[0]?.price).toBe('48444');
    for (const p of prices(lookup)) expect(p.price).toBe(sandboxClose('EUR', p.candleOpen));
  });

  it('maps a Europe/London period across the end of summer time to the right UTC hours', async () => {
    const zone = 'Europe/London';
    // The period: October 2025 in London, from BST (UTC+1) into GMT (UTC+0) on 26 October.
    const opening = DateTime.fromObject({ year: 2025, month: 10, day: 1 }, { zone }).toSeconds();
    const closing = DateTime.fromObject({ year: 2025, month: 11, day: 1 }, { zone }).toSeconds();
    // 01:30 happens twice in London that night: first in BST, then in GMT.
    const firstHalfPastOne = at('2025-10-26T01:30:00+01:00');
    const secondHalfPastOne = at('2025-10-26T01:30:00+00:00');
    for (const moment of [firstHalfPastOne, secondHalfPastOne])
      expect(DateTime.fromSeconds(moment, { zone }).toFormat('HH:mm')).toBe('01:30');

    const lookup = await lookUp('GBP', [opening, firstHalfPastOne, secondHalfPastOne, closing]);
    expect(prices(lookup).map((p) => DateTime.fromSeconds(p.candleOpen, { zone: 'utc' }).toISO({ suppressMilliseconds: true }))).toEqual([
      '2025-09-30T22:00:00Z', // the candle closing at 23:00 UTC = midnight BST: the price at the period's opening
      '2025-10-26T00:00:00Z',
      '2025-10-26T01:00:00Z', // an hour later in UTC, though the clock on the wall read the same
      '2025-10-31T23:00:00Z', // the candle closing at midnight GMT: the price at the period's closing
    ]);
    const [, bst, gmt] = prices(lookup);
    expect(bst?.price).not.toBe(gmt?.price);
    for (const p of prices(lookup)) expect(p.price).toBe(sandboxClose('GBP', p.candleOpen));
  });

  it('values in JPY in whole yen', async () => {
    const moment = at('2025-03-15T12:34:56Z');
    const [priced] = prices(await lookUp('JPY', [moment]));
    expect(priced?.price).toMatch(/^\d+$/);
    expect(priced?.price).toBe(sandboxClose('JPY', candleOpenOf(moment)));
    // 0.12345678 BTC at that price, in yen (no minor unit).
    expect(formatFiat(fiatMinorUnits(12_345_678n, priced?.price as string, 'JPY'), 'JPY')).toMatch(/^\d+$/);
  });

  it('stores the hours it priced and serves a second look-up from them', async () => {
    const moments = Array.from({ length: 48 }, (_, i) => at('2024-06-10T00:10:00Z') + i * 3600);
    const first = prices(await lookUp('USD', moments));
    const cached = () =>
      t.ctx.db
        .selectFrom('price_candles')
        .select(['open_time', 'close'])
        .where('source', '=', 'sandbox')
        .where('market', '=', 'BTC/USD')
        .orderBy('open_time')
        .execute();
    const rows = await cached();
    // The 48 hours and the 24 before the first (where a price may come from when an hour had no trade).
    expect(rows).toHaveLength(72);
    expect(rows.every((row) => row.close === sandboxClose('USD', Number(row.open_time)))).toBe(true);

    // The second look-up reads the cache: a changed row shows (nothing recomputes it).
    await t.ctx.db
      .updateTable('price_candles')
      .set({ close: '1' })
      .where('source', '=', 'sandbox')
      .where('market', '=', 'BTC/USD')
      .where('open_time', '=', first[5]?.candleOpen as number)
      .execute();
    const second = prices(await lookUp('USD', moments));
    expect(second[5]?.price).toBe('1');
    expect(second.filter((p, i) => p.price !== first[i]?.price)).toHaveLength(1);
    expect(await cached()).toHaveLength(72);
  });

  it('gives no price for an hour that has not closed long enough ago, and says when to ask again', async () => {
    const now = Math.floor(t.clock.now() / 1000);
    const lookup = await lookUp('EUR', [now - 86_400, now - 60]);
    expect(lookup).toMatchObject({ ok: false, code: 'not_final', source: { market: 'BTC/EUR' } });
    if (lookup.ok) return;
    expect(lookup.reason).toMatch(
      /^The price of the hour that closes at \d{4}-\d\d-\d\d \d\d:00 UTC is not final yet; prices are final 5 minutes after their hour closes\.$/,
    );
    expect(lookup.retryAfterSeconds).toBeGreaterThan(0);
    expect(lookup.retryAfterSeconds).toBeLessThanOrEqual(3600 + 300);
  });

  it('refuses a currency statements are not valued in, naming the ones they are', async () => {
    for (const currency of ['XAU', 'eur', 'BTC']) {
      expect(await lookUp(currency, [at('2025-01-01T00:00:00Z')])).toEqual({
        ok: false,
        code: 'unsupported_currency',
        reason: `${currency} is not a currency statements are valued in (USD, EUR, GBP, CHF, CAD, JPY).`,
      });
    }
    expect(describePriceSource(t.ctx, 'test', 'XAU')).toBeUndefined();
  });

  it('answers no moments with no prices, naming the source', async () => {
    expect(await lookUp('CAD', [])).toMatchObject({ ok: true, prices: [], source: { market: 'BTC/CAD' } });
    expect(describePriceSource(t.ctx, 'test', 'CHF')).toEqual({
      name: 'Sandbox price series',
      exchange: 'sandbox',
      market: 'BTC/CHF',
      currency: 'CHF',
      interval: '1h',
      rule: PRICE_RULE,
    });
  });
});
