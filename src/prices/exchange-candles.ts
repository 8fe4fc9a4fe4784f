import type { Exchange } from 'ccxt';
import { canonicalDecimal } from '../connect/amounts.js';
import {
  classifyCcxtError,
  EXCHANGE_RATE_LIMIT_SECONDS,
  EXCHANGE_UNAVAILABLE_SECONDS,
  waitSeconds,
  type Ccxt,
} from '../connect/providers/ccxt-errors.js';
import { openExchange, type ExchangeThrottles } from '../connect/providers/ccxt-instance.js';
import type { ExchangeOverrides } from '../connect/providers/ccxt-provider.js';
import { EXCHANGES } from '../connect/providers/exchanges.js';
import { HOUR, INTERVAL, isFinal, PriceSourceError, type Candle, type CandleSource } from './candle-source.js';
import type { FiatCurrency } from './currencies.js';

/**
 * An exchange whose public, unauthenticated hourly candles (ccxt's `fetchOHLCV`) price statements
 * in live mode. Why these two and not others: docs/prices.md, "Choosing the source".
 */
export interface PriceExchangeRow {
  /** ccxt's exchange id, also the cache's name for the source. */
  id: 'bitfinex' | 'kraken';
  name: string;
  /** The market each currency is priced in (ccxt's unified symbols); a currency it lacks is absent. */
  markets: Readonly<Partial<Record<FiatCurrency, string>>>;
  /** The most candles one call answers. */
  pageHours: number;
  /**
   * `full`: the exchange answers any span of its history, honouring start, end and limit
   * (Bitfinex). `recent`: it answers its latest `pageHours` candles whatever was asked (Kraken:
   * "older data cannot be retrieved, regardless of the value of since").
   */
  history: 'full' | 'recent';
  /** ccxt options for this use. */
  ccxtOptions?: Record<string, unknown>;
}

export const PRICE_EXCHANGES: readonly PriceExchangeRow[] = [
  {
    id: 'bitfinex',
    name: 'Bitfinex',
    // GET /v2/candles/trade:1h:tBTCEUR/hist?start&end&limit&sort=1 — up to 10,000 candles a call,
    // oldest first from `start`. No market in CHF or CAD (its "XCHF" is a token, not the franc).
    markets: { USD: 'BTC/USD', EUR: 'BTC/EUR', GBP: 'BTC/GBP', JPY: 'BTC/JPY' },
    pageHours: 10_000,
    history: 'full',
    // Spot markets only: derivatives are more calls on every market load, and no price needs them.
    ccxtOptions: { options: { fetchMarkets: { types: ['spot'] } } },
  },
  {
    id: 'kraken',
    name: 'Kraken',
    // GET /0/public/OHLC?pair=XBTCHF&interval=60&since — the latest 720 candles (30 days of hours).
    markets: { USD: 'BTC/USD', EUR: 'BTC/EUR', GBP: 'BTC/GBP', CHF: 'BTC/CHF', CAD: 'BTC/CAD', JPY: 'BTC/JPY' },
    pageHours: 720,
    history: 'recent',
  },
];

/** How long loaded markets are trusted before the exchange is asked again (a market may be delisted). */
const MARKETS_TTL_MS = 24 * 3600 * 1000;

/**
 * A candle source over one exchange's public candles, through ccxt unmodified. One ccxt instance,
 * opened on the first call (ccxt is imported then), its markets reloaded daily or after a failed
 * load, its throttle the exchange's shared one.
 */
