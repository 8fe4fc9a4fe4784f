import { Migrator, type MigrationResultSet } from 'kysely';
import type { DatabaseHandle } from './database.js';
import { allMigrations } from './migrations/index.js';

export interface MigrationOutcome {
  applied: string[];
}

/**
 * Brings the schema to the latest version. Safe to run from several processes at once: Kysely's
 * migrator holds a PostgreSQL advisory lock (and SQLite serialises writers) for the whole run, and
 * runs each migration in a transaction, so a second runner finds nothing left to do.
 */
export async function migrateToLatest(handle: DatabaseHandle): Promise<MigrationOutcome> {
  const migrator = new Migrator({
    db: handle.db,
    provider: { getMigrations: async () => allMigrations(handle.capabilities) },
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${String((result.error as Error)?.message ?? result.error)}`);
  }
  return { applied: (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
