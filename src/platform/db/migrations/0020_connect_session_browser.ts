import type { Kysely, Migration } from 'kysely';

/**
 * Connect: the browser a session belongs to once the person accepted its disclaimer — the SHA-256
 * of a token in an HttpOnly cookie of that browser (src/connect/connect.table.ts). The client holds
 * the hosted URL too; from then on only that browser acts on the session, so the client cannot
 * press Done on the person's behalf. Null: not accepted yet (or accepted before this version).
 */
export function connectSessionBrowserMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('connect_sessions').addColumn('browser_hash', 'text').execute();
    },
  };
}
