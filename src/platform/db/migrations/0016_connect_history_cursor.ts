import type { Kysely, Migration } from 'kysely';

/**
 * Connect: where the next transaction refresh of an account resumes (its provider's opaque cursor,
 * e.g. the time of the newest exchange ledger entry read), so a refresh reads only what is new.
 * Null: read the whole history. Written only when a refresh read every page.
 */
export function connectHistoryCursorMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('connect_accounts').addColumn('transaction_cursor', 'text').execute();
    },
  };
}
