import type { Kysely, Migration } from 'kysely';

/**
 * Verify: a statement valued in a fiat currency (issue 23). `valuation_currency` is what the
 * client asked for (null: none); `valuation` the period's figures in it as the API shows them, or
 * why there are none (JSON, once completed; the whole valuation is in `data`).
 */
export function verifyStatementValuationMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('verify_statements').addColumn('valuation_currency', 'text').execute();
      await db.schema.alterTable('verify_statements').addColumn('valuation', 'text').execute();
    },
  };
}
