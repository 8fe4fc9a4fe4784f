import { sql, type Kysely, type Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { modeCheck, TIMESTAMP, withSequence } from '../migration-helpers.js';

/**
 * Verify, part 3: statements of shared claims over a period. The computed figures are stored as
 * JSON text once the job completes and never recomputed; `summary` and `chain` are kept apart
 * from the full `data` so reads and lists never parse thousands of transactions.
 */
export function verifyStatementsMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('verify_statements'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('client_id', 'text', (col) => col.notNull().references('clients.id'))
        .addColumn('mode', 'text', (col) => col.notNull().check(modeCheck()))
        .addColumn('account_holder_id', 'text', (col) => col.notNull().references('account_holders.id'))
        .addColumn('claim_ids', 'text', (col) => col.notNull())
        .addColumn('period_open', TIMESTAMP, (col) => col.notNull())
        .addColumn('period_close', TIMESTAMP, (col) => col.notNull())
        .addColumn('timezone', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull().check(sql`status in ('pending', 'completed', 'failed')`))
        .addColumn('failure_reason', 'text')
        .addColumn('summary', 'text')
        .addColumn('chain', 'text')
        .addColumn('data', 'text')
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('updated_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('completed_at', TIMESTAMP)
        .addCheckConstraint('verify_statements_period', sql`period_open < period_close`)
        .execute();
      await db.schema.createIndex('verify_statements_scope_seq').on('verify_statements').columns(['client_id', 'mode', 'seq']).execute();
      await db.schema.createIndex('verify_statements_holder').on('verify_statements').columns(['account_holder_id', 'seq']).execute();
    },
  };
}
