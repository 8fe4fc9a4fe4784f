import type { Kysely, Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { modeCheck, TIMESTAMP, withSequence } from '../migration-helpers.js';

export function connectMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('connect_sessions'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('client_id', 'text', (col) => col.notNull().references('clients.id'))
        .addColumn('mode', 'text', (col) => col.notNull().check(modeCheck()))
        .addColumn('account_holder_id', 'text', (col) => col.notNull().references('account_holders.id'))
        .addColumn('client_secret_hash', 'text', (col) => col.notNull().unique())
        .addColumn('client_secret_sealed', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('permissions', 'text', (col) => col.notNull())
        .addColumn('return_url', 'text')
        .addColumn('consented_at', TIMESTAMP)
        .addColumn('expires_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('abandon_reason', 'text')
        .addColumn('failed_logins', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('updated_at', TIMESTAMP, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('connect_sessions_scope_seq').on('connect_sessions').columns(['client_id', 'mode', 'seq']).execute();
      await db.schema
        .createIndex('connect_sessions_holder_seq')
        .on('connect_sessions')
        .columns(['client_id', 'mode', 'account_holder_id', 'seq'])
        .execute();

      await withSequence(db.schema.createTable('connect_accounts'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('client_id', 'text', (col) => col.notNull().references('clients.id'))
        .addColumn('mode', 'text', (col) => col.notNull().check(modeCheck()))
        .addColumn('account_holder_id', 'text', (col) => col.notNull().references('account_holders.id'))
        .addColumn('session_id', 'text', (col) => col.notNull().references('connect_sessions.id'))
        .addColumn('provider_type', 'text', (col) => col.notNull())
        .addColumn('provider_id', 'text', (col) => col.notNull())
        .addColumn('provider_name', 'text', (col) => col.notNull())
        .addColumn('display_name', 'text', (col) => col.notNull())
        .addColumn('permissions', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('connection_sealed', 'text', (col) => col.notNull())
        .addColumn('balance_refresh', 'text')
        .addColumn('transaction_refresh', 'text')
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('updated_at', TIMESTAMP, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('connect_accounts_scope_seq').on('connect_accounts').columns(['client_id', 'mode', 'seq']).execute();
      await db.schema.createIndex('connect_accounts_session').on('connect_accounts').columns(['session_id']).execute();

      await withSequence(db.schema.createTable('connect_account_balances'), capabilities)
        .addColumn('account_id', 'text', (col) => col.notNull().references('connect_accounts.id'))
        .addColumn('asset', 'text', (col) => col.notNull())
        .addColumn('available', 'text', (col) => col.notNull())
        .addColumn('total', 'text', (col) => col.notNull())
        .addColumn('as_of', TIMESTAMP, (col) => col.notNull())
        .addUniqueConstraint('connect_account_balances_asset', ['account_id', 'asset'])
        .execute();

      await withSequence(db.schema.createTable('connect_account_transactions'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('account_id', 'text', (col) => col.notNull().references('connect_accounts.id'))
        .addColumn('provider_ref', 'text', (col) => col.notNull())
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('asset', 'text', (col) => col.notNull())
        .addColumn('amount', 'text', (col) => col.notNull())
        .addColumn('fee', 'text')
        .addColumn('fee_asset', 'text')
        .addColumn('occurred_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('tx_hash', 'text')
        .addColumn('description', 'text')
        .addUniqueConstraint('connect_account_transactions_ref', ['account_id', 'provider_ref'])
        .execute();
      await db.schema
        .createIndex('connect_account_transactions_order')
        .on('connect_account_transactions')
        .columns(['account_id', 'occurred_at', 'seq'])
        .execute();

      await withSequence(db.schema.createTable('connect_account_addresses'), capabilities)
        .addColumn('account_id', 'text', (col) => col.notNull().references('connect_accounts.id'))
        .addColumn('address', 'text', (col) => col.notNull())
        .addColumn('asset', 'text', (col) => col.notNull())
        .addColumn('network', 'text', (col) => col.notNull())
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('label', 'text')
        .addUniqueConstraint('connect_account_addresses_unique', ['account_id', 'asset', 'address'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const table of [
        'connect_account_addresses',
        'connect_account_transactions',
        'connect_account_balances',
        'connect_accounts',
        'connect_sessions',
      ]) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
