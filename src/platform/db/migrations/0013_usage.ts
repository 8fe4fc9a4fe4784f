import type { Kysely, Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { modeCheck, TIMESTAMP, withSequence } from '../migration-helpers.js';

/**
 * Platform: usage records, what a client is billed for. The unique index is what makes a use
 * billed once: two first generations of the same statement's PDF at the same moment, in one
 * process or two, insert one record between them (the second insert does nothing).
 */
export function usageMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('usage_records'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('client_id', 'text', (col) => col.notNull().references('clients.id'))
        .addColumn('mode', 'text', (col) => col.notNull().check(modeCheck()))
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('resource_id', 'text', (col) => col.notNull())
        .addColumn('quantity', 'integer', (col) => col.notNull())
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addUniqueConstraint('usage_records_once', ['client_id', 'mode', 'type', 'resource_id'])
        .execute();
      await db.schema.createIndex('usage_records_scope_seq').on('usage_records').columns(['client_id', 'mode', 'seq']).execute();
    },
  };
}
