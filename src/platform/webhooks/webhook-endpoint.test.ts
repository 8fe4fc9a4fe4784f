import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { fakeResolver } from '../../../test/support/webhooks.js';
import { EVENT_TYPES } from '../events/event.schemas.js';

const PUBLIC_HOST = 'hooks.example.com';

describe.each(engines())('webhook endpoints API on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  const create = (json: unknown, key = client.testKey) => t.call(key, { method: 'POST', url: '/v1/webhook_endpoints', json });
  const get = (id: string, key = client.testKey) => t.call(key, { method: 'GET', url: `/v1/webhook_endpoints/${id}` });
  const update = (id: string, json: unknown, key = client.testKey) =>
    t.call(key, { method: 'POST', url: `/v1/webhook_endpoints/${id}`, json });

  beforeAll(async () => {
    t = await startTestApp(engine, {
      seams: {
        webhookNetwork: {
          resolve: fakeResolver({
            [PUBLIC_HOST]: ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
            localhost: ['127.0.0.1', '::1'],
            'internal.example.com': ['10.1.2.3'],
            'metadata.example.com': ['169.254.169.254'],
            'mixed.example.com': ['93.184.216.34', '192.168.1.10'],
            'ula.example.com': ['fd12:3456::1'],
            'mapped.example.com': ['::ffff:127.0.0.1'],
          }),
        },
      },
    });
    client = await t.newClient();
  });
  afterAll(() => t.close());

  it('creates an endpoint and shows its Standard Webhooks secret once', async () => {
    const res = await create({
      url: 'http://127.0.0.1:4000/hook',
      enabled_events: ['session.completed', 'statement.completed'],
      description: 'Local',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^we_[0-9A-Za-z]{22}$/),
      object: 'webhook_endpoint',
      url: 'http://127.0.0.1:4000/hook',
      enabled_events: ['session.completed', 'statement.completed'],
      description: 'Local',
      status: 'enabled',
      disabled_reason: null,
      previous_secret_expires_at: null,
      livemode: false,
      created_at: expect.any(Number),
      updated_at: body.created_at,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(body.secret.slice(6), 'base64')).toHaveLength(32);
    const fetched = await get(body.id);
    expect(fetched.statusCode).toBe(200);
    const { secret: _secret, ...withoutSecret } = body;
    expect(fetched.json()).toEqual(withoutSecret);
  });

  it('stores the secret encrypted, never in clear', async () => {
    const body = (await create({ url: 'http://127.0.0.1:4000/hook', enabled_events: ['*'] })).json();
    const row = await t.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(body.secret.slice(6, 30));
    expect(row.secret).toMatch(/^v2\.dk_/);
    expect(t.ctx.secretBox.open(row.secret, `webhook_endpoints.secret:${body.id}`)).toBe(body.secret);
  });

  it('lists endpoints newest first without secrets, with cursor pagination', async () => {
    const tenant = await t.newClient('List');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await create({ url: `http://127.0.0.1:4000/${i}`, enabled_events: ['*'] }, tenant.testKey)).json().id);
    const page1 = (await t.call(tenant.testKey, { method: 'GET', url: '/v1/webhook_endpoints?limit=3' })).json();
    expect(page1).toMatchObject({ object: 'list', url: '/v1/webhook_endpoints', has_more: true });
    expect(page1.data.map((e: { id: string }) => e.id)).toEqual([ids[4], ids[3], ids[2]]);
    expect(JSON.stringify(page1)).not.toContain('whsec_');
    const page2 = (await t.call(tenant.testKey, { method: 'GET', url: `/v1/webhook_endpoints?limit=3&starting_after=${ids[2]}` })).json();
    expect(page2.data.map((e: { id: string }) => e.id)).toEqual([ids[1], ids[0]]);
    expect(page2.has_more).toBe(false);
  });

  it('updates url, events and description, keeps what is not sent, and never returns the secret', async () => {
    const created = (await create({ url: 'http://127.0.0.1:4000/a', enabled_events: ['*'], description: 'Old' })).json();
    t.clock.advance(3);
    const res = await update(created.id, { url: 'http://localhost:4001/b', enabled_events: ['account.refreshed'] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ url: 'http://localhost:4001/b', enabled_events: ['account.refreshed'], description: 'Old' });
    expect(res.json().updated_at).toBeGreaterThanOrEqual(created.created_at + 3);
    expect(res.json()).not.toHaveProperty('secret');
    const cleared = await update(created.id, { description: null });
    expect(cleared.json().description).toBeNull();
    expect((await get(created.id)).json()).toEqual(cleared.json());
  });

  it('disables and enables an endpoint with `disabled`', async () => {
    const created = (await create({ url: 'http://127.0.0.1:4000/a', enabled_events: ['*'] })).json();
    const disabled = (await update(created.id, { disabled: true })).json();
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'manual' });
    const enabled = (await update(created.id, { disabled: false })).json();
    expect(enabled).toMatchObject({ status: 'enabled', disabled_reason: null });
  });

  it('deletes an endpoint, after which it is gone', async () => {
    const created = (await create({ url: 'http://127.0.0.1:4000/a', enabled_events: ['*'] })).json();
    const res = await t.call(client.testKey, { method: 'DELETE', url: `/v1/webhook_endpoints/${created.id}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: created.id, object: 'webhook_endpoint', deleted: true });
    expect((await get(created.id)).statusCode).toBe(404);
    expect((await t.call(client.testKey, { method: 'DELETE', url: `/v1/webhook_endpoints/${created.id}` })).statusCode).toBe(404);
  });

  it('refuses a DELETE with a body and deletes nothing', async () => {
    const created = (await create({ url: 'http://127.0.0.1:4000/a', enabled_events: ['*'] })).json();
    const res = await t.call(client.testKey, { method: 'DELETE', url: `/v1/webhook_endpoints/${created.id}`, json: { zzz: 1 } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_unknown', param: 'zzz' });
    expect((await get(created.id)).statusCode).toBe(200);
  });

  describe('rotate_secret', () => {
    it('returns a new secret and keeps the previous one signing for the grace period (default 24 h)', async () => {
      const created = (await create({ url: 'http://127.0.0.1:4000/a', enabled_events: ['*'] })).json();
      const now = Math.floor(t.clock.now() / 1000);
      const res = await t.call(client.testKey, { method: 'POST', url: `/v1/webhook_endpoints/${created.id}/rotate_secret` });
      expect(res.statusCode).toBe(200);
      const rotated = res.json();
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(created.secret);
      expect(rotated.previous_secret_expires_at).toBeGreaterThanOrEqual(now + 86_400);
      expect(rotated.previous_secret_expires_at).toBeLessThanOrEqual(now + 86_400 + 5);
      expect((await get(created.id)).json()).not.toHaveProperty('secret');
    });

    it('drops the previous secret at once with grace_period 0', async () => {
      const created = (await create({ url: 'http://127.0.0.1:4000/a', enabled_events: ['*'] })).json();
      const res = await t.call(client.testKey, {
        method: 'POST',
        url: `/v1/webhook_endpoints/${created.id}/rotate_secret`,
        json: { grace_period: 0 },
      });
      expect(res.json().previous_secret_expires_at).toBeNull();
      const row = await t.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
      expect(row.previous_secret).toBeNull();
    });

    it.each([
      [{ grace_period: -1 }, 'grace_period'],
      [{ grace_period: 604_801 }, 'grace_period'],
      [{ grace_period: '60' }, 'grace_period'],
      [{ grace: 60 }, 'grace'],
    ])('rejects %j naming %s and keeps the secret', async (json, param) => {
      const created = (await create({ url: 'http://127.0.0.1:4000/a', enabled_events: ['*'] })).json();
      const before = await t.ctx.db.selectFrom('webhook_endpoints').select('secret').where('id', '=', created.id).executeTakeFirstOrThrow();
      const res = await t.call(client.testKey, { method: 'POST', url: `/v1/webhook_endpoints/${created.id}/rotate_secret`, json });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.param).toBe(param);
      const after = await t.ctx.db.selectFrom('webhook_endpoints').select('secret').where('id', '=', created.id).executeTakeFirstOrThrow();
      expect(after.secret).toBe(before.secret);
    });
  });

  describe('validation', () => {
    it.each([
      [{}, 'parameter_missing', 'url'],
      [{ url: 'http://127.0.0.1/x' }, 'parameter_missing', 'enabled_events'],
      [{ url: 42, enabled_events: ['*'] }, 'parameter_invalid', 'url'],
      [{ url: '', enabled_events: ['*'] }, 'parameter_invalid', 'url'],
      [{ url: `http://127.0.0.1/${'x'.repeat(2048)}`, enabled_events: ['*'] }, 'parameter_invalid', 'url'],
      [{ url: 'not a url', enabled_events: ['*'] }, 'parameter_invalid', 'url'],
      [{ url: 'ftp://127.0.0.1/x', enabled_events: ['*'] }, 'parameter_invalid', 'url'],
      [{ url: 'http://user:pw@127.0.0.1/x', enabled_events: ['*'] }, 'parameter_invalid', 'url'],
      [{ url: 'http://127.0.0.1/x#frag', enabled_events: ['*'] }, 'parameter_invalid', 'url'],
      [{ url: 'http://10.0.0.1/x', enabled_events: ['*'] }, 'parameter_invalid', 'url'],
      [{ url: 'http://169.254.169.254/latest/meta-data', enabled_events: ['*'] }, 'parameter_invalid', 'url'],
      [{ url: 'http://internal.example.com/x', enabled_events: ['*'] }, 'parameter_invalid', 'url'],
      [{ url: 'http://nowhere.invalid/x', enabled_events: ['*'] }, 'parameter_invalid', 'url'],
      [{ url: 'http://127.0.0.1/x', enabled_events: [] }, 'parameter_invalid', 'enabled_events'],
      [{ url: 'http://127.0.0.1/x', enabled_events: 'session.completed' }, 'parameter_invalid', 'enabled_events'],
      [{ url: 'http://127.0.0.1/x', enabled_events: ['session.started'] }, 'parameter_invalid', 'enabled_events[0]'],
      [{ url: 'http://127.0.0.1/x', enabled_events: ['session.completed', 'session.completed'] }, 'parameter_invalid', 'enabled_events'],
      [{ url: 'http://127.0.0.1/x', enabled_events: ['*', 'session.completed'] }, 'parameter_invalid', 'enabled_events'],
      [{ url: 'http://127.0.0.1/x', enabled_events: ['*'], description: '' }, 'parameter_invalid', 'description'],
      [{ url: 'http://127.0.0.1/x', enabled_events: ['*'], description: 'x'.repeat(501) }, 'parameter_invalid', 'description'],
      [{ url: 'http://127.0.0.1/x', enabled_events: ['*'], secret: 'whsec_mine' }, 'parameter_unknown', 'secret'],
    ])('rejects %j with 400 %s naming %s, and creates nothing', async (json, code, param) => {
      const before = await countEndpoints();
      const res = await create(json);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code, param });
      expect(await countEndpoints()).toBe(before);
    });

    it('names every event type and "*" when enabled_events holds something else', async () => {
      const res = await create({ url: 'http://127.0.0.1/x', enabled_events: ['zzz'] });
      const { message } = res.json().error;
      for (const allowed of [...EVENT_TYPES, '*']) expect(message).toContain(`"${allowed}"`);
    });

    it.each([
      [{ url: 'http://192.168.0.1/x' }, 'url'],
      [{ enabled_events: ['nope'] }, 'enabled_events[0]'],
      [{ description: 7 }, 'description'],
      [{ disabled: 'yes' }, 'disabled'],
      [{ status: 'disabled' }, 'status'],
      [{ secret: 'whsec_x' }, 'secret'],
    ])('rejects the update %j naming %s and changes nothing', async (json, param) => {
      const created = (await create({ url: 'http://127.0.0.1:4000/a', enabled_events: ['*'], description: 'Keep' })).json();
      const res = await update(created.id, json);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.param).toBe(param);
      const { secret: _secret, ...unchanged } = created;
      expect((await get(created.id)).json()).toEqual(unchanged);
    });
  });

  describe('URL rules', () => {
    it.each([
      'http://127.0.0.1:3000/hook',
      'http://localhost:3000/hook',
      'http://[::1]:3000/hook',
      `https://${PUBLIC_HOST}/hook`,
      `http://${PUBLIC_HOST}:22/hook`,
    ])('accepts %s in test mode', async (url) => {
      expect((await create({ url, enabled_events: ['*'] })).statusCode).toBe(200);
    });

    it.each([
      `https://${PUBLIC_HOST}/hook`,
      `https://${PUBLIC_HOST}:8443/hook?source=ownproof`,
      'https://93.184.216.34/hook',
      'https://[2606:2800:220:1:248:1893:25c8:1946]/hook',
    ])('accepts %s in live mode', async (url) => {
      const res = await create({ url, enabled_events: ['*'] }, client.liveKey);
      expect(res.statusCode).toBe(200);
      expect(res.json().livemode).toBe(true);
    });

    it.each([
      [`http://${PUBLIC_HOST}/hook`, 'https'],
      [`https://${PUBLIC_HOST}:25/hook`, 'port'],
      ['https://127.0.0.1/hook', 'loopback'],
      ['https://localhost/hook', 'loopback'],
      ['https://[::1]/hook', 'loopback'],
      ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
      ['https://mapped.example.com/hook', 'loopback'],
      ['https://10.0.0.8/hook', 'private'],
      ['https://172.16.5.4/hook', 'private'],
      ['https://192.168.1.1/hook', 'private'],
      ['https://internal.example.com/hook', 'private'],
      ['https://mixed.example.com/hook', 'private'],
      ['https://ula.example.com/hook', 'private'],
      ['https://[fd00::1]/hook', 'private'],
      ['https://169.254.169.254/hook', 'link-local'],
      ['https://metadata.example.com/hook', 'link-local'],
      ['https://[fe80::1]/hook', 'link-local'],
      ['https://100.64.0.1/hook', 'shared'],
      ['https://0.0.0.0/hook', 'unspecified'],
      ['https://[::]/hook', 'unspecified'],
      ['https://224.0.0.1/hook', 'multicast'],
      ['https://[ff02::1]/hook', 'multicast'],
      ['https://2130706433/hook', 'loopback'],
      ['https://0x7f.1/hook', 'loopback'],
      ['https://user:secret@hooks.example.com/hook', 'user name'],
      ['https://unknown-host.invalid/hook', 'does not resolve'],
    ])('refuses %s in live mode (%s)', async (url, reason) => {
      const before = await countEndpoints();
      const res = await create({ url, enabled_events: ['*'] }, client.liveKey);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'url' });
      expect(res.json().error.message).toContain(reason);
      expect(await countEndpoints()).toBe(before);
    });

    // URL parsing would drop, encode or reinterpret these, so the stored URL would not be the one sent.
    it.each([
      ['a control character (U+0000) at character 19', 'http://127.0.0.1/a\u0000b'],
      ['a line feed (U+000A) at character 19', 'http://127.0.0.1/a\nb'],
      ['a carriage return (U+000D)', 'http://127.0.0.1/a\rb'],
      ['a tab (U+0009)', 'http://127.0.0.1/a\tb'],
      ['a space (U+0020)', 'http://127.0.0.1/a b'],
      ['a space (U+0020) at character 1', ' http://127.0.0.1/a'],
      ['a space (U+0020) at character 19', 'http://127.0.0.1/a '],
      ['a control character (U+001F)', 'http://127.0.0.1/a\u001fb'],
      ['a control character (U+007F)', 'http://127.0.0.1/a\u007fb'],
      ['a control character (U+0085)', 'http://127.0.0.1/a\u0085b'],
      ['a white-space character (U+00A0)', 'http://127.0.0.1/a\u00a0b'],
      ['an invisible formatting character (U+200B)', 'http://127.0.0.1/a\u200bb'],
      ['an unpaired surrogate (U+D800)', 'http://127.0.0.1/a\ud800b'],
      ['a backslash (U+005C)', 'http://127.0.0.1\\a'],
      ['a backslash (U+005C) at character 6', 'http:\\\\127.0.0.1/a'],
    ])('refuses a URL with %s instead of rewriting it, on create and on update', async (named, url) => {
      const before = await countEndpoints();
      const res = await create({ url, enabled_events: ['*'] });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'url' });
      expect(res.json().error.message).toContain(`must not contain ${named}`);
      expect(await countEndpoints()).toBe(before);

      const created = (await create({ url: 'http://127.0.0.1:4000/a', enabled_events: ['*'] })).json();
      const updated = await update(created.id, { url });
      expect(updated.statusCode).toBe(400);
      expect(updated.json().error).toMatchObject({ code: 'parameter_invalid', param: 'url' });
      expect(updated.json().error.message).toContain(`must not contain ${named}`);
      expect((await get(created.id)).json().url).toBe('http://127.0.0.1:4000/a');
    });

    it('stores and shows the URL exactly as deliveries will request it', async () => {
      const res = await create({ url: 'HTTPS://Hooks.Example.COM:443/a/../b?q=é', enabled_events: ['*'] }, client.liveKey);
      expect(res.statusCode).toBe(200);
      expect(res.json().url).toBe(`https://${PUBLIC_HOST}/b?q=%C3%A9`);
      expect((await get(res.json().id, client.liveKey)).json().url).toBe(`https://${PUBLIC_HOST}/b?q=%C3%A9`);
    });

    it('applies the rules again when the URL is updated', async () => {
      const created = (await create({ url: `https://${PUBLIC_HOST}/hook`, enabled_events: ['*'] }, client.liveKey)).json();
      const res = await update(created.id, { url: 'https://10.0.0.1/hook' }, client.liveKey);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.param).toBe('url');
      expect((await get(created.id, client.liveKey)).json().url).toBe(`https://${PUBLIC_HOST}/hook`);
    });
  });

  describe('isolation', () => {
    it("answers 404 for another client's endpoint on every route, and changes nothing", async () => {
      const other = await t.newClient('Other');
      const mine = (await create({ url: 'http://127.0.0.1:4000/a', enabled_events: ['*'] })).json();
      for (const request of [
        { method: 'GET' as const, url: `/v1/webhook_endpoints/${mine.id}` },
        { method: 'POST' as const, url: `/v1/webhook_endpoints/${mine.id}`, json: { disabled: true } },
        { method: 'POST' as const, url: `/v1/webhook_endpoints/${mine.id}/rotate_secret`, json: {} },
        { method: 'GET' as const, url: `/v1/webhook_endpoints/${mine.id}/deliveries` },
        { method: 'DELETE' as const, url: `/v1/webhook_endpoints/${mine.id}` },
      ]) {
        for (const key of [other.testKey, client.liveKey]) {
          const res = await t.call(key, request);
          expect(res.statusCode, `${request.method} ${request.url}`).toBe(404);
          expect(res.json().error).toMatchObject({ code: 'resource_missing', param: 'id' });
          expect(res.json().error.message).toBe(`No such webhook_endpoint: '${mine.id}'.`);
        }
      }
      const { secret: _secret, ...unchanged } = mine;
      expect((await get(mine.id)).json()).toEqual(unchanged);
      const row = await t.ctx.db.selectFrom('webhook_endpoints').select('secret').where('id', '=', mine.id).executeTakeFirstOrThrow();
      expect(t.ctx.secretBox.open(row.secret, `webhook_endpoints.secret:${mine.id}`)).toBe(mine.secret);
      const list = (await t.call(other.testKey, { method: 'GET', url: '/v1/webhook_endpoints?limit=100' })).json();
      expect(list.data).toEqual([]);
    });

    it("refuses another client's endpoint id as a cursor", async () => {
      const other = await t.newClient('Cursor');
      const mine = (await create({ url: 'http://127.0.0.1:4000/a', enabled_events: ['*'] })).json();
      const res = await t.call(other.testKey, { method: 'GET', url: `/v1/webhook_endpoints?starting_after=${mine.id}` });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.param).toBe('starting_after');
    });
  });

  async function countEndpoints(): Promise<number> {
    const row = await t.ctx.db
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
});
