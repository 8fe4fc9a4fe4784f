import type { Kysely, Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { modeCheck, TIMESTAMP, withSequence } from '../migration-helpers.js';

export function eventsMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('events'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('client_id', 'text', (col) => col.notNull().references('clients.id'))
        .addColumn('mode', 'text', (col) => col.notNull().check(modeCheck()))
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('data', 'text', (col) => col.notNull())
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('events_scope_seq').on('events').columns(['client_id', 'mode', 'seq']).execute();
      await db.schema.createIndex('events_scope_type_seq').on('events').columns(['client_id', 'mode', 'type', 'seq']).execute();
      await db.schema.createIndex('events_scope_created').on('events').columns(['client_id', 'mode', 'created_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('events').execute();
    },
  };
}
