import { Migrator, sql, type Kysely, type MigrationResultSet } from 'kysely';
import type { DatabaseHandle } from './database.js';
import type { Database } from './schema.js';
import { allMigrations } from './migrations/index.js';

export interface MigrationOutcome {
  applied: string[];
}

/**
 * Brings the schema to the latest version. Safe to run from several processes at once:
 * - PostgreSQL: Kysely's migrator holds an advisory lock for the run and applies each migration in
 *   its own transaction, so a second runner waits and then finds nothing left to do.
 * - SQLite: Kysely's lock there is a no-op (it assumes one connection), so the whole run happens in
 *   one `BEGIN IMMEDIATE` transaction, which takes the file's write lock up front; other processes
 *   wait for it (busy timeout) instead of racing to create the same tables.
 */
export async function migrateToLatest(handle: DatabaseHandle): Promise<MigrationOutcome> {
  const provider = { getMigrations: async () => allMigrations(handle.capabilities) };
  let result: MigrationResultSet;
  if (handle.capabilities.supportsAdvisoryLocks) {
    result = await new Migrator({ db: handle.db, provider }).migrateToLatest();
  } else {
    result = await handle.db.connection().execute(async (connection) => {
      await sql`begin immediate`.execute(connection);
      try {
        const outcome = await new Migrator({ db: connection as Kysely<Database>, provider, disableTransactions: true }).migrateToLatest();
        await sql.raw(outcome.error ? 'rollback' : 'commit').execute(connection);
        return outcome;
      } catch (error) {
        await sql`rollback`.execute(connection);
        throw error;
      }
    });
  }
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    // No migration ran: the database itself failed (unreachable, wrong credentials...).
    if (!failed) throw result.error;
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`Migration ${failed.migrationName} failed: ${reason}`);
  }
  return { applied: (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
