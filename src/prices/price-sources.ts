import type { Ccxt } from '../connect/providers/ccxt-errors.js';
import type { ExchangeThrottles } from '../connect/providers/ccxt-instance.js';
import type { ExchangeOverrides } from '../connect/providers/ccxt-provider.js';
import { ConfigError } from '../platform/config/config.js';
import type { Mode } from '../platform/scope.js';
import type { CandleSource } from './candle-source.js';
import type { FiatCurrency } from './currencies.js';
import { exchangeCandles, PRICE_EXCHANGES } from './exchange-candles.js';
import { sandboxCandles } from './sandbox-prices.js';

/** `PRICE_SOURCE` when unset: the one exchange whose public candles reach years back in four of the six currencies. */
const DEFAULT_PRICE_SOURCE = 'bitfinex';
/** Where a currency the configured exchange has no market in is priced: the one that lists all six. */
const FALLBACK_PRICE_SOURCE = 'kraken';

/** The source and market that price a currency. */
export interface PriceMarket {
  source: CandleSource;
  /** ccxt's unified symbol, `BTC/EUR`. */
  market: string;
}

/** Which source prices each currency, per mode. */
export interface PriceSources {
  /** Test mode: the sandbox series. Live mode: the configured exchange, or the fallback for a currency it lacks. */
  marketFor(mode: Mode, currency: FiatCurrency): PriceMarket | undefined;
}

/**
 * The price sources of this process. `configured` is `PRICE_SOURCE` (checked here: platform does
 * not know the exchanges); `overrides` are the connect module's test seam (ccxt options per
 * exchange id), so a test points both at one local fake.
 */
export function createPriceSources(deps: {
  configured: string | undefined;
  load: () => Promise<Ccxt>;
  throttles: ExchangeThrottles;
  overrides?: Partial<Record<string, ExchangeOverrides>>;
}): PriceSources {
  const name = deps.configured ?? DEFAULT_PRICE_SOURCE;
  const sources = new Map(
    PRICE_EXCHANGES.map((row) => {
      const overrides = deps.overrides?.[row.id];
      return [row.id as string, exchangeCandles(row, { load: deps.load, throttles: deps.throttles, ...(overrides ? { overrides } : {}) })];
    }),
  );
  const chosen = sources.get(name);
  if (!chosen) throw new ConfigError('PRICE_SOURCE', `must be one of ${[...sources.keys()].join(', ')} (got "${name}")`);
  const fallback = sources.get(FALLBACK_PRICE_SOURCE) as CandleSource;
  const pick = (source: CandleSource, currency: FiatCurrency): PriceMarket | undefined => {
    const market = source.markets[currency];
    return market === undefined ? undefined : { source, market };
  };
  return {
    marketFor: (mode, currency) =>
      mode === 'test' ? pick(sandboxCandles, currency) : (pick(chosen, currency) ?? pick(fallback, currency)),
  };
}
