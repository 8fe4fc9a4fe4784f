import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWallet } from '../bitcoin/sandbox/sandbox-wallet.js';
import { completeWith, createSessionFor, hostedSession, loginWith, runDueJobs } from '../../test/support/connect.js';
import { engines } from '../../test/support/database.js';
import { startTestApp, type TestApp, type TestClient } from '../../test/support/test-app.js';
import { SANDBOX_THROTTLE_SECONDS } from './providers/sandbox-exchange.js';

describe.each(engines())('accounts API on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  const call = (method: 'GET' | 'POST', url: string, json?: unknown, key = client.testKey) =>
    t.call(key, { method, url, ...(json === undefined ? {} : { json }) });
  const connect = async (username: string, permissions = ['balances', 'transactions', 'addresses']) => {
    const { session } = await createSessionFor(t, client.testKey, { permissions });
    const [id] = await completeWith(t.ctx, session.client_secret, 'sandbox', { username, password: 'pass_good' });
    return { id: id as string, sessionId: session.id };
  };

  beforeAll(async () => {
    t = await startTestApp(engine);
    client = await t.newClient();
  });
  afterAll(() => t.close());

  it('shows a connected account with provider, permissions and no refresh yet', async () => {
    const { id, sessionId } = await connect('user_good', ['balances', 'transactions']);
    const account = (await call('GET', `/v1/connect/accounts/${id}`)).json();
    expect(account).toEqual({
      id,
      object: 'account',
      account_holder: expect.stringMatching(/^ah_/),
      session: sessionId,
      provider: { type: 'exchange', id: 'sandbox', name: 'Sandbox Exchange' },
      display_name: 'Sandbox Exchange (user_good)',
      permissions: ['balances', 'transactions'],
      status: 'active',
      ownership: { status: 'unverified', claim: null },
      balance_refresh: null,
      transaction_refresh: null,
      created_at: expect.any(Number),
      livemode: false,
    });
  });

  it('refreshes in the background: pending at once, then succeeded with exact decimal balances and an event', async () => {
    const { id } = await connect('user_good');
    const pending = await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['balances', 'transactions'] });
    expect(pending.statusCode).toBe(200);
    expect(pending.json().balance_refresh).toMatchObject({ status: 'pending', error: null, next_refresh_available_at: null });
    expect(pending.json().transaction_refresh).toMatchObject({ status: 'pending' });
    expect((await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data).toEqual([]);

    await runDueJobs(t.ctx);
    const account = (await call('GET', `/v1/connect/accounts/${id}`)).json();
    expect(account.balance_refresh).toMatchObject({ status: 'succeeded', error: null });
    expect(account.transaction_refresh).toMatchObject({ status: 'succeeded' });

    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data;
    expect(balances.map((b: { asset: string }) => b.asset)).toEqual(['BTC', 'ETH', 'EUR', 'USDC']);
    for (const balance of balances) {
      expect(balance).toMatchObject({
        object: 'balance',
        available: expect.stringMatching(/^\d+(\.\d+)?$/),
        total: expect.stringMatching(/^\d+(\.\d+)?$/),
      });
    }
    const eur = balances.find((b: { asset: string }) => b.asset === 'EUR');
    expect(Number(eur.available)).toBeLessThan(Number(eur.total));

    const events = (await call('GET', '/v1/events?type=account.refreshed')).json().data;
    expect(events[0].data.object).toMatchObject({ id, balance_refresh: { status: 'succeeded' } });
  });

  it('pages transactions newest first without gaps or repeats, and a second refresh changes nothing', async () => {
    const { id } = await connect('user_good');
    await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['transactions'] });
    await runDueJobs(t.ctx);
    const all = (await call('GET', `/v1/connect/accounts/${id}/transactions?limit=100`)).json().data;
    expect(all.length).toBeGreaterThan(30);
    const times = all.map((tx: { occurred_at: number }) => tx.occurred_at);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(all[0]).toMatchObject({ object: 'transaction', account: id, status: 'pending' });
    expect(all.some((tx: { tx_hash: string | null }) => tx.tx_hash !== null)).toBe(true);

    const paged: string[] = [];
    let cursor = '';
    for (;;) {
      const page = (await call('GET', `/v1/connect/accounts/${id}/transactions?limit=7${cursor}`)).json();
      paged.push(...page.data.map((tx: { id: string }) => tx.id));
      if (!page.has_more) break;
      cursor = `&starting_after=${page.data.at(-1).id}`;
    }
    expect(paged).toEqual(all.map((tx: { id: string }) => tx.id));

    await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['transactions'] });
    await runDueJobs(t.ctx);
    const again = (await call('GET', `/v1/connect/accounts/${id}/transactions?limit=100`)).json().data;
    expect(again).toEqual(all);
  });

  it('does not start a refresh that is already pending', async () => {
    const { id } = await connect('user_good');
    await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['balances'] });
    const second = await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['balances'] });
    expect(second.json().balance_refresh.status).toBe('pending');
    const jobs = await t.ctx.db
      .selectFrom('jobs')
      .selectAll()
      .where('type', '=', 'connect.refresh_account')
      .where('payload', 'like', `%${id}%`)
      .execute();
    expect(jobs).toHaveLength(1);
    await runDueJobs(t.ctx);
  });

  it('starts one refresh when several requests for it arrive at once', async () => {
    const { id } = await connect('user_good');
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['balances'] })),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    const jobs = await t.ctx.db
      .selectFrom('jobs')
      .selectAll()
      .where('type', '=', 'connect.refresh_account')
      .where('payload', 'like', `%${id}%`)
      .execute();
    expect(jobs).toHaveLength(1);
    await runDueJobs(t.ctx);
  });

  it('reports provider throttling honestly and refuses refreshes until the provider allows them', async () => {
    const { id } = await connect('user_throttled');
    await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['balances'] });
    await runDueJobs(t.ctx);
    const account = (await call('GET', `/v1/connect/accounts/${id}`)).json();
    expect(account.balance_refresh).toMatchObject({
      status: 'failed',
      error: { code: 'provider_rate_limited', message: expect.any(String) },
    });
    // The provider's wait counts from when the job asked it, a moment (a second tick, under load)
    // after the refresh was requested (last_attempted_at).
    const waitFrom = account.balance_refresh.next_refresh_available_at - SANDBOX_THROTTLE_SECONDS;
    expect(waitFrom).toBeGreaterThanOrEqual(account.balance_refresh.last_attempted_at);
    expect(waitFrom).toBeLessThanOrEqual(account.balance_refresh.last_attempted_at + 5);
    const refused = await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['balances'] });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatchObject({ type: 'rate_limit_error', code: 'refresh_throttled' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    t.clock.advance(SANDBOX_THROTTLE_SECONDS + 1);
    expect((await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['balances'] })).statusCode).toBe(200);
    await runDueJobs(t.ctx);
  });

  it('marks the account requires_reauth when the provider login expired', async () => {
    const { id } = await connect('user_reauth');
    await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['transactions'] });
    await runDueJobs(t.ctx);
    const account = (await call('GET', `/v1/connect/accounts/${id}`)).json();
    expect(account).toMatchObject({
      status: 'requires_reauth',
      transaction_refresh: { status: 'failed', error: { code: 'reauthentication_required' } },
    });
    const refused = await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['balances'] });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('account_requires_reauth');
  });

  it('answers 403 naming the permission the session did not grant, for data and for refresh', async () => {
    const { id } = await connect('user_good', ['balances']);
    for (const [method, url, json, param] of [
      ['GET', `/v1/connect/accounts/${id}/transactions`, undefined, 'transactions'],
      ['GET', `/v1/connect/accounts/${id}/addresses`, undefined, 'addresses'],
      ['POST', `/v1/connect/accounts/${id}/refresh`, { features: ['transactions'] }, 'transactions'],
    ] as const) {
      const res = await call(method, url, json);
      expect(res.statusCode, url).toBe(403);
      expect(res.json().error).toMatchObject({ type: 'permission_error', code: 'permission_missing', param });
    }
    expect((await call('GET', `/v1/connect/accounts/${id}/balances`)).statusCode).toBe(200);
  });

  it.each([
    [{}, 'parameter_missing', 'features'],
    [{ features: [] }, 'parameter_invalid', 'features'],
    [{ features: ['addresses'] }, 'parameter_invalid', 'features[0]'],
    [{ features: ['balances', 'balances'] }, 'parameter_invalid', 'features'],
  ])('rejects refresh body %j', async (json, code, param) => {
    const { id } = await connect('user_good');
    const res = await call('POST', `/v1/connect/accounts/${id}/refresh`, json);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code, param });
  });

  it('names every allowed value of features and of the status filter when one is not', async () => {
    const { id } = await connect('user_good');
    const refresh = await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['zzz'] });
    expect(refresh.json().error).toMatchObject({
      param: 'features[0]',
      message: 'Invalid value for features[0]: must be one of "balances", "transactions".',
    });
    const list = await call('GET', '/v1/connect/accounts?status=zzz');
    expect(list.json().error).toMatchObject({
      param: 'status',
      message: 'Invalid value for status: must be one of "active", "disconnected", "requires_reauth".',
    });
  });

  it('disconnects: credentials erased, refresh refused, data still readable, idempotent', async () => {
    const { id } = await connect('user_good');
    await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['balances'] });
    await runDueJobs(t.ctx);
    const first = await call('POST', `/v1/connect/accounts/${id}/disconnect`);
    expect(first.json().status).toBe('disconnected');
    expect((await call('POST', `/v1/connect/accounts/${id}/disconnect`)).json().status).toBe('disconnected');
    const refused = await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['balances'] });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('account_disconnected');
    expect((await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data.length).toBeGreaterThan(0);
    const row = await t.ctx.db.selectFrom('connect_accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(t.ctx.secretBox.open(row.connection_sealed, `connect_account.connection:${id}`)).toBe('{}');
    const events = (await call('GET', '/v1/events?type=account.disconnected')).json().data;
    expect(events.filter((e: { data: { object: { id: string } } }) => e.data.object.id === id)).toHaveLength(1);
  });

  it.each(['[]', '"x"', 'null', '{"zzz_unknown":1}'])(
    'refuses to disconnect with the body %s and leaves the account connected',
    async (payload) => {
      const { id } = await connect('user_good');
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/connect/accounts/${id}/disconnect`,
        headers: { authorization: `Bearer ${client.testKey}`, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe(payload.startsWith('{') ? 'parameter_unknown' : 'body_invalid');
      expect((await call('GET', `/v1/connect/accounts/${id}`)).json().status).toBe('active');
    },
  );

  it('disconnects with an empty object as body, as with none', async () => {
    const { id } = await connect('user_good');
    expect((await call('POST', `/v1/connect/accounts/${id}/disconnect`, {})).json().status).toBe('disconnected');
  });

  it('refuses a query parameter the balances, addresses and transactions lists do not take', async () => {
    const { id } = await connect('user_good');
    for (const query of ['balances?limit=5', 'addresses?foo=1', 'transactions?foo=1']) {
      const res = await call('GET', `/v1/connect/accounts/${id}/${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error, query).toMatchObject({ code: 'parameter_unknown', param: query.split(/[?=]/)[1] });
    }
  });

  it('gives each list of an account its real path as url, ids filled in, also when called under /api', async () => {
    const { id } = await connect('user_good');
    for (const list of ['balances', 'transactions', 'addresses']) {
      for (const prefix of ['', '/api']) {
        const res = await call('GET', `${prefix}/v1/connect/accounts/${id}/${list}`);
        expect(res.json(), `${prefix} ${list}`).toMatchObject({ object: 'list', url: `/v1/connect/accounts/${id}/${list}` });
      }
    }
  });

  it('connects the sandbox wallet watch-only and reads its balance, history and addresses from the chain', async () => {
    const { session } = await createSessionFor(t, client.testKey);
    const [id] = await completeWith(t.ctx, session.client_secret, 'bitcoin', { wallet: sandboxWallet().descriptor });
    const account = (await call('GET', `/v1/connect/accounts/${id}`)).json();
    expect(account.provider).toEqual({ type: 'wallet', id: 'bitcoin', name: 'Bitcoin wallet (self-custody)' });
    await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['balances', 'transactions'] });
    await runDueJobs(t.ctx, 30_000);
    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data;
    // 0.5 + 0.25 + 1 + 0.05 + 0.12 + 0.333 received, 0.1 + 0.3 + 0.2 paid out, minus fees; 0.01 unconfirmed.
    expect(balances).toHaveLength(1);
    expect(balances[0].asset).toBe('BTC');
    expect(Number(balances[0].total) - Number(balances[0].available)).toBeCloseTo(0.01, 8);
    const txs = (await call('GET', `/v1/connect/accounts/${id}/transactions?limit=100`)).json().data;
    expect(txs.map((tx: { type: string }) => tx.type).sort()).toEqual(
      [
        'deposit',
        'deposit',
        'deposit',
        'deposit',
        'deposit',
        'deposit',
        'deposit',
        'transfer',
        'withdrawal',
        'withdrawal',
        'withdrawal',
      ].sort(),
    );
    expect(txs[0]).toMatchObject({ status: 'pending', amount: '0.01', tx_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const addresses = (await call('GET', `/v1/connect/accounts/${id}/addresses`)).json().data;
    expect(
      addresses.some((a: { address: string; kind: string }) => a.address === sandboxWallet().address('receive', 0) && a.kind === 'receive'),
    ).toBe(true);
    expect(addresses.some((a: { kind: string }) => a.kind === 'change')).toBe(true);
  });

  it('hides accounts of sessions that are still open, and other tenants accounts', async () => {
    const { session } = await createSessionFor(t, client.testKey);
    const attempt = await loginWith(t.ctx, await hostedSession(t.ctx, session.client_secret), 'sandbox', {
      username: 'user_good',
      password: 'pass_good',
    });
    const pendingId = attempt.ok ? attempt.accounts[0]?.id : '';
    expect((await call('GET', `/v1/connect/accounts/${pendingId}`)).statusCode).toBe(404);
    const { id } = await connect('user_good');
    const other = await t.newClient('Other');
    expect((await call('GET', `/v1/connect/accounts/${id}`, undefined, other.testKey)).statusCode).toBe(404);
    expect((await call('GET', `/v1/connect/accounts/${id}/balances`, undefined, other.testKey)).statusCode).toBe(404);
    expect((await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['balances'] }, other.testKey)).statusCode).toBe(404);
  });

  it('lists accounts with filters', async () => {
    const tenant = await t.newClient('Filters');
    const { session, holderId } = await createSessionFor(t, tenant.testKey);
    const ids = await completeWith(t.ctx, session.client_secret, 'sandbox', { username: 'user_multi', password: 'pass_good' });
    const list = async (q: string) =>
      (await call('GET', `/v1/connect/accounts${q}`, undefined, tenant.testKey)).json().data.map((a: { id: string }) => a.id);
    expect(await list('')).toEqual([...ids].reverse());
    expect(await list(`?session=${session.id}`)).toEqual([...ids].reverse());
    expect(await list(`?account_holder=${holderId}&status=disconnected`)).toEqual([]);
  });

  it('refuses an account_holder or session filter that names nothing this key can see, rather than listing nothing', async () => {
    const { session, holderId } = await createSessionFor(t, client.testKey);
    const other = await t.newClient('Other filters');
    for (const [param, id] of [
      ['account_holder', 'ah_unknown'],
      ['account_holder', holderId],
      ['session', 'sess_unknown'],
      ['session', session.id],
    ] as const) {
      const res = await call('GET', `/v1/connect/accounts?${param}=${id}`, undefined, other.testKey);
      expect(res.statusCode, `${param}=${id}`).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'parameter_invalid',
        param,
        message: `Invalid value for ${param}: no such ${param} '${id}'.`,
      });
    }
  });
});
