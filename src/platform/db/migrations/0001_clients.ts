import type { Kysely, Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { modeCheck, TIMESTAMP, withSequence } from '../migration-helpers.js';

export function clientsMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('clients'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .execute();

      await withSequence(db.schema.createTable('api_keys'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('client_id', 'text', (col) => col.notNull().references('clients.id'))
        .addColumn('mode', 'text', (col) => col.notNull().check(modeCheck()))
        .addColumn('key_hash', 'text', (col) => col.notNull().unique())
        .addColumn('key_hint', 'text', (col) => col.notNull())
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('expires_at', TIMESTAMP)
        .addColumn('revoked_at', TIMESTAMP)
        .execute();
      await db.schema.createIndex('api_keys_client_mode').on('api_keys').columns(['client_id', 'mode']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('api_keys').execute();
      await db.schema.dropTable('clients').execute();
    },
  };
}
