import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../test/support/database.js';
import { pointExchangeAt } from '../../test/support/exchange-overrides.js';
import { startFakeBitfinex } from '../../test/support/fake-bitfinex.js';
import { fakeForTests } from '../../test/support/fake-exchange-server.js';
import { startFakeKraken } from '../../test/support/fake-kraken.js';
import { startTestApp, type TestApp } from '../../test/support/test-app.js';
import { fiatMinorUnits, formatFiat } from './fiat-value.js';
import { candleOpenOf, describePriceSource, lookUpPrices, PRICE_RULE, type PriceLookup } from './price.service.js';

const HOUR = 3600;
const at = (iso: string) => Date.parse(iso) / 1000;
const hourIndex = (openMs: number) => openMs / 3_600_000;

/**
 * Bitfinex's hourly closes in the fake, as it would answer them (JSON numbers): BTC/USD every hour;
 * BTC/EUR from 2022 on; BTC/JPY in whole yen, with no trade in every seventh hour and none at all
 * for 30 hours from 2024-02-10 00:00 UTC.
 */
function bitfinexClose(pair: string, openMs: number): string | undefined {
  const h = hourIndex(openMs);
  switch (pair) {
    case 'BTCUSD':
      return `${20_000 + (h % 1000)}.5`;
    case 'BTCEUR':
      return openMs >= Date.parse('2022-01-01T00:00:00Z') ? `${18_000 + (h % 997)}.25` : undefined;
    case 'BTCJPY': {
      const gap = Date.parse('2024-02-10T00:00:00Z');
      if (h % 7 === 0 || (openMs >= gap && openMs < gap + 30 * 3_600_000)) return undefined;
      return String(3_000_000 + (h % 977));
    }
    default:
      return undefined;
  }
}

/** Kraken's hourly BTC/CHF and BTC/CAD closes (text, as Kraken answers). */
const krakenClose = (pair: string, open: number) =>
  pair === 'XBTCHF' ? `${17_000 + ((open / HOUR) % 500)}.7` : pair === 'XXBTZCAD' ? `${27_000 + ((open / HOUR) % 300)}.1` : undefined;

function ok(lookup: PriceLookup) {
  if (!lookup.ok) throw new Error(`no prices: ${lookup.reason}`);
  return lookup;
}

/**
 * Live mode: prices from Bitfinex (the default source) and, for CHF and CAD, Kraken, through ccxt
 * unmodified, against local fakes speaking their public candle APIs.
 */
