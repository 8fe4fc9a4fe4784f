import type { Kysely, Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { TIMESTAMP, withSequence } from '../migration-helpers.js';

/**
 * Prices: the candle cache (docs/prices.md, "The cache"). Its unique key is also the index every
 * look-up reads: one range of open times of one series.
 */
export function pricesMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('price_candles'), capabilities)
        .addColumn('source', 'text', (col) => col.notNull())
        .addColumn('market', 'text', (col) => col.notNull())
        .addColumn('interval', 'text', (col) => col.notNull())
        .addColumn('open_time', TIMESTAMP, (col) => col.notNull())
        .addColumn('close', 'text')
        .addColumn('fetched_at', TIMESTAMP, (col) => col.notNull())
        .addUniqueConstraint('price_candles_hour', ['source', 'market', 'interval', 'open_time'])
        .execute();
    },
  };
}
