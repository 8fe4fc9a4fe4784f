import SQLite from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { databaseEnv, startServe, type ServingProcess } from '../../../test/support/cli-process.js';
import { engines } from '../../../test/support/database.js';
import { createDatabaseFromTemplate, databaseUrl, dropDatabase, testDatabaseUrl, withAdminClient } from '../../../test/support/postgres.js';
import { randomBase62 } from '../crypto/random.js';
import { systemClock } from '../clock.js';
import { createClient } from '../../clients/client.service.js';
import type { DatabaseConfig } from '../config/config.js';
import { openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';

/**
 * A real disk that fills: a small tmpfs mounted for the test holds the database's files (the
 * SQLite file, or a PostgreSQL tablespace), and a filler file takes all but a few pages of it. The
 * server answers the writes that no longer fit with 503 storage_full, saves nothing of them, goes
 * on answering reads, takes writes again as soon as space is freed (no restart), and the database
 * is intact afterwards. Mounting needs root: CI runs as root on this machine's kind; elsewhere the
 * file is skipped (storage-full.test.ts checks the same answer with SQLite's max_page_count).
 */
const root = process.getuid?.() === 0;
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** A tmpfs of `mib` MiB, owned by `owner` (a user name), mounted on a new directory. */
function mountTmpfs(mib: number, owner?: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ownproof-full-disk-'));
  const ids =
    owner === undefined
      ? []
      : [`uid=${execFileSync('id', ['-u', owner]).toString().trim()}`, `gid=${execFileSync('id', ['-g', owner]).toString().trim()}`];
  execFileSync('mount', ['-t', 'tmpfs', '-o', ['size=' + mib + 'm', 'mode=0700', ...ids].join(','), 'tmpfs', dir]);
  cleanups.push(async () => {
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Fills the file system of `dir` up to `leftKiB` free. Returns a function that frees it again. */
function fill(dir: string, leftKiB: number): () => void {
  const { bavail, bsize } = statfsSync(dir);
  const filler = path.join(dir, 'filler');
  writeFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - leftKiB * 1024)));
  return () => rmSync(filler);
}

/** Writes account holders until one is refused; returns how many were saved and the refusal. */
async function writeUntilRefused(url: string, apiKey: string): Promise<{ saved: number; refusal: Response; body: unknown }> {
  for (let n = 0, saved = 0; n < 5_000; n++) {
    const response = await create(url, apiKey, n);
    if (response.status !== 200) return { saved, refusal: response, body: await response.json() };
    saved++;
  }
  throw new Error('the disk never filled');
}

const create = (url: string, apiKey: string, n: number) =>
  fetch(`${url}/v1/connect/account_holders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: `full-${n}@example.com`, name: 'x'.repeat(200) }),
  });

const count = async (url: string, apiKey: string) => {
  let total = 0;
  for (let after: string | undefined; ;) {
    const response = await fetch(`${url}/v1/connect/account_holders?limit=100${after ? `&starting_after=${after}` : ''}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(response.status).toBe(200);
    const page = (await response.json()) as { data: { id: string }[]; has_more: boolean };
    total += page.data.length;
    if (!page.has_more) return total;
    after = page.data.at(-1)?.id;
  }
};

/** The run every engine goes through once its database sits on `disk`. */
async function fillAndRecover(config: DatabaseConfig, disk: string): Promise<void> {
  const handle = openDatabase(config);
  if (config.engine === 'sqlite') await migrateToLatest(handle);
  const apiKey = (await createClient({ db: handle.db, clock: systemClock }, { name: 'Full disk' })).testKey;
  await handle.destroy();

  const dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-full-data-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const serve: ServingProcess = await startServe({ ...databaseEnv(config), DATA_DIR: dataDir });
  cleanups.push(() => serve.process.stop('SIGKILL'));
  expect((await create(serve.url, apiKey, -1)).status).toBe(200);

  const free = fill(disk, 64);
  const { saved, refusal, body } = await writeUntilRefused(serve.url, apiKey);
  expect(refusal.status).toBe(503);
  expect(body).toMatchObject({ error: { type: 'api_error', code: 'storage_full' } });
  // Reads go on, and hold exactly what was answered 200.
  expect(await count(serve.url, apiKey)).toBe(1 + saved);

  free();
  expect((await create(serve.url, apiKey, 9_999)).status).toBe(200);
  expect(await count(serve.url, apiKey)).toBe(2 + saved);
  expect(serve.process.output()).not.toMatch(/\n\s+at /); // no stack trace in the logs
  await serve.process.stop('SIGTERM');
}

describe.skipIf(!root)('a disk that fills under a running server', () => {
  it.runIf(engines().includes('sqlite'))(
    'SQLite: 503 storage_full, reads go on, writes again once space is freed, the file intact',
    async () => {
      const disk = mountTmpfs(8);
      const file = path.join(disk, 'ownproof.sqlite');
      await fillAndRecover({ engine: 'sqlite', file }, disk);
      const reopened = new SQLite(file);
      try {
        expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        reopened.close();
      }
    },
    120_000,
  );

  it.runIf(engines().includes('postgres'))(
    'PostgreSQL (a tablespace on the full disk): the same, disk_full answered as storage_full',
    async () => {
      const serverUrl = testDatabaseUrl() as string;
      const disk = mountTmpfs(48, 'postgres');
      const template = inject('pgTemplate') as string;
      const name = `${template}_full_${randomBase62(6).toLowerCase()}`;
      await withAdminClient(serverUrl, (client) => client.query(`CREATE TABLESPACE "${name}" LOCATION '${disk}'`));
      cleanups.push(() => withAdminClient(serverUrl, (client) => client.query(`DROP TABLESPACE IF EXISTS "${name}"`)));
      await createDatabaseFromTemplate(serverUrl, name, template, name);
      cleanups.push(() => dropDatabase(serverUrl, name));
      await fillAndRecover({ engine: 'postgres', url: databaseUrl(serverUrl, name) }, disk);
      await withAdminClient(databaseUrl(serverUrl, name), async (client) => {
        // Every table and index still reads whole.
        const tables = await client.query<{ relname: string }>(`select relname from pg_stat_user_tables`);
        for (const { relname } of tables.rows) await client.query(`select count(*) from "${relname}"`);
        expect(tables.rows.length).toBeGreaterThan(10);
      });
    },
    120_000,
  );
});