describe.each(engines())('live prices through ccxt on %s', (engine) => {
  const bitfinex = fakeForTests(startFakeBitfinex);
  const kraken = fakeForTests(startFakeKraken);
  let t: TestApp;
  beforeAll(async () => {
    bitfinex.fake.setCandles(bitfinexClose);
    kraken.fake.setCandles(krakenClose);
    t = await startTestApp(engine, {
      seams: {
        exchangeOverrides: { bitfinex: pointExchangeAt('bitfinex', bitfinex.fake.url), kraken: pointExchangeAt('kraken', kraken.fake.url) },
        priceRetryDelaysMs: [0, 0],
      },
    });
  });
  afterAll(() => t.close());

  const lookUp = (currency: string, instants: number[]) => lookUpPrices(t.ctx, { mode: 'live', currency, instants });
  const candleCalls = (from: number) => bitfinex.fake.candleCalls(from);

  it('prices three years of moments from Bitfinex in pages of 10,000 hours, and a second look-up asks nothing', async () => {
    const first = at('2022-03-01T05:17:00Z');
    const moments = Array.from({ length: 3 * 365 * 4 }, (_, i) => first + i * 6 * HOUR);
    const before = bitfinex.fake.requests.length;
    const lookup = ok(await lookUp('EUR', moments));
    expect(lookup.source).toEqual({
      name: 'Bitfinex',
      exchange: 'bitfinex',
      market: 'BTC/EUR',
      currency: 'EUR',
      interval: '1h',
      rule: PRICE_RULE,
    });
    for (const [i, p] of lookup.prices.entries()) {
      expect(p.candleOpen).toBe(candleOpenOf(moments[i] as number));
      expect(p.price).toBe(bitfinexClose('BTCEUR', p.candleOpen * 1000));
    }

    // Three calls, oldest first, from 24 hours before the first moment's candle; each ends at the
    // last moment's candle a page of 10,000 hours reaches, and the next begins 24 hours before
    // the first moment's candle past it.
    const calls = candleCalls(before);
    const opens = moments.map(candleOpenOf);
    expect(calls).toHaveLength(3);
    expect(calls[0]).toEqual({
      pair: 'BTCEUR',
      limit: '10000',
      start: String((opens[0] as number) * 1000 - 24 * HOUR * 1000),
      end: expect.any(String),
      sort: '1',
    });
    for (const [i, call] of calls.entries()) {
      const [start, end] = [Number(call.start) / 1000, Number(call.end) / 1000];
      expect(call).toMatchObject({ pair: 'BTCEUR', limit: '10000', sort: '1' });
      expect(end).toBe(Math.max(...opens.filter((open) => open <= start + 9_999 * HOUR)));
      const previous = calls[i - 1];
      if (previous) expect(start).toBe((opens.find((open) => open * 1000 > Number(previous.end)) as number) - 24 * HOUR);
    }
    expect(Number(calls.at(-1)?.end)).toBe((opens.at(-1) as number) * 1000);

    // Asked again: everything from the database, nothing from Bitfinex.
    const again = bitfinex.fake.requests.length;
    expect(ok(await lookUp('EUR', moments)).prices).toEqual(lookup.prices);
    expect(bitfinex.fake.requests.length).toBe(again);
  });

  it('takes the last earlier close when an hour had no trade (up to 24 hours back), prices JPY in whole yen, and says why when there is none', async () => {
    // An hour whose index is a multiple of 7: no trade in it.
    const noTradeHour = Math.ceil(at('2023-05-07T00:00:00Z') / (7 * HOUR)) * 7 * HOUR;
    const moment = noTradeHour + 1234;
    const lookup = ok(await lookUp('JPY', [moment, noTradeHour + 2 * HOUR]));
    expect(lookup.source.market).toBe('BTC/JPY');
    expect(lookup.prices[0]).toEqual({
      at: moment,
      price: bitfinexClose('BTCJPY', (noTradeHour - HOUR) * 1000),
      candleOpen: noTradeHour - HOUR,
    });
    expect(lookup.prices[1]?.candleOpen).toBe(noTradeHour + HOUR);
    for (const p of lookup.prices) expect(p.price).toMatch(/^\d+$/);
    expect(formatFiat(fiatMinorUnits(50_000_000n, lookup.prices[0]?.price as string, 'JPY'), 'JPY')).toMatch(/^\d+$/);

    // 30 hours without a trade: no price 27 hours in, and the statement is told why.
    const silent = at('2024-02-10T00:00:00Z');
    const none = await lookUp('JPY', [at('2024-01-20T10:00:00Z'), silent + 27 * HOUR - 60]);
    expect(none).toEqual({
      ok: false,
      code: 'no_data',
      reason: 'Bitfinex recorded no BTC/JPY trade in the 24 hours before 2024-02-11 03:00 UTC.',
      source: expect.objectContaining({ market: 'BTC/JPY' }),
    });
  });

  it('says so for a moment before the market had candles', async () => {
    const lookup = await lookUp('EUR', [at('2021-06-01T12:00:00Z')]);
    expect(lookup).toMatchObject({
      ok: false,
      code: 'no_data',
      reason: 'Bitfinex recorded no BTC/EUR trade in the 24 hours before 2021-06-01 12:00 UTC.',
    });
  });

  it('asks again when Bitfinex does not respond, and gives up after three attempts in all, saying so', async () => {
    const isCandles = (r: { path: string }) => r.path.includes('/candles/');
    bitfinex.fake.failNext(isCandles, { status: 503, body: 'Service Unavailable', text: true });
    bitfinex.fake.failNext(isCandles, { status: 502, body: 'Bad Gateway', text: true });
    let before = bitfinex.fake.requests.length;
    const recovered = ok(await lookUp('USD', [at('2020-02-02T02:02:02Z')]));
    expect(recovered.prices[0]?.price).toBe(bitfinexClose('BTCUSD', at('2020-02-02T02:00:00Z') * 1000));
    expect(candleCalls(before)).toHaveLength(3);

    for (let i = 0; i < 3; i++) bitfinex.fake.failNext(isCandles, { status: 503, body: 'Service Unavailable', text: true });
    before = bitfinex.fake.requests.length;
    const moment = at('2020-03-03T03:03:03Z');
    expect(await lookUp('USD', [moment])).toEqual({
      ok: false,
      code: 'source_unavailable',
      reason: 'Bitfinex is not responding (asked 3 times).',
      retryAfterSeconds: 120,
      source: expect.objectContaining({ name: 'Bitfinex', market: 'BTC/USD' }),
    });
    expect(candleCalls(before)).toHaveLength(3);
    // Nothing was stored for that hour: the next statement asks again (and gets it).
    expect(ok(await lookUp('USD', [moment])).prices).toHaveLength(1);
  });

  it('does not hammer an exchange in maintenance or one limiting us: one call, and how long to wait', async () => {
    bitfinex.fake.setStatus('maintenance');
    let before = bitfinex.fake.requests.length;
    expect(await lookUp('USD', [at('2019-04-04T04:04:04Z')])).toMatchObject({
      ok: false,
      code: 'source_unavailable',
      reason: 'Bitfinex is down for maintenance.',
      retryAfterSeconds: 120,
    });
    expect(candleCalls(before)).toHaveLength(1);
    bitfinex.fake.setStatus('operative');

    bitfinex.fake.setRateLimited(true);
    before = bitfinex.fake.requests.length;
    expect(await lookUp('USD', [at('2019-05-05T05:05:05Z')])).toMatchObject({
      ok: false,
      code: 'source_rate_limited',
      reason: 'Bitfinex is limiting how often we may ask.',
      retryAfterSeconds: 60,
    });
    expect(candleCalls(before)).toHaveLength(1);
    bitfinex.fake.setRateLimited(false);
  });

  it('prices CHF on Kraken, which Bitfinex does not list, as far back as Kraken’s 720 hours reach, and says so beyond', async () => {
    const now = Math.floor(t.clock.now() / 1000);
    const recent = [now - 10 * 86_400, now - 3 * 86_400 + 17];
    const lookup = ok(await lookUp('CHF', recent));
    expect(lookup.source).toEqual({
      name: 'Kraken',
      exchange: 'kraken',
      market: 'BTC/CHF',
      currency: 'CHF',
      interval: '1h',
      rule: PRICE_RULE,
    });
    for (const p of lookup.prices) expect(p.price).toBe(krakenClose('XBTCHF', p.candleOpen));
    const calls = kraken.fake.ohlcCalls();
    expect(calls).toEqual([{ pair: 'XBTCHF', interval: '60', since: String(candleOpenOf(recent[0] as number) - 25 * HOUR) }]);

    // Cached: asked again, Kraken hears nothing.
    expect(ok(await lookUp('CHF', recent)).prices).toEqual(lookup.prices);
    expect(kraken.fake.ohlcCalls()).toHaveLength(1);

    // 40 days back is older than anything Kraken answers: one call, and the reason.
    const old = now - 40 * 86_400;
    const refused = await lookUp('CHF', [old]);
    expect(refused).toMatchObject({ ok: false, code: 'no_data', source: { name: 'Kraken', market: 'BTC/CHF' } });
    if (!refused.ok)
      expect(refused.reason).toBe(
        `Kraken has no BTC/CHF prices for the hour that closes at ${new Date((candleOpenOf(old) + HOUR) * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC (its history does not reach back that far).`,
      );
    expect(kraken.fake.ohlcCalls()).toHaveLength(2);
  });

  it('names where each currency’s prices come from', () => {
    expect(describePriceSource(t.ctx, 'live', 'EUR')).toMatchObject({ name: 'Bitfinex', exchange: 'bitfinex', market: 'BTC/EUR' });
    expect(describePriceSource(t.ctx, 'live', 'JPY')).toMatchObject({ name: 'Bitfinex', market: 'BTC/JPY' });
    expect(describePriceSource(t.ctx, 'live', 'CAD')).toMatchObject({ name: 'Kraken', exchange: 'kraken', market: 'BTC/CAD' });
    expect(describePriceSource(t.ctx, 'test', 'EUR')).toMatchObject({ exchange: 'sandbox', market: 'BTC/EUR' });
  });
});
