import type { Exchange } from 'ccxt';
import type { Ccxt } from './ccxt-errors.js';
import type { ExchangeRow } from './exchanges/row.js';
import { sharedPace, type PaceLog } from './ip-pace.js';

/**
 * ccxt's request throttle (its client-side rate limiter), one per exchange id for every instance
 * opened through it: an exchange's limits count per IP address (Binance's request weight,
 * Bitstamp's, Bitfinex's …), and this server is one address whether it reads an account's ledger
 * (connect) or public candles (prices). ccxt keeps a throttle per instance; we open many.
 */
export interface ExchangeThrottles {
  /** Gives `exchange` the throttle of its exchange id, paced at the first instance's `rateLimit`. */
  share(id: string, exchange: Exchange): void;
}

/**
 * One throttle per exchange id. With the service's pace log (`paces`), the throttle holds across
 * every process on the database (ip-pace.ts): what a deployment of several `serve` and `worker`
 * processes needs. Without, it is ccxt's own throttler shared in this process: for a tool that
 * runs alone and has no database of ours (the benchmarks, a test walking a provider).
 */
export function exchangeThrottles(paces?: PaceLog): ExchangeThrottles {
  const byId = new Map<string, unknown>();
  return {
    share(id, exchange) {
      const paced = exchange as unknown as { throttler: unknown };
      const kept = byId.get(id) ?? (paces ? sharedPace(id, Number(exchange.rateLimit), paces) : paced.throttler);
      byId.set(id, kept);
      paced.throttler = kept;
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
