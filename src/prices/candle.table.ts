import type { Generated, Insertable } from 'kysely';

/**
 * The price cache: one row per (source, market, interval, candle open time) the source has
 * answered for. `close` null: the source answered for that hour and had no trade in it. Rows are
 * only ever inserted (a finished candle never changes), so a second statement over the same hours
 * asks no one.
 */
export interface PriceCandleTable {
  seq: Generated<number>;
  /** `bitfinex`, `kraken`, `sandbox`. */
  source: string;
  /** ccxt's unified symbol, `BTC/EUR`. */
  market: string;
  /** `1h`. */
  interval: string;
  /** Unix seconds, on the hour (UTC). */
  open_time: number;
  /** Decimal text, the currency per BTC; null when the hour had no trade. */
  close: string | null;
  /** When we read it (Unix seconds). */
  fetched_at: number;
}

export type NewPriceCandleRow = Insertable<PriceCandleTable>;

export interface PricesTables {
  price_candles: PriceCandleTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- joins these tables to the service's Database
  interface Database extends PricesTables {}
}
