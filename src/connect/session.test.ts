import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeWith, createSessionFor, hostedSession, loginWith, runDueJobs } from '../../test/support/connect.js';
import { engines } from '../../test/support/database.js';
import { startTestApp, type TestApp, type TestClient } from '../../test/support/test-app.js';
import { exitSession, MAX_FAILED_LOGINS } from './hosted-flow.service.js';

const GOOD = { username: 'user_good', password: 'pass_good' };

describe.each(engines())('sessions API on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  let holderId: string;
  const create = (json: unknown, key = client.testKey) => t.call(key, { method: 'POST', url: '/v1/connect/sessions', json });
  const get = (id: string, key = client.testKey) => t.call(key, { method: 'GET', url: `/v1/connect/sessions/${id}` });

  beforeAll(async () => {
    t = await startTestApp(engine, { config: { CONNECT_BASE_URL: 'https://connect.example.com/c' } });
    client = await t.newClient();
    holderId = (
      await t.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'h@example.com' } })
    ).json().id;
  });
  afterAll(() => t.close());

  it('creates an open session with a hosted URL built from the connect base URL and the client secret', async () => {
    const res = await create({ permissions: ['balances', 'transactions'], account_holder: holderId, return_url: 'myapp://done' });
    expect(res.statusCode).toBe(200);
    const session = res.json();
    expect(session).toEqual({
      id: expect.stringMatching(/^sess_/),
      object: 'session',
      account_holder: holderId,
      client_secret: expect.stringMatching(/^cs_test_[0-9A-Za-z]{32}$/),
      hosted_url: `https://connect.example.com/c/${session.client_secret}`,
      status: 'open',
      permissions: ['balances', 'transactions'],
      accounts: [],
      account_ids: [],
      return_url: 'myapp://done',
      expires_at: session.created_at + 3600,
      created_at: expect.any(Number),
      livemode: false,
    });
    // The secret is shown once: a later read has the session without it.
    expect(await get(session.id).then((r) => r.json())).toEqual({ ...session, client_secret: null, hosted_url: null });
  });

  it('stores the client secret only hashed and encrypted', async () => {
    const session = (await create({ permissions: ['balances'], account_holder: holderId })).json();
    const row = await t.ctx.db.selectFrom('connect_sessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(session.client_secret.slice(8));
  });

  it.each([
    [{ account_holder: 'x' }, 'parameter_missing', 'permissions'],
    [{ permissions: [], account_holder: 'x' }, 'parameter_invalid', 'permissions'],
    [{ permissions: ['balances', 'balances'], account_holder: 'x' }, 'parameter_invalid', 'permissions'],
    [{ permissions: ['statements'], account_holder: 'x' }, 'parameter_invalid', 'permissions[0]'],
    [{ permissions: ['balances'] }, 'parameter_missing', 'account_holder'],
    [{ permissions: ['balances'], account_holder: 'ah_nobody' }, 'parameter_invalid', 'account_holder'],
    [{ permissions: ['balances'], account_holder: 'HOLDER', extra: 1 }, 'parameter_unknown', 'extra'],
  ])('rejects %j with %s naming %s', async (json, code, param) => {
    const body = JSON.parse(JSON.stringify(json).replace('HOLDER', holderId));
    const res = await create(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code, param });
  });

  it('names every permission there is when one is not', async () => {
    const res = await create({ permissions: ['zzz'], account_holder: holderId });
    expect(res.json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'permissions[0]',
      message: 'Invalid value for permissions[0]: must be one of "balances", "transactions", "addresses".',
    });
  });

  it("refuses another client's or the other mode's account holder exactly like a missing one", async () => {
    const other = await t.newClient('Other');
    const foreign = (
      await t.call(other.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'o@example.com' } })
    ).json().id;
    const live = (
      await t.call(client.liveKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'l@example.com' } })
    ).json().id;
    for (const id of [foreign, live]) {
      const res = await create({ permissions: ['balances'], account_holder: id });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'parameter_invalid',
        param: 'account_holder',
        message: `Invalid value for account_holder: no such account_holder '${id}'.`,
      });
    }
  });

  it.each([
    ['https://example.com/done?x=1', true],
    ['http://localhost:3000/done', true],
    ['myapp://done', true],
    ['com.example.app:/oauth', true],
    ['javascript:alert(1)', false],
    ['JAVASCRIPT:alert(1)', false],
    ['data:text/html,hi', false],
    ['file:///etc/passwd', false],
    ['vbscript:msgbox', false],
    ['/relative/path', false],
    ['example.com/done', false],
    ['https://user:pw@example.com/', false],
    [`https://example.com/${'a'.repeat(2030)}`, false],
  ])('return_url %s in test mode: accepted %s', async (returnUrl, accepted) => {
    const res = await create({ permissions: ['balances'], account_holder: holderId, return_url: returnUrl });
    if (accepted) {
      expect(res.statusCode, res.body).toBe(200);
    } else {
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'return_url' });
    }
  });

  it.each([
    ['a space (U+0020) at character 25', 'https://example.com/done now'],
    ['a line feed (U+000A) at character 23', 'https://example.com/do\nne'],
    ['a backslash (U+005C) at character 20', 'https://example.com\\done'],
  ])('refuses a return_url with %s instead of rewriting it, naming the character', async (named, returnUrl) => {
    const res = await create({ permissions: ['balances'], account_holder: holderId, return_url: returnUrl });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'return_url',
      message: `Invalid value for return_url: must not contain ${named}.`,
    });
  });

  it('refuses an http return_url in live mode', async () => {
    const live = (
      await t.call(client.liveKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'l2@example.com' } })
    ).json().id;
    const res = await create({ permissions: ['balances'], account_holder: live, return_url: 'http://example.com/done' }, client.liveKey);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/https in live mode/);
    const ok = await create({ permissions: ['balances'], account_holder: live, return_url: 'https://example.com/done' }, client.liveKey);
    expect(ok.json()).toMatchObject({ livemode: true, client_secret: expect.stringMatching(/^cs_live_/) });
  });

  it('completes with the connected account ids in accounts and account_ids, and records session.completed', async () => {
    const session = (await create({ permissions: ['balances'], account_holder: holderId })).json();
    const accountIds = await completeWith(t.ctx, session.client_secret, 'sandbox', { username: 'user_multi', password: 'pass_good' });
    expect(accountIds).toHaveLength(2);
    const completed = (await get(session.id)).json();
    expect(completed).toMatchObject({ status: 'completed', accounts: accountIds, account_ids: accountIds });
    const events = (await t.call(client.testKey, { method: 'GET', url: '/v1/events?type=session.completed' })).json().data;
    expect(events.find((e: { data: { object: { id: string } } }) => e.data.object.id === session.id)?.data.object.status).toBe('completed');
  });

  it('abandons on cancel, disconnects what was connected and never hands those accounts over', async () => {
    const session = (await create({ permissions: ['balances'], account_holder: holderId })).json();
    const hosted = await hostedSession(t.ctx, session.client_secret);
    const attempt = await loginWith(t.ctx, hosted, 'sandbox', GOOD);
    expect(attempt.ok).toBe(true);
    await exitSession(t.ctx, await hostedSession(t.ctx, session.client_secret), 'cancelled');
    const abandoned = (await get(session.id)).json();
    expect(abandoned).toMatchObject({ status: 'abandoned', accounts: [], account_ids: [] });
    const accountId = attempt.ok ? attempt.accounts[0]?.id : undefined;
    expect((await t.call(client.testKey, { method: 'GET', url: `/v1/connect/accounts/${accountId}` })).statusCode).toBe(404);
    const row = await t.ctx.db
      .selectFrom('connect_accounts')
      .selectAll()
      .where('id', '=', accountId as string)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('disconnected');
  });

  it('expires an open session after its deadline: a read shows abandoned at once', async () => {
    const session = (await create({ permissions: ['balances'], account_holder: holderId })).json();
    t.clock.advance(3600);
    expect((await get(session.id)).json()).toMatchObject({ status: 'abandoned' });
    const events = (await t.call(client.testKey, { method: 'GET', url: '/v1/events?type=session.abandoned&limit=100' })).json().data;
    expect(events.filter((e: { data: { object: { id: string } } }) => e.data.object.id === session.id)).toHaveLength(1);
  });

  it('expires an open session by the expiry job even when nobody reads it', async () => {
    const tenant = await t.newClient('Expiry');
    const { session } = await createSessionFor(t, tenant.testKey, { permissions: ['balances'] });
    t.clock.advance(3601);
    await runDueJobs(t.ctx);
    const row = await t.ctx.db.selectFrom('connect_sessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'abandoned', abandon_reason: 'expired' });
    const events = (await t.call(tenant.testKey, { method: 'GET', url: '/v1/events?type=session.abandoned' })).json().data;
    expect(events).toHaveLength(1);
  });

  it('lists sessions newest first, filtered by account holder', async () => {
    const tenant = await t.newClient('Lists');
    const first = await createSessionFor(t, tenant.testKey);
    const second = await createSessionFor(t, tenant.testKey);
    const all = (await t.call(tenant.testKey, { method: 'GET', url: '/v1/connect/sessions' })).json();
    expect(all.data.map((s: { id: string }) => s.id)).toEqual([second.session.id, first.session.id]);
    const filtered = (await t.call(tenant.testKey, { method: 'GET', url: `/v1/connect/sessions?account_holder=${first.holderId}` })).json();
    expect(filtered.data.map((s: { id: string }) => s.id)).toEqual([first.session.id]);
  });

  it('refuses an account_holder filter that names no account holder of this client and mode, rather than listing nothing', async () => {
    const foreign = (
      await t.call(client.liveKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'f@example.com' } })
    ).json().id;
    for (const id of ['ah_unknown', foreign]) {
      const res = await t.call(client.testKey, { method: 'GET', url: `/v1/connect/sessions?account_holder=${id}` });
      expect(res.statusCode, id).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'account_holder' });
    }
  });

  it('refuses further provider logins after 10 failed ones in a session', async () => {
    const session = (await create({ permissions: ['balances'], account_holder: holderId })).json();
    for (let i = 0; i < MAX_FAILED_LOGINS; i++) {
      const attempt = await loginWith(t.ctx, await hostedSession(t.ctx, session.client_secret), 'sandbox', {
        username: 'user_good',
        password: `guess-${i}`,
      });
      expect(attempt).toMatchObject({ ok: false, reason: 'invalid_credentials' });
    }
    const refused = await loginWith(t.ctx, await hostedSession(t.ctx, session.client_secret), 'sandbox', GOOD);
    expect(refused).toMatchObject({ ok: false, reason: 'too_many_attempts' });
  });

  it("hides another client's session", async () => {
    const other = await t.newClient('Peeker');
    const session = (await create({ permissions: ['balances'], account_holder: holderId })).json();
    expect((await get(session.id, other.testKey)).statusCode).toBe(404);
    expect((await get(session.id, client.liveKey)).statusCode).toBe(404);
  });
});
