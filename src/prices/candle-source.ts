import type { FiatCurrency } from './currencies.js';

/** Seconds in the one candle interval prices use: an hour. */
export const HOUR = 3600;
/** ccxt's (and the document's) name for that interval. */
export const INTERVAL = '1h';

/** One hourly candle: its open time (Unix seconds, on the hour, UTC) and its close (decimal text). */
export interface Candle {
  open: number;
  close: string;
}

/** One answer of a source. */
export interface CandlePage {
  /** The candles of the answer, ascending: only finished hours. */
  candles: Candle[];
  /**
   * The hours (open times, inclusive) the answer speaks for: an hour in this span without a candle
   * had no trade. Undefined when it speaks for none (a source with no candle that far back).
   */
  covered: { from: number; to: number } | undefined;
}

/**
 * Where hourly candles of bitcoin come from: an exchange's public market data through ccxt (live
 * mode) or the sandbox series (test mode).
 */
export interface CandleSource {
  /** The cache's name for it (`bitfinex`, `kraken`, `sandbox`): ccxt's exchange id, or `sandbox`. */
  id: string;
  /** What the document calls it ("Bitfinex"). */
  name: string;
  /** The unified market symbol (`BTC/EUR`) it prices each currency in; a currency it lacks is absent. */
  markets: Readonly<Partial<Record<FiatCurrency, string>>>;
  /** How many hours one call may answer. */
  pageHours: number;
  /**
   * The finished candles of `market` with open times from `from` to `to` (whole hours, inclusive;
   * at most `pageHours` of them), as of `now` (Unix seconds). Throws a PriceSourceError when the
   * source cannot answer.
   */
  page(market: string, from: number, to: number, now: number): Promise<CandlePage>;
}

/** Why a source could not answer, in the words the lookup needs to decide whether to try again. */
export type PriceSourceFailure = 'rate_limited' | 'maintenance' | 'unavailable' | 'unlisted' | 'other';

/** A source that could not answer. The message names the source, never echoes its answer. */
export class PriceSourceError extends Error {
  constructor(
    readonly failure: PriceSourceFailure,
    message: string,
    /** How long the source asked us (or we decided) to wait before asking again, where it matters. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'PriceSourceError';
  }
}

/**
 * Whether a candle opening at `open` is final at `now`: its hour ended at least `FINAL_AFTER`
 * seconds ago. Exchanges still add a trade reported late to the hour just ended; a few minutes on
 * nothing changes.
 */
export const FINAL_AFTER = 300;
export function isFinal(open: number, now: number): boolean {
  return open + HOUR + FINAL_AFTER <= now;
}
