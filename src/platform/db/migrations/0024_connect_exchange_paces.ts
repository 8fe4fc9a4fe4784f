import type { Kysely, Migration } from 'kysely';
import { TIMESTAMP } from '../migration-helpers.js';

/**
 * Connect: each exchange's pace per IP address, held where every process sees it
 * (src/connect/providers/ip-pace.ts): one row per exchange, the time its next call may start.
 */
export function connectExchangePacesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('connect_exchange_paces')
        .addColumn('key', 'text', (col) => col.primaryKey())
        .addColumn('next_at', TIMESTAMP, (col) => col.notNull())
        .execute();
    },
  };
}
