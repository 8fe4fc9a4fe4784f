import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';

/**
 * A database that cannot grow (its disk full; here SQLite's max_page_count reached, which fails
 * the same way, SQLITE_FULL) answers a write with 503 storage_full, saves nothing of it, and
 * answers reads as before. A real full disk, SQLite's and PostgreSQL's (disk_full), is filled in
 * src/platform/db/disk-full.processes.test.ts (it needs root to mount a tmpfs).
 */
describe('a write when the database is full', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    key = (await t.newClient()).testKey;
  });
  afterAll(() => t?.close());

  it('is refused with 503 storage_full, saves nothing, and reads go on', async () => {
    const create = (n: number) =>
      t.call(key, { method: 'POST', url: '/v1/connect/account_holders', json: { email: `full-${n}@example.com`, name: 'x'.repeat(200) } });
    expect((await create(0)).statusCode).toBe(200);
    const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(t.ctx.db)).rows[0]!.page_count;
    await sql.raw(`pragma max_page_count = ${pages}`).execute(t.ctx.db);
    let refused;
    let saved = 1;
    for (let n = 1; n < 500 && !refused; n++) {
      const response = await create(n);
      if (response.statusCode === 200) saved++;
      else refused = response;
    }
    expect(refused?.statusCode).toBe(503);
    expect(refused?.json().error).toMatchObject({
      type: 'api_error',
      code: 'storage_full',
      message: "The server's storage is full, so nothing was saved. Try again later; its operator has to free space.",
    });
    const listed = await t.call(key, { method: 'GET', url: '/v1/connect/account_holders?limit=100' });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data).toHaveLength(saved);
  });
});
