import type { TestProject } from 'vitest/node';
import { buildDist } from '../../scripts/build.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { databaseUrl, dropDatabase, testDatabaseUrl, withAdminClient } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgTemplate: string | undefined;
  }
}

/**
 * Once per `npm test`: build dist/ from the sources under test, since the tests that run the
 * `ownproof` binary run dist/ (a build left from older sources would test them instead); then
 * migrate a PostgreSQL template database that every test file copies, so each file gets its own
 * fresh database in milliseconds. Without TEST_DATABASE_URL, say so plainly.
 */
export default async function setup(project: TestProject) {
  await buildDist();
  const serverUrl = testDatabaseUrl();
  if (!serverUrl) {
    console.warn('\n[ownproof] PostgreSQL tests skipped: TEST_DATABASE_URL is not set (SQLite tests run).\n');
    project.provide('pgTemplate', undefined);
    return;
  }
  const template = `ownproof_t_${Date.now().toString(36)}_${process.pid}`;
  await withAdminClient(serverUrl, async (client) => {
    // Leftovers of interrupted runs older than a day.
    const stale = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'ownproof\\_t%' AND datname <> $1`,
      [template],
    );
    for (const row of stale.rows) {
      const match = /^ownproof_t_([0-9a-z]+)_/.exec(row.datname);
      const startedAt = match?.[1] ? parseInt(match[1], 36) : 0;
      if (Date.now() - startedAt > 24 * 3600 * 1000) {
        await client.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`).catch(() => undefined);
      }
    }
    await client.query(`CREATE DATABASE "${template}"`);
  });
  const handle = openDatabase({ engine: 'postgres', url: databaseUrl(serverUrl, template) }, { poolSize: 1 });
  try {
    await migrateToLatest(handle);
  } finally {
    await handle.destroy();
  }
  project.provide('pgTemplate', template);
  return async () => {
    await dropDatabase(serverUrl, template);
  };
}
