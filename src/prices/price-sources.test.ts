import * as ccxt from 'ccxt';
import { describe, expect, it } from 'vitest';
import { exchangeThrottles, openExchange } from '../connect/providers/ccxt-instance.js';
import { ConfigError } from '../platform/config/config.js';
import { SUPPORTED_CURRENCIES } from './currencies.js';
import { createPriceSources } from './price-sources.js';

const sources = (configured: string | undefined) =>
  createPriceSources({ configured, load: () => Promise.resolve(ccxt), throttles: exchangeThrottles() });
/** Each currency's source and market, as `"<source> <market>"`. */
function where(configured: string | undefined, mode: 'test' | 'live'): Record<string, string | undefined> {
  const registry = sources(configured);
  return Object.fromEntries(
    SUPPORTED_CURRENCIES.map((currency) => {
      const priced = registry.marketFor(mode, currency);
      return [currency, priced && `${priced.source.id} ${priced.market}`];
    }),
  );
}

describe('which source prices each currency', () => {
  it('by default: Bitfinex where it has the market, Kraken for CHF and CAD', () => {
    expect(where(undefined, 'live')).toEqual({
      USD: 'bitfinex BTC/USD',
      EUR: 'bitfinex BTC/EUR',
      GBP: 'bitfinex BTC/GBP',
      CHF: 'kraken BTC/CHF',
      CAD: 'kraken BTC/CAD',
      JPY: 'bitfinex BTC/JPY',
    });
  });

  it('PRICE_SOURCE=kraken: Kraken for every currency', () => {
    expect(Object.values(where('kraken', 'live')).every((market) => market?.startsWith('kraken '))).toBe(true);
  });

  it('test mode: the sandbox series, whatever PRICE_SOURCE says', () => {
    expect(where('kraken', 'test')).toEqual(Object.fromEntries(SUPPORTED_CURRENCIES.map((c) => [c, `sandbox BTC/${c}`])));
  });

  it('refuses an exchange it cannot price from, naming those it can', () => {
    expect(() => sources('coinbase')).toThrow(new ConfigError('PRICE_SOURCE', 'must be one of bitfinex, kraken (got "coinbase")'));
  });
});

describe('ccxt instances of one exchange', () => {
  it('share one throttle per exchange id, whoever opens them', () => {
    const throttles = exchangeThrottles();
    const throttle = (exchange: object) => (exchange as { throttler: unknown }).throttler;
    const [a, b, other] = [
      openExchange(ccxt, { id: 'bitfinex' }, {}, throttles),
      openExchange(ccxt, { id: 'bitfinex' }, { timeout: 5_000 }, throttles),
      openExchange(ccxt, { id: 'kraken' }, {}, throttles),
    ];
    expect(throttle(a)).toBe(throttle(b));
    expect(throttle(other)).not.toBe(throttle(a));
    expect(throttle(openExchange(ccxt, { id: 'bitfinex' }, {}, exchangeThrottles()))).not.toBe(throttle(a));
  });
});
