import type { Kysely, Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { TIMESTAMP, withSequence } from '../migration-helpers.js';

/**
 * Connect: the calls an exchange counts per account, logged where every process sees them
 * (src/connect/providers/exchange-call-log.ts): one row per call in the last minute, read by
 * (key, time).
 */
export function connectExchangeCallsMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('connect_exchange_calls'), capabilities)
        .addColumn('key', 'text', (col) => col.notNull())
        .addColumn('at', TIMESTAMP, (col) => col.notNull())
        .addColumn('weight', 'integer', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('connect_exchange_calls_key_at').on('connect_exchange_calls').columns(['key', 'at']).execute();
    },
  };
}
