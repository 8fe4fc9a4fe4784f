import type { Exchange } from 'ccxt';
import type { Ccxt } from './ccxt-errors.js';
import type { ExchangeRow } from './exchanges/row.js';

/**
 * ccxt's request throttle (its client-side rate limiter), one per exchange id for every instance
 * opened through it: an exchange's limits count per IP address (Binance's request weight,
 * Bitstamp's, Bitfinex's …), and this server is one address whether it reads an account's ledger
 * (connect) or public candles (prices). ccxt keeps a throttle per instance; we open many.
 */
export interface ExchangeThrottles {
  /** Gives `exchange` the throttle of its exchange id: the first instance's, kept for the rest. */
  share(id: string, exchange: Exchange): void;
}

/** One throttle per exchange id, for one process (one context). */
export function exchangeThrottles(): ExchangeThrottles {
  const byId = new Map<string, unknown>();
  return {
    share(id, exchange) {
      const paced = exchange as unknown as { throttler: unknown };
      const kept = byId.get(id);
      if (kept === undefined) byId.set(id, paced.throttler);
      else paced.throttler = kept;
    },
  };
}

/**
 * A ccxt instance of the exchange `row.id` as every caller of ours opens one (no request made
 * yet): `config` for ccxt's constructor (credentials, options, a test's `urls.api`), the
 * exchange's error codes ccxt leaves unclassified (the row's `errorCodes`, `errorCodeField`), an
 * HTTP 429 read as a rate limit whatever its body says, amounts as the exchange's decimal text
 * (`number = String`), and the exchange's shared throttle.
 */
export function openExchange(
  ccxt: Ccxt,
  row: Pick<ExchangeRow, 'id' | 'errorCodes' | 'errorCodeField'>,
  config: object,
  throttles: ExchangeThrottles,
): Exchange {
  const Class = (ccxt as unknown as Record<string, new (config: object) => Exchange>)[row.id];
  if (!Class) throw new Error(`ccxt has no exchange ${row.id}`);
  const exchange = new Class(config);
  if (row.errorCodes) {
    const exceptions = (exchange as unknown as { exceptions: { exact?: Record<string, unknown> } }).exceptions;
    exceptions.exact = {
      ...exceptions.exact,
      ...Object.fromEntries(Object.entries(row.errorCodes).map(([code, name]) => [code, ccxt[name]])),
    };
  }
  const own = exchange.handleErrors.bind(exchange);
  exchange.handleErrors = (...answer: Parameters<Exchange['handleErrors']>) => {
    const [status, , , , , , json] = answer;
    // An HTTP 429 is a rate limit whatever the body says: some of ccxt's readers turn any error
    // body into a plain exchange error first (Bitstamp's, Bitfinex's), which would read as unknown.
    if (status === 429) throw new ccxt.RateLimitExceeded(`${row.id} HTTP 429`);
    // Where ccxt reads the exchange's code nowhere (Bitstamp's `response_code`), the answer's
    // field is matched against the row's codes first; anything else goes on to ccxt's reading.
    const field = row.errorCodeField;
    const code: unknown =
      field !== undefined && typeof json === 'object' && json !== null ? (json as Record<string, unknown>)[field] : undefined;
    if (typeof code === 'string' && row.errorCodes?.[code]) throw new ccxt[row.errorCodes[code]](`${row.id} ${code}`);
    return own(...answer);
  };
  // Amounts come out as the exchange's decimal text, never through a float.
  (exchange as unknown as { number: unknown }).number = String;
  throttles.share(row.id, exchange);
  return exchange;
}
