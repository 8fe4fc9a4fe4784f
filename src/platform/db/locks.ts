import { sql } from 'kysely';
import type { DatabaseHandle } from './database.js';

/**
 * Runs `fn` while holding a cross-process lock named by `key` (PostgreSQL advisory lock). Where the
 * engine has none (SQLite: one file, writers serialised), `fn` simply runs.
 */
export async function withAdvisoryLock<T>(handle: DatabaseHandle, key: string, fn: () => Promise<T>): Promise<T> {
  if (!handle.capabilities.supportsAdvisoryLocks) return fn();
  return handle.db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(hashtext(${key}))`.execute(connection);
    try {
      return await fn();
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(connection);
    }
  });
}
