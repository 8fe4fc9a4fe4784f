import type { Kysely, Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { modeCheck, TIMESTAMP, withSequence } from '../migration-helpers.js';

export function accountHoldersMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('account_holders'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('client_id', 'text', (col) => col.notNull().references('clients.id'))
        .addColumn('mode', 'text', (col) => col.notNull().check(modeCheck()))
        .addColumn('email', 'text', (col) => col.notNull())
        .addColumn('name', 'text')
        .addColumn('external_ref', 'text')
        .addColumn('metadata', 'text', (col) => col.notNull())
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('updated_at', TIMESTAMP, (col) => col.notNull())
        // NULLs are distinct in UNIQUE on both engines, so holders without a reference never clash.
        .addUniqueConstraint('account_holders_external_ref', ['client_id', 'mode', 'external_ref'])
        .execute();
      await db.schema.createIndex('account_holders_scope_seq').on('account_holders').columns(['client_id', 'mode', 'seq']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('account_holders').execute();
    },
  };
}
