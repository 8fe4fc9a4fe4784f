import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseEnv, startServe, type ServingProcess } from '../../../test/support/cli-process.js';
import { createTestDatabase, engines, type TestDatabase } from '../../../test/support/database.js';
import { createClient } from '../../clients/client.service.js';
import { systemClock } from '../clock.js';

describe.runIf(engines().includes('postgres'))('rate limits across processes on PostgreSQL', () => {
  const LIMIT = 10;
  let database: TestDatabase;
  let dataDir: string;
  let servers: ServingProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-ratelimit-'));
    const env = { ...databaseEnv(database.config), DATA_DIR: dataDir, RATE_LIMIT_PER_SECOND: String(LIMIT), RATE_LIMIT_BURST: '0' };
    servers = await Promise.all([startServe(env, ['--no-worker']), startServe(env, ['--no-worker'])]);
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.process.stop()));
    await database.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('holds one client’s limit across two server processes', async () => {
    const deps = { db: database.handle.db, clock: systemClock };
    const warmUp = await createClient(deps, { name: 'Warm-up' });
    const client = await createClient(deps, { name: 'Shared limit' });
    const fetchFrom = (server: ServingProcess, key: string) =>
      fetch(`${server.url}/v1/connect/account_holders`, { headers: { authorization: `Bearer ${key}` } });
    // First requests open connections and compile routes; keep that out of the measured second.
    for (const server of servers) expect((await fetchFrom(server, warmUp.testKey)).status).toBe(200);

    const responses = await Promise.all(Array.from({ length: 3 * LIMIT }, (_, i) => fetchFrom(servers[i % 2]!, client.testKey)));
    const ok = responses.filter((r) => r.status === 200);
    // Each process alone would allow LIMIT; together they allow LIMIT, counted once.
    expect(ok).toHaveLength(LIMIT);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(2 * LIMIT);
    const remaining = ok.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, i) => i));
    for (const r of responses) expect(r.headers.get('ratelimit-limit')).toBe(String(LIMIT));
  });

  it('holds the public routes’ per-address limit across two server processes', async () => {
    const PER_MINUTE = 60;
    const jwks = (server: ServingProcess) => fetch(`${server.url}/.well-known/jwks.json`);
    const responses = await Promise.all(Array.from({ length: 2 * PER_MINUTE }, (_, i) => jwks(servers[i % 2]!)));
    // Both processes see the same address (loopback): one allowance of 60 between them, not 60 each.
    expect(responses.filter((r) => r.status === 200)).toHaveLength(PER_MINUTE);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(PER_MINUTE);
    for (const r of responses) expect(r.headers.get('ratelimit-limit')).toBe(String(PER_MINUTE));
  });
});
