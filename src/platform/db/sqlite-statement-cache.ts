import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * better-sqlite3 connection for Kysely that reuses prepared statements. Kysely's SQLite driver
 * prepares every query anew; preparing costs more than running a small indexed query, and the set of
 * distinct SQL strings an application issues is small, so a bounded LRU of statements pays off on
 * every request. Reuse is safe because Kysely hands the single connection to one query at a time.
 */
export function withStatementCache(database: SQLite.Database, capacity = 500): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => {
      cache.clear();
      database.close();
    },
    prepare(sql: string): SqliteStatement {
      const cached = cache.get(sql);
      if (cached) {
        // Re-insert to mark it most recently used.
        cache.delete(sql);
        cache.set(sql, cached);
        return cached;
      }
      const statement = database.prepare(sql) as unknown as SqliteStatement;
      cache.set(sql, statement);
      if (cache.size > capacity) cache.delete(cache.keys().next().value as string);
      return statement;
    },
  };
}
