import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Verify: who controls a claim (docs/verify.md, "Who controls a claim"). Each challenge and claim
 * records the e-mail identity it was proven under — the portal sign-in that proved it, or the
 * account holder's address when it was proven in a connect session — lower-cased as the portal
 * keys addresses. Only that identity manages the claim in the portal, so a client that changes an
 * account holder's e-mail hands the new address nothing proven under the old one.
 *
 * Rows from before: the holder's address now is the best record there is of who proved them.
 */
export function verifyClaimControllerMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const table of ['verify_challenges', 'verify_claims']) {
        await db.schema
          .alterTable(table)
          .addColumn('controller', 'text', (col) => col.notNull().defaultTo(''))
          .execute();
        await sql`UPDATE ${sql.table(table)} SET controller = (SELECT lower(h.email) FROM account_holders h WHERE h.id = ${sql.table(table)}.account_holder_id)`.execute(
          db,
        );
      }
      await db.schema.createIndex('verify_claims_controller').on('verify_claims').columns(['controller', 'seq']).execute();
    },
  };
}