export function exchangeCandles(
  row: PriceExchangeRow,
  deps: { load: () => Promise<Ccxt>; throttles: ExchangeThrottles; overrides?: ExchangeOverrides },
): CandleSource {
  // The exchange's error codes ccxt leaves unclassified, as the connect table states them.
  const errors = EXCHANGES.find((exchange) => exchange.id === row.id);
  let opened: { at: number; ready: Promise<Exchange> } | undefined;

  function ready(ccxt: Ccxt): Promise<Exchange> {
    if (!opened || Date.now() - opened.at >= MARKETS_TTL_MS) {
      const exchange = openExchange(
        ccxt,
        { id: row.id, errorCodes: errors?.errorCodes, errorCodeField: errors?.errorCodeField },
        { enableRateLimit: true, timeout: 20_000, ...row.ccxtOptions, ...deps.overrides },
        deps.throttles,
      );
      const entry = { at: Date.now(), ready: exchange.loadMarkets().then(() => exchange) };
      opened = entry;
      // ccxt keeps a failed load's promise: the next call opens a new instance instead.
      entry.ready.catch(() => {
        if (opened === entry) opened = undefined;
      });
    }
    return opened.ready;
  }

  return {
    id: row.id,
    name: row.name,
    markets: row.markets,
    pageHours: row.pageHours,
    async page(market, from, to, now) {
      const ccxt = await deps.load();
      let exchange: Exchange | undefined;
      let answer: unknown[][];
      try {
        exchange = await ready(ccxt);
        if (!exchange.markets?.[market]) throw new PriceSourceError('unlisted', `${row.name} does not list the market ${market}.`);
        answer =
          row.history === 'full'
            ? await exchange.fetchOHLCV(market, INTERVAL, from * 1000, row.pageHours, { until: to * 1000 })
            : await exchange.fetchOHLCV(market, INTERVAL, from * 1000);
      } catch (error) {
        throw sourceFailure(ccxt, error, row.name, exchange?.last_response_headers);
      }
      const candles = candlesOf(answer, now);
      const last = candles.at(-1);
      if (row.history === 'recent') {
        // Only its latest candles: the answer speaks from its first candle on.
        return { candles, covered: candles[0] && last ? { from: Math.max(from, candles[0].open), to: last.open } : undefined };
      }
      // A full page may have stopped short of `to`: it speaks up to its last candle only.
      const inSpan = candles.filter((c) => c.open <= to);
      return { candles: inSpan, covered: { from, to: answer.length >= row.pageHours && last ? Math.min(last.open, to) : to } };
    },
  };
}

/**
 * ccxt's candles ([time ms, open, high, low, close, volume], decimals as text) → finished hourly
 * candles, ascending, one per hour. A close that is not a positive decimal is no price: dropped.
 */
function candlesOf(answer: unknown[][], now: number): Candle[] {
  const byOpen = new Map<number, string>();
  for (const [time, , , , close] of answer) {
    if (typeof time !== 'number' || time % (HOUR * 1000) !== 0) continue;
    const open = time / 1000;
    if (!isFinal(open, now) || (typeof close !== 'string' && typeof close !== 'number')) continue;
    let price: string;
    try {
      price = canonicalDecimal(String(close));
    } catch {
      continue;
    }
    if (!price.startsWith('-') && price !== '0') byOpen.set(open, price);
  }
  return [...byOpen].sort(([a], [b]) => a - b).map(([open, close]) => ({ open, close }));
}

/** A failed call as the lookup reads it: the kind of failure and the wait, never the exchange's own words. */
function sourceFailure(ccxt: Ccxt, error: unknown, name: string, headers: Record<string, unknown> | undefined): PriceSourceError {
  if (error instanceof PriceSourceError) return error;
  switch (classifyCcxtError(ccxt, error)) {
    case 'rate_limited':
      return new PriceSourceError(
        'rate_limited',
        `${name} is limiting how often we may ask.`,
        waitSeconds(EXCHANGE_RATE_LIMIT_SECONDS, headers),
      );
    case 'maintenance':
      return new PriceSourceError('maintenance', `${name} is down for maintenance.`, waitSeconds(EXCHANGE_UNAVAILABLE_SECONDS, headers));
    case 'unavailable':
      return new PriceSourceError('unavailable', `${name} is not responding.`, waitSeconds(EXCHANGE_UNAVAILABLE_SECONDS, headers));
    default:
      return new PriceSourceError('other', `${name} gave an answer we could not use.`);
  }
}
