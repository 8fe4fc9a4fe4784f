import SQLite from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseEnv, startServe, type ServingProcess } from '../../../test/support/cli-process.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { eventually } from '../../../test/support/eventually.js';
import { createClient } from '../../clients/client.service.js';
import { systemClock } from '../clock.js';

/**
 * `ownproof serve` on SQLite killed with SIGKILL while it writes: the file opens again intact
 * (`PRAGMA integrity_check`), every write the server answered 200 to is in it, and a server
 * started on it afterwards serves as before. WAL with `synchronous = FULL` (database.ts): a
 * transaction is on disk once its commit returns, whatever happens to the process after.
 */
describe('a SQLite server killed mid-write', () => {
  let database: TestDatabase;
  let dataDir: string;
  let serve: ServingProcess | undefined;
  let apiKey: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-sqlite-crash-'));
    apiKey = (await createClient({ db: database.handle.db, clock: systemClock }, { name: 'Crash' })).testKey;
  }, 60_000);
  afterAll(async () => {
    await serve?.process.stop('SIGKILL');
    await database?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('opens intact, with every answered write, and serves again', async () => {
    const env = { ...databaseEnv(database.config), DATA_DIR: dataDir };
    serve = await startServe(env);
    const url = serve.url;
    const answered: string[] = [];
    let writing = true;
    // Eight writers, each creating account holders one after another until the kill.
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let n = 0; writing; n++) {
        try {
          const response = await fetch(`${url}/v1/connect/account_holders`, {
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ email: `crash-${w}-${n}@example.com` }),
          });
          if (response.status === 200) answered.push(((await response.json()) as { id: string }).id);
        } catch {
          return; // the server is gone
        }
      }
    });
    // Killed once the writers are well under way: dozens of writes answered, eight more in flight.
    await eventually(() => answered.length >= 50, 30_000);
    await serve.process.stop('SIGKILL');
    writing = false;
    await Promise.all(writers);

    const file = (database.config as { file: string }).file;
    const reopened = new SQLite(file);
    try {
      expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
      const stored = new Set((reopened.prepare('select id from account_holders').all() as { id: string }[]).map((row) => row.id));
      expect(answered.filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      reopened.close();
    }

    serve = await startServe(env);
    const again = await fetch(`${serve.url}/v1/connect/account_holders?limit=1`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(again.status).toBe(200);
  }, 120_000);
});
