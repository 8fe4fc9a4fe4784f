import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  databaseEnv,
  packagesAmong,
  runOwnproof,
  runOwnproofHere,
  runOwnproofTracingModules,
  startNodeProcess,
  startServe,
} from '../../test/support/cli-process.js';
import { createTestDatabase, engines, type TestDatabase } from '../../test/support/database.js';

describe.each(engines())('ownproof CLI on %s', (engine) => {
  let database: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    env = databaseEnv(database.config);
  });
  afterAll(() => database.destroy());

  // Through the binary once per engine; the other checks of the command tree run it in this process.
  it('client create --json prints exactly one JSON object with working keys stored only as hashes', async () => {
    const run = await runOwnproof(['client', 'create', '--name', 'Acme Lending', '--json'], env);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const created = JSON.parse(run.stdout);
    expect(Object.keys(created).sort()).toEqual(['client_id', 'live_key', 'test_key']);
    expect(created.client_id).toMatch(/^cli_/);
    expect(created.test_key).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(created.live_key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);

    const keys = await database.handle.db.selectFrom('api_keys').selectAll().where('client_id', '=', created.client_id).execute();
    expect(keys.map((k) => k.mode).sort()).toEqual(['live', 'test']);
    const stored = JSON.stringify(keys);
    expect(stored).not.toContain(created.test_key);
    expect(stored).not.toContain(created.live_key.slice(8));
  });

  it('client create without --json explains that keys are shown once', async () => {
    const run = await runOwnproofHere(['client', 'create', '--name', 'Human'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/test key: sk_test_/);
    expect(run.stdout).toMatch(/shown only now/);
  });

  it('client create refuses a missing or empty --name', async () => {
    const missing = await runOwnproofHere(['client', 'create'], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--name/);
    const empty = await runOwnproofHere(['client', 'create', '--name', ' '], env);
    expect(empty.code).toBe(1);
    expect(empty.stderr.trim()).toBe('ownproof: --name must be 1 to 200 characters');
  });

  it('key roll issues a new key and gives the old one the grace period asked for', async () => {
    const created = JSON.parse((await runOwnproofHere(['client', 'create', '--name', 'Roller', '--json'], env)).stdout);
    const run = await runOwnproofHere(['key', 'roll', '--client', created.client_id, '--mode', 'live', '--grace', '3600', '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    const rolled = JSON.parse(run.stdout);
    expect(rolled.key).toMatch(/^sk_live_/);
    const keys = await database.handle.db
      .selectFrom('api_keys')
      .selectAll()
      .where('client_id', '=', created.client_id)
      .where('mode', '=', 'live')
      .orderBy('seq')
      .execute();
    expect(keys).toHaveLength(2);
    expect(keys[0]?.expires_at).toBe(rolled.old_keys_expire_at);
    expect(keys[0]?.revoked_at).toBeNull();
    expect(keys[1]?.expires_at).toBeNull();
  });

  it.each([
    [['key', 'roll', '--client', 'cli_nope', '--mode', 'test'], /^ownproof: no client with id cli_nope$/],
    [['key', 'roll', '--client', 'cli_nope', '--mode', 'prod'], /mode/],
    [['key', 'roll', '--client', 'cli_nope', '--mode', 'test', '--grace', 'soon'], /grace/],
  ])('key roll %j fails with a clear message', async (args, message) => {
    const run = await runOwnproofHere(args, env);
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim()).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('ownproof CLI configuration', () => {
  it.each([
    [{ PORT: 'abc' }, 'ownproof: Invalid configuration: PORT must be a whole number from 0 to 65535 (got "abc")'],
    [
      { DATABASE_URL: 'mysql://x' },
      'ownproof: Invalid configuration: DATABASE_URL must start with postgres://, postgresql:// or sqlite: (the value is not shown because it may hold a password)',
    ],
    [
      { NODE_ENV: 'production' },
      'ownproof: Invalid configuration: MASTER_KEY is required when NODE_ENV=production (32 bytes as 64 hex characters or base64)',
    ],
  ])('stops on %j with exactly one line naming the variable', async (env, line) => {
    const run = await runOwnproof(['migrate'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`${line}\n`);
    expect(run.stdout).toBe('');
  });

  it('reports an unreachable PostgreSQL in one line', async () => {
    const run = await runOwnproof(['migrate'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^ownproof: cannot reach the database/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('ownproof start-up', () => {
  it('--help runs the compiled JavaScript and loads commander and dotenv alone: no server, database, logger, metrics or tsx', async () => {
    const run = await runOwnproofTracingModules(['--help']);
    expect(run.code).toBe(0);
    const listed = [...run.stdout.matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1]);
    expect(listed).toEqual([
      'serve',
      'worker',
      'migrate',
      'jobs',
      'keys',
      'client',
      'key',
      'verify-message',
      'sandbox',
      'verify-claim',
      'verify-statement',
      'help',
    ]);
    expect(run.modules).toContain(pathToFileURL(path.resolve(BIN, '../../dist/main/cli.js')).href);
    expect(run.modules.filter((url) => url.startsWith(pathToFileURL(path.resolve(BIN, '../../src')).href))).toEqual([]);
    expect(packagesAmong(run.modules)).toEqual(['commander', 'dotenv']);
  });
});

describe('ownproof worker', () => {
  it('runs until SIGTERM, then stops cleanly', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-worker-cli-'));
    const worker = startNodeProcess([BIN, 'worker'], { DATA_DIR: dataDir });
    try {
      const banner = await worker.waitForLine(/ownproof worker .* is running/);
      expect(banner).toMatch(/SQLite .*ownproof\.sqlite, concurrency 16/);
      // Still running a moment later: the worker itself keeps the process alive.
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(worker.child.exitCode).toBeNull();
      expect(await worker.stop('SIGTERM')).toBe(0);
    } finally {
      await worker.stop('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('ownproof serve', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-serve-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts on an empty DATA_DIR, prints the URLs and a working test key once, and stops on SIGTERM', async () => {
    const first = await startServe({ DATA_DIR: dataDir });
    expect(first.banner).toMatch(/API base URL: +http:\/\/127\.0\.0\.1:\d+\/v1/);
    // Every page surface is listed at the port actually bound.
    const port = new URL(first.url).port;
    expect(first.banner).toContain(`  Pages (connect):   http://127.0.0.1:${port}/connect\n`);
    expect(first.banner).toMatch(/API reference: +http:\/\/127\.0\.0\.1:\d+\/docs/);
    const key = /sk_test_[0-9A-Za-z]{32}/.exec(first.banner)?.[0];
    expect(key).toBeDefined();
    expect(existsSync(path.join(dataDir, 'ownproof.sqlite'))).toBe(true);
    expect(existsSync(path.join(dataDir, 'master.key'))).toBe(true);

    const res = await fetch(`${first.url}/v1/connect/account_holders`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    expect(await first.process.stop()).toBe(0);

    const second = await startServe({ DATA_DIR: dataDir });
    expect(second.banner).not.toMatch(/sk_test_/);
    const again = await fetch(`${second.url}/v1/connect/account_holders`, { headers: { authorization: `Bearer ${key}` } });
    expect(again.status).toBe(200);
    expect(await second.process.stop()).toBe(0);
  });
});
