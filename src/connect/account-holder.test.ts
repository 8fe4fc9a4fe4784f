import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../test/support/database.js';
import { startTestApp, type TestApp, type TestClient } from '../../test/support/test-app.js';

describe.each(engines())('account holders API on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  const create = (json: unknown, key = client.testKey) => t.call(key, { method: 'POST', url: '/v1/connect/account_holders', json });

  beforeAll(async () => {
    t = await startTestApp(engine);
    client = await t.newClient();
  });
  afterAll(() => t.close());

  it('creates an account holder and returns every documented field', async () => {
    const res = await create({ email: 'ada@example.com', name: 'Ada Lovelace', external_ref: 'user-1', metadata: { plan: 'gold' } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^ah_[0-9A-Za-z]{22}$/),
      object: 'account_holder',
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      external_ref: 'user-1',
      metadata: { plan: 'gold' },
      livemode: false,
      created_at: expect.any(Number),
      updated_at: body.created_at,
    });
    expect(Math.abs(body.created_at - Date.now() / 1000)).toBeLessThan(5);
  });

  it('defaults name and external_ref to null and metadata to an empty object', async () => {
    const res = await create({ email: 'min@example.com' });
    expect(res.json()).toMatchObject({ name: null, external_ref: null, metadata: {} });
  });

  it('retrieves an account holder by id, with or without a trailing slash and under /api', async () => {
    const created = (await create({ email: 'get@example.com' })).json();
    for (const url of [
      `/v1/connect/account_holders/${created.id}`,
      `/v1/connect/account_holders/${created.id}/`,
      `/api/v1/connect/account_holders/${created.id}`,
    ]) {
      const res = await t.call(client.testKey, { method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.json()).toEqual(created);
    }
  });

  it('answers 404 resource_missing for an unknown id', async () => {
    const res = await t.call(client.testKey, { method: 'GET', url: '/v1/connect/account_holders/ah_doesnotexist' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing', param: 'id' });
  });

  it('rejects a second account holder with the same external_ref with 409 and creates nothing', async () => {
    await create({ email: 'one@example.com', external_ref: 'dup-ref' });
    const before = await countHolders();
    const res = await create({ email: 'two@example.com', external_ref: 'dup-ref' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'external_ref_taken', param: 'external_ref' });
    expect(await countHolders()).toBe(before);
  });

  it('allows the same external_ref in the other mode and for another client', async () => {
    await create({ email: 'a@example.com', external_ref: 'shared-ref' });
    expect((await create({ email: 'b@example.com', external_ref: 'shared-ref' }, client.liveKey)).statusCode).toBe(200);
    const other = await t.newClient();
    expect((await create({ email: 'c@example.com', external_ref: 'shared-ref' }, other.testKey)).statusCode).toBe(200);
  });

  it.each([
    [{}, 400, 'parameter_missing', 'email'],
    [{ email: 'not-an-email' }, 400, 'parameter_invalid', 'email'],
    [{ email: ' ada@example.com' }, 400, 'parameter_invalid', 'email'],
    [{ email: 42 }, 400, 'parameter_invalid', 'email'],
    [{ email: `${'a'.repeat(250)}@example.com` }, 400, 'parameter_invalid', 'email'],
    [{ email: 'a@example.com', nickname: 'x' }, 400, 'parameter_unknown', 'nickname'],
    [{ email: 'a@example.com', name: '' }, 400, 'parameter_invalid', 'name'],
    [{ email: 'a@example.com', name: 'x'.repeat(201) }, 400, 'parameter_invalid', 'name'],
    [{ email: 'a@example.com', external_ref: '' }, 400, 'parameter_invalid', 'external_ref'],
    [{ email: 'a@example.com', metadata: { k: 1 } }, 400, 'parameter_invalid', 'metadata[k]'],
    [{ email: 'a@example.com', metadata: { k: 'v'.repeat(501) } }, 400, 'parameter_invalid', 'metadata[k]'],
    [{ email: 'a@example.com', metadata: { ['k'.repeat(41)]: 'v' } }, 400, 'parameter_invalid', 'metadata'],
    [
      { email: 'a@example.com', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) },
      400,
      'parameter_invalid',
      'metadata',
    ],
    [{ email: 'a@example.com', metadata: 'text' }, 400, 'parameter_invalid', 'metadata'],
  ])('rejects %j with %i %s naming %s, and creates nothing', async (json, status, code, param) => {
    const before = await countHolders();
    const res = await create(json);
    expect(res.statusCode).toBe(status);
    const { error } = res.json();
    expect(error).toMatchObject({ type: 'invalid_request_error', code, param });
    expect(error.message).toContain(param.split('[')[0]);
    expect(error.request_id).toBe(res.headers['request-id']);
    expect(await countHolders()).toBe(before);
  });

  it('accepts exactly 50 metadata keys of 40 characters with 500-character values', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${i}`.padStart(40, 'k'), 'v'.repeat(500)]));
    const res = await create({ email: 'max@example.com', metadata });
    expect(res.statusCode).toBe(200);
    expect(res.json().metadata).toEqual(metadata);
  });

  it('rejects a body that is JSON but not an object', async () => {
    const res = await t.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: ['email'] });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('body_invalid');
  });

  it('names the missing field when a POST has no body at all', async () => {
    const res = await t.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_missing', param: 'email' });
  });

  it('refuses a query parameter on create, retrieve and update alike, and creates or changes nothing', async () => {
    const holder = (await create({ email: 'query@example.com' })).json();
    const before = await countHolders();
    for (const request of [
      { method: 'POST' as const, url: '/v1/connect/account_holders?foo=1', json: { email: 'query2@example.com' } },
      { method: 'GET' as const, url: `/v1/connect/account_holders/${holder.id}?foo=1` },
      { method: 'POST' as const, url: `/v1/connect/account_holders/${holder.id}?foo=1`, json: { name: 'Changed' } },
    ]) {
      const res = await t.call(client.testKey, request);
      expect(res.statusCode, request.url).toBe(400);
      expect(res.json().error, request.url).toMatchObject({ code: 'parameter_unknown', param: 'foo' });
    }
    expect(await countHolders()).toBe(before);
    expect((await t.call(client.testKey, { method: 'GET', url: `/v1/connect/account_holders/${holder.id}` })).json()).toEqual(holder);
  });

  describe('update', () => {
    it('changes e-mail and name, merges metadata and removes keys set to ""', async () => {
      const created = (await create({ email: 'old@example.com', name: 'Old', metadata: { a: '1', b: '2' } })).json();
      t.clock.advance(5);
      const res = await t.call(client.testKey, {
        method: 'POST',
        url: `/v1/connect/account_holders/${created.id}`,
        json: { email: 'new@example.com', name: 'New', metadata: { b: '', c: '3' } },
      });
      expect(res.statusCode).toBe(200);
      const updated = res.json();
      expect(updated).toMatchObject({ id: created.id, email: 'new@example.com', name: 'New', metadata: { a: '1', c: '3' } });
      expect(updated.created_at).toBe(created.created_at);
      expect(updated.updated_at).toBeGreaterThanOrEqual(created.created_at + 5);
      const fetched = await t.call(client.testKey, { method: 'GET', url: `/v1/connect/account_holders/${created.id}` });
      expect(fetched.json()).toEqual(updated);
    });

    it('clears the name with null and keeps fields that are not sent', async () => {
      const created = (await create({ email: 'keep@example.com', name: 'Name', external_ref: 'keep-ref' })).json();
      const res = await t.call(client.testKey, { method: 'POST', url: `/v1/connect/account_holders/${created.id}`, json: { name: null } });
      expect(res.json()).toMatchObject({ email: 'keep@example.com', name: null, external_ref: 'keep-ref' });
    });

    it('refuses metadata that would exceed 50 keys after merging, and changes nothing', async () => {
      const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
      const created = (await create({ email: 'full@example.com', metadata })).json();
      const res = await t.call(client.testKey, {
        method: 'POST',
        url: `/v1/connect/account_holders/${created.id}`,
        json: { name: 'Changed', metadata: { extra: 'x' } },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'metadata' });
      const fetched = await t.call(client.testKey, { method: 'GET', url: `/v1/connect/account_holders/${created.id}` });
      expect(fetched.json()).toEqual(created);
    });

    it('refuses an external_ref taken by another holder with 409 and changes nothing', async () => {
      await create({ email: 'x@example.com', external_ref: 'taken-ref' });
      const created = (await create({ email: 'y@example.com', name: 'Y' })).json();
      const res = await t.call(client.testKey, {
        method: 'POST',
        url: `/v1/connect/account_holders/${created.id}`,
        json: { name: 'Changed', external_ref: 'taken-ref' },
      });
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('external_ref_taken');
      const fetched = await t.call(client.testKey, { method: 'GET', url: `/v1/connect/account_holders/${created.id}` });
      expect(fetched.json()).toEqual(created);
    });

    it('rejects unknown fields, including ones that exist but cannot be changed', async () => {
      const created = (await create({ email: 'u@example.com' })).json();
      for (const field of ['livemode', 'id', 'created_at']) {
        const res = await t.call(client.testKey, {
          method: 'POST',
          url: `/v1/connect/account_holders/${created.id}`,
          json: { [field]: 1 },
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'parameter_unknown', param: field });
      }
    });

    it('answers 404 for an unknown id', async () => {
      const res = await t.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders/ah_nope', json: { name: 'x' } });
      expect(res.statusCode).toBe(404);
    });
  });

  describe('isolation', () => {
    it("hides another client's account holder exactly as a missing one, for reads and writes", async () => {
      const other = await t.newClient('Other');
      const mine = (await create({ email: 'mine@example.com' })).json();
      const missing = await t.call(other.testKey, { method: 'GET', url: '/v1/connect/account_holders/ah_missing00000000000000' });
      for (const request of [
        { method: 'GET' as const, url: `/v1/connect/account_holders/${mine.id}` },
        { method: 'POST' as const, url: `/v1/connect/account_holders/${mine.id}`, json: { name: 'hijack' } },
      ]) {
        const res = await t.call(other.testKey, request);
        expect(res.statusCode).toBe(404);
        expect(res.json().error.code).toBe(missing.json().error.code);
        expect(res.json().error.message).toBe(`No such account_holder: '${mine.id}'.`);
      }
      const list = await t.call(other.testKey, { method: 'GET', url: '/v1/connect/account_holders?limit=100' });
      expect(list.json().data.map((h: { id: string }) => h.id)).not.toContain(mine.id);
      const unchanged = await t.call(client.testKey, { method: 'GET', url: `/v1/connect/account_holders/${mine.id}` });
      expect(unchanged.json().name).toBeNull();
    });

    it('hides test-mode objects from the live key of the same client', async () => {
      const testHolder = (await create({ email: 'test@example.com' })).json();
      const res = await t.call(client.liveKey, { method: 'GET', url: `/v1/connect/account_holders/${testHolder.id}` });
      expect(res.statusCode).toBe(404);
      const live = (await create({ email: 'live@example.com' }, client.liveKey)).json();
      expect(live.livemode).toBe(true);
      expect((await t.call(client.testKey, { method: 'GET', url: `/v1/connect/account_holders/${live.id}` })).statusCode).toBe(404);
    });

    it("refuses another tenant's id as a pagination cursor", async () => {
      const other = await t.newClient('Cursor');
      const mine = (await create({ email: 'cursor@example.com' })).json();
      const res = await t.call(other.testKey, { method: 'GET', url: `/v1/connect/account_holders?starting_after=${mine.id}` });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'starting_after' });
    });
  });

  describe('pagination', () => {
    it('pages newest first, forwards and backwards, staying stable while holders are inserted between pages', async () => {
      const tenant = await t.newClient('Paging');
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) ids.push((await create({ email: `p${i}@example.com` }, tenant.testKey)).json().id);
      const newestFirst = [...ids].reverse();
      const list = (query: string) =>
        t.call(tenant.testKey, { method: 'GET', url: `/v1/connect/account_holders?${query}` }).then((r) => r.json());

      const seen: string[] = [];
      let page = await list('limit=10');
      seen.push(...page.data.map((h: { id: string }) => h.id));
      // Inserts between pages must neither repeat nor skip anything on the following pages.
      await create({ email: 'late1@example.com' }, tenant.testKey);
      while (page.has_more) {
        page = await list(`limit=10&starting_after=${seen.at(-1)}`);
        seen.push(...page.data.map((h: { id: string }) => h.id));
        await create({ email: `late-${seen.length}@example.com` }, tenant.testKey);
      }
      expect(seen).toEqual(newestFirst);

      // Backwards from the oldest: ending_before returns the newer neighbours, still newest first.
      const back = await list(`limit=5&ending_before=${ids[0]}`);
      expect(back.data.map((h: { id: string }) => h.id)).toEqual(newestFirst.slice(19, 24));
      expect(back.has_more).toBe(true);
      expect(back).toMatchObject({ object: 'list', url: '/v1/connect/account_holders' });
    });

    it('defaults to 10 items', async () => {
      const tenant = await t.newClient('Default');
      for (let i = 0; i < 11; i++) await create({ email: `d${i}@example.com` }, tenant.testKey);
      const page = (await t.call(tenant.testKey, { method: 'GET', url: '/v1/connect/account_holders' })).json();
      expect(page.data).toHaveLength(10);
      expect(page.has_more).toBe(true);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['starting_after=ah_unknown', 'starting_after'],
      ['ending_before=ah_unknown', 'ending_before'],
      ['starting_after=x&ending_before=y', 'ending_before'],
      ['sort=asc', 'sort'],
    ])('rejects ?%s naming %s', async (query, param) => {
      const res = await t.call(client.testKey, { method: 'GET', url: `/v1/connect/account_holders?${query}` });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.param).toBe(param);
    });
  });

  async function countHolders(): Promise<number> {
    const row = await t.ctx.db
      .selectFrom('account_holders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
});

describe.each(engines())('account holder updates racing on %s', (engine) => {
  it('keeps every metadata key when updates run concurrently', async () => {
    const t = await startTestApp(engine);
    try {
      const { testKey } = await t.newClient();
      const holder = (
        await t.call(testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'race@example.com' } })
      ).json();
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t.call(testKey, {
            method: 'POST',
            url: `/v1/connect/account_holders/${holder.id}`,
            json: { metadata: { [`k${i}`]: String(i) } },
          }),
        ),
      );
      const final = (await t.call(testKey, { method: 'GET', url: `/v1/connect/account_holders/${holder.id}` })).json();
      expect(Object.keys(final.metadata).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `k${i}`).sort());
    } finally {
      await t.close();
    }
  });
});
