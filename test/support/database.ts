import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import type { DatabaseConfig } from '../../src/platform/config/config.js';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { randomBase62 } from '../../src/platform/crypto/random.js';
import { createDatabaseFromTemplate, databaseUrl, dropDatabase, testDatabaseUrl, withAdminClient } from './postgres.js';

export type Engine = 'sqlite' | 'postgres';

/**
 * The engines every storage and API test runs on. PostgreSQL joins when TEST_DATABASE_URL is set
 * (global setup prints a line when it is not). `DIALECTS=sqlite` or `DIALECTS=postgres` narrows it.
 */
export function engines(): Engine[] {
  const wanted = (process.env.DIALECTS ?? 'sqlite,postgres').split(',').map((s) => s.trim());
  const available: Engine[] = ['sqlite'];
  if (testDatabaseUrl()) available.push('postgres');
  return available.filter((engine) => wanted.includes(engine));
}

export interface TestDatabase {
  engine: Engine;
  config: DatabaseConfig;
  handle: DatabaseHandle;
  /** Closes the connection and deletes the database. */
  destroy(): Promise<void>;
}

/**
 * Where SQLite test databases are made: in memory (/dev/shm, a tmpfs) where the machine has one.
 * The service runs SQLite with `synchronous = FULL`, so every commit waits for fsync: on this
 * machine's disk a good part of a database-heavy test's time (binance.test.ts on SQLite spent 11
 * of its 62 s inside SQLite calls); on tmpfs fsync costs nothing, and SQLite behaves the same
 * otherwise. (A test run killed midway leaves its files there, in memory, as it would in /tmp.)
 */
const SQLITE_TEST_DIR = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

/**
 * A new database on the engine, for one test file or one test: migrated to the latest schema, or
 * with `migrated: false` completely empty.
 *
 * A PostgreSQL test database commits without waiting for its WAL to reach the disk
 * (`synchronous_commit = off`, set on the database, so every connection to it has it, the child
 * processes' too): the PostgreSQL counterpart of SQLite on tmpfs. Each commit waited for an fsync
 * of the shared server's disk, most of a database-heavy test's time (binance.test.ts, one run on
 * the loaded test machine: 87 s of tests on PostgreSQL against 32 s on SQLite, at 39 % CPU).
 * Nothing else changes: a committed transaction is visible to every other at once, locks and
 * isolation are the same; only a crash of the server itself could lose the last commits, and no
 * test crashes it.
 */
export async function createTestDatabase(engine: Engine, options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const migrated = options.migrated ?? true;
  if (engine === 'sqlite') {
    const dir = mkdtempSync(path.join(SQLITE_TEST_DIR, 'ownproof-test-'));
    const config: DatabaseConfig = { engine: 'sqlite', file: path.join(dir, 'test.sqlite') };
    const handle = openDatabase(config);
    if (migrated) await migrateToLatest(handle);
    return {
      engine,
      config,
      handle,
      destroy: async () => {
        await handle.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const serverUrl = testDatabaseUrl();
  const template = inject('pgTemplate');
  if (!serverUrl || !template) throw new Error('PostgreSQL tests need TEST_DATABASE_URL');
  const name = `${template}_${randomBase62(8).toLowerCase()}`;
  await createDatabaseFromTemplate(serverUrl, name, migrated ? template : 'template1');
  await withAdminClient(serverUrl, (client) => client.query(`ALTER DATABASE "${name}" SET synchronous_commit = off`));
  const config: DatabaseConfig = { engine: 'postgres', url: databaseUrl(serverUrl, name) };
  const handle = openDatabase(config, { poolSize: 5 });
  return {
    engine,
    config,
    handle,
    destroy: async () => {
      await handle.destroy();
      await dropDatabase(serverUrl, name);
    },
  };
}
