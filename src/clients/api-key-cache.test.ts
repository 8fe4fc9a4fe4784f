import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../test/support/clock.js';
import { createTestDatabase, engines, type TestDatabase } from '../../test/support/database.js';
import { createApiKeyAuthenticator } from './api-key-cache.js';
import { createClient, rollApiKey } from './client.service.js';

describe.each(engines())('API key authentication cache on %s', (engine) => {
  let database: TestDatabase;
  const clock = new TestClock();
  const deps = () => ({ db: database.handle.db, clock });

  beforeAll(async () => {
    database = await createTestDatabase(engine);
  });
  afterAll(() => database.destroy());

  it('keeps accepting a key revoked in another process until the cache entry ages out, then refuses it', async () => {
    const created = await createClient(deps(), { name: 'Cache' });
    const authenticate = createApiKeyAuthenticator(deps(), { ttlMs: 2_000, maxEntries: 10 });
    expect(await authenticate(created.testKey)).toMatchObject({ ok: true, scope: { clientId: created.clientId, mode: 'test' } });
    await rollApiKey(deps(), { clientId: created.clientId, mode: 'test', graceSeconds: 0 });
    expect((await authenticate(created.testKey)).ok).toBe(true);
    clock.advance(2.001);
    expect(await authenticate(created.testKey)).toEqual({ ok: false, code: 'api_key_revoked' });
  });

  it('never trusts a cached key past its own grace expiry', async () => {
    const created = await createClient(deps(), { name: 'Grace' });
    await rollApiKey(deps(), { clientId: created.clientId, mode: 'live', graceSeconds: 1 });
    const authenticate = createApiKeyAuthenticator(deps(), { ttlMs: 60_000, maxEntries: 10 });
    expect((await authenticate(created.liveKey as string)).ok).toBe(true);
    clock.advance(1.5);
    expect(await authenticate(created.liveKey as string)).toEqual({ ok: false, code: 'api_key_revoked' });
  });

  it('does not remember failures: a key is checked against the database every time until it works', async () => {
    const authenticate = createApiKeyAuthenticator(deps(), { ttlMs: 60_000, maxEntries: 10 });
    const unknown = `sk_test_${'Q'.repeat(32)}`;
    expect(await authenticate(unknown)).toEqual({ ok: false, code: 'api_key_invalid' });
    expect(await authenticate('sk_test_short')).toEqual({ ok: false, code: 'api_key_malformed' });
  });
});
