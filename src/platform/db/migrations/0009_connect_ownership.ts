import type { Kysely, Migration } from 'kysely';

/**
 * Connect: an account connected as a self-custody wallet can carry the claim that proves its
 * holder controls it (the verify domain's `clm_…`), set when the ownership proof succeeds in the
 * connect flow. Null: not proven.
 */
export function connectOwnershipMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('connect_accounts').addColumn('claim_id', 'text').execute();
    },
  };
}
