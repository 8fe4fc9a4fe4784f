import { loadCcxt } from '../connect/providers/registry.js';
import { defineModule } from '../platform/module.js';
import { createPriceSources, type PriceSources } from './price-sources.js';

declare module '../platform/context.js' {
  interface AppContext {
    /** Which source prices bitcoin in each currency, per mode (the sandbox series in test mode, `PRICE_SOURCE` in live mode). */
    prices: PriceSources;
    /** Test seam: the waits between attempts when a price source does not respond (default 1 s, then 4 s). */
    priceRetryDelaysMs?: readonly number[];
  }
}

/**
 * Prices: bitcoin in fiat currencies, hourly, from a named source, cached in the database
 * (docs/prices.md). No routes: the statement job calls `lookUpPrices` (price.service.ts). Listed
 * after connect, whose ccxt throttles and exchange test seam it shares.
 */
export const pricesModule = defineModule({
  name: 'prices',
  context: (ctx) => ({
    prices: createPriceSources({
      configured: ctx.config.priceSource,
      load: loadCcxt,
      throttles: ctx.exchangeThrottles,
      ...(ctx.exchangeOverrides ? { overrides: ctx.exchangeOverrides } : {}),
    }),
  }),
});
