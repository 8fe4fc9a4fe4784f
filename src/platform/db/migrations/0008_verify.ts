import { sql, type Kysely, type Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { modeCheck, TIMESTAMP, withSequence } from '../migration-helpers.js';

/** The verify domain: receipt signing keys, ownership challenges, claims and their grants to clients. */
export function verifyMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('verify_signing_keys'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('public_jwk', 'text', (col) => col.notNull())
        .addColumn('private_jwk_sealed', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull().check(sql`status in ('active', 'retired')`))
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('retired_at', TIMESTAMP)
        .execute();
      // At most one active key, also when two processes create the first one at the same moment.
      await db.schema
        .createIndex('verify_signing_keys_one_active')
        .on('verify_signing_keys')
        .column('status')
        .unique()
        .where(sql.ref('status'), '=', 'active')
        .execute();

      await withSequence(db.schema.createTable('verify_challenges'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('client_id', 'text', (col) => col.notNull().references('clients.id'))
        .addColumn('mode', 'text', (col) => col.notNull().check(modeCheck()))
        .addColumn('account_holder_id', 'text', (col) => col.notNull().references('account_holders.id'))
        .addColumn('method', 'text', (col) => col.notNull().check(sql`method in ('signature', 'deposit')`))
        .addColumn('subject', 'text', (col) => col.notNull())
        .addColumn('signing_address', 'text', (col) => col.notNull())
        .addColumn('signing_path', 'text')
        .addColumn('message', 'text', (col) => col.notNull())
        .addColumn('deposit_address', 'text')
        .addColumn('deposit_index', 'integer')
        .addColumn('deposit_amount', 'text')
        .addColumn('status', 'text', (col) => col.notNull().check(sql`status in ('open', 'used', 'expired', 'failed')`))
        .addColumn('failed_attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('origin', 'text', (col) => col.notNull())
        .addColumn('label', 'text')
        .addColumn('claim_id', 'text')
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('expires_at', TIMESTAMP, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('verify_challenges_holder').on('verify_challenges').columns(['account_holder_id', 'seq']).execute();
      // One service address per deposit challenge, ever (per mode: test and live derive from their own key).
      await db.schema
        .createIndex('verify_challenges_deposit_index')
        .on('verify_challenges')
        .columns(['mode', 'deposit_index'])
        .unique()
        .execute();

      await withSequence(db.schema.createTable('verify_claims'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('client_id', 'text', (col) => col.notNull().references('clients.id'))
        .addColumn('mode', 'text', (col) => col.notNull().check(modeCheck()))
        .addColumn('account_holder_id', 'text', (col) => col.notNull().references('account_holders.id'))
        .addColumn('statement', 'text', (col) => col.notNull())
        .addColumn('addresses', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull().check(sql`status in ('active', 'revoked')`))
        .addColumn('receipt', 'text', (col) => col.notNull())
        .addColumn('signing_key_id', 'text', (col) => col.notNull().references('verify_signing_keys.id'))
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('updated_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('revoked_at', TIMESTAMP)
        .execute();
      await db.schema.createIndex('verify_claims_holder').on('verify_claims').columns(['account_holder_id', 'seq']).execute();

      await withSequence(db.schema.createTable('verify_claim_grants'), capabilities)
        .addColumn('client_id', 'text', (col) => col.notNull().references('clients.id'))
        .addColumn('mode', 'text', (col) => col.notNull().check(modeCheck()))
        .addColumn('claim_id', 'text', (col) => col.notNull().references('verify_claims.id'))
        .addColumn('permissions', 'text', (col) => col.notNull())
        .addColumn('source', 'text', (col) => col.notNull())
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('revoked_at', TIMESTAMP)
        .addUniqueConstraint('verify_claim_grants_client_claim', ['client_id', 'claim_id'])
        .execute();
      await db.schema
        .createIndex('verify_claim_grants_scope_seq')
        .on('verify_claim_grants')
        .columns(['client_id', 'mode', 'seq'])
        .execute();
    },
  };
}
