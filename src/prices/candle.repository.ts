import type { Db } from '../platform/db/database.js';
import type { NewPriceCandleRow } from './candle.table.js';

/** Which candles: one market of one source at one interval. */
export interface CandleSeries {
  source: string;
  market: string;
  interval: string;
}

/** Rows per INSERT: six values each, well under SQLite's 32,766 host parameters. */
const INSERT_CHUNK = 1000;

/**
 * The cached hours of `series` with open times from `from` to `to` (inclusive), in one query:
 * open time → close (null: no trade that hour). An hour absent from the map was never asked.
 */
export async function findCandles(db: Db, series: CandleSeries, from: number, to: number): Promise<Map<number, string | null>> {
  const rows = await db
    .selectFrom('price_candles')
    .select(['open_time', 'close'])
    .where('source', '=', series.source)
    .where('market', '=', series.market)
    .where('interval', '=', series.interval)
    .where('open_time', '>=', from)
    .where('open_time', '<=', to)
    .execute();
  return new Map(rows.map((row) => [Number(row.open_time), row.close]));
}

/**
 * Stores hours a source answered for, in one transaction. An hour already stored is kept (the
 * unique key decides, also between concurrent statement jobs): a finished candle never changes.
 */
export async function insertCandles(
  db: Db,
  series: CandleSeries,
  hours: readonly { open: number; close: string | null }[],
  fetchedAt: number,
): Promise<void> {
  if (hours.length === 0) return;
  const rows: NewPriceCandleRow[] = hours.map((hour) => ({ ...series, open_time: hour.open, close: hour.close, fetched_at: fetchedAt }));
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await trx
        .insertInto('price_candles')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((conflict) => conflict.columns(['source', 'market', 'interval', 'open_time']).doNothing())
        .execute();
    }
  });
}
