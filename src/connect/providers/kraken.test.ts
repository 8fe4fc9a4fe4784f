import dns from 'node:dns';
import { isIP } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { runDueJobs } from '../../../test/support/connect.js';
import { snapshotDatabase } from '../../../test/support/db-snapshot.js';
import { krakenLedger, startFakeKraken, type KrakenAccount } from '../../../test/support/fake-kraken.js';
import { liveExchangeSuite } from '../../../test/support/live-exchange.js';
import { captureStream } from '../../../test/support/test-app.js';
import { EXCHANGE_RATE_LIMIT_SECONDS, EXCHANGE_UNAVAILABLE_SECONDS } from './ccxt-errors.js';

/**
 * Kraken in live mode, end to end: the hosted connect flow and the refresh job drive ccxt's kraken
 * class, unmodified, against a local fake Kraken that checks every signature as Kraken documents it.
 */
describe.each(engines())('Kraken through ccxt on %s', (engine) => {
  const log = captureStream();
  /** Every host a connection looked up: no name may be (ccxt must reach only the fake, by IP literal). */
  const lookups: string[] = [];

  // Before the fake and the app start (hooks run in order), and after both are closed (in reverse).
  beforeAll(() => {
    const lookup = dns.lookup;
    vi.spyOn(dns, 'lookup').mockImplementation(((hostname: string, ...rest: unknown[]) => {
      lookups.push(hostname);
      return (lookup as (...args: unknown[]) => unknown)(hostname, ...rest);
    }) as typeof dns.lookup);
  });
  afterAll(() => {
    vi.restoreAllMocks();
    // Some clients pass IP literals through lookup too; those resolve nothing.
    expect(lookups.filter((host) => isIP(host) === 0)).toEqual([]);
  });
  // Every log line the service writes, so the secrets test sees all of them.
  const live = liveExchangeSuite(engine, 'kraken', startFakeKraken, { app: { config: { LOG_LEVEL: 'trace' }, logStream: log.stream } });
  const { call, consented, session, refresh, allTransactions, connected: connectedTo } = live;
  const connected = (account: KrakenAccount) => connectedTo('kraken', { apiKey: account.key, secret: account.secret });

  it('offers the exchanges of the table in live mode, and Kraken asks for exactly a key and a secret with read-only steps', async () => {
    const { path, agent } = await consented();
    const list = await agent.get(`${path}/providers`);
    for (const name of ['Coinbase', 'Kraken', 'Binance', 'Bitstamp', 'Gemini', 'OKX', 'Bitfinex', 'KuCoin'])
      expect(list.body).toContain(name);
    const form = await agent.get(`${path}/providers/kraken`);
    expect(form.statusCode).toBe(200);
    const fields = [...form.body.matchAll(/<(?:input|textarea)[^>]* name="([^"]+)"/g)].map((m) => m[1]).filter((name) => name !== '_csrf');
    expect(fields).toEqual(['apiKey', 'secret']);
    expect(form.body).toMatch(/<input id="field-secret" name="secret" type="password"/);
    expect(form.body).toContain('<ol class="steps">');
    expect(form.body).toContain('Kraken does not let us check a key&#39;s permissions');
  });

  it('explains a wrong secret in plain words, stores nothing, and lets the person try again in the same session', async () => {
    const account = live.fake.addAccount({ balances: { XXBT: { balance: '0.5000000000', hold_trade: '0.0000000000' } } });
    const { session: created, path, agent } = await consented();
    const wrong = await agent.post(`${path}/providers/kraken`, { apiKey: account.key, secret: Buffer.alloc(64, 1).toString('base64') });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('Kraken did not accept this API key and secret.');
    expect(wrong.body).not.toContain(account.key);
    expect((await session(created.id)).status).toBe('open');

    const right = await agent.post(`${path}/providers/kraken`, { apiKey: account.key, secret: account.secret });
    expect(right.statusCode).toBe(303);
    expect((await agent.get(path)).body).toContain(`Kraken (API key …${account.key.slice(-4)})`);
  });

  it.each([
    ['an unknown key', 'EAPI:Invalid key', 422, 'Kraken did not accept this API key and secret.'],
    ['a key without the Query Funds permission', 'EGeneral:Permission denied', 422, 'This key is missing a permission'],
    [
      'a nonce lower than the last one (key shared with another app)',
      'EAPI:Invalid nonce',
      422,
      'refused the request&#39;s timing (nonce)',
    ],
    ['the rate limit', 'EAPI:Rate limit exceeded', 503, 'Kraken is limiting how often we may ask.'],
    ['a locked account', 'ETrade:User Locked', 422, 'Kraken says this account is locked or suspended.'],
    ['an outage', 'EService:Unavailable', 503, 'Kraken is not responding right now.'],
  ])('explains %s (%s) in the flow and creates no account', async (_what, error, status, message) => {
    const account = live.fake.addAccount({ failWith: error });
    const { session: created, path, agent } = await consented();
    const res = await agent.post(`${path}/providers/kraken`, {
      apiKey: error === 'EAPI:Invalid key' ? `${account.key}x` : account.key,
      secret: account.secret,
    });
    expect(res.statusCode).toBe(status);
    expect(res.body).toContain(message);
    expect(await session(created.id)).toMatchObject({ status: 'open', accounts: [] });
  });

  it('refuses an empty field before asking Kraken', async () => {
    const { path, agent } = await consented();
    const before = live.fake.requests.length;
    const res = await agent.post(`${path}/providers/kraken`, { apiKey: 'some-key', secret: '  ' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('Enter the api secret.');
    expect(live.fake.requests.length).toBe(before);
  });

  it('refreshes balances as exact decimal strings, and deposit addresses with them', async () => {
    const account = live.fake.addAccount({
      balances: {
        XXBT: { balance: '1.2345678901', hold_trade: '0.1000000000' },
        // 17 significant digits: a float would make it …123.4568.
        ZEUR: { balance: '1234567890123.4567', hold_trade: '0.0000' },
        XETH: { balance: '0.0000000000', hold_trade: '0.0000000000' },
      },
      depositAddresses: { XXBT: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' },
    });
    const id = await connected(account);
    const refreshed = await refresh(id, ['balances']);
    expect(refreshed.balance_refresh).toMatchObject({ status: 'succeeded', error: null });
    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data;
    expect(balances.map(({ asset, available, total }: Record<string, string>) => ({ asset, available, total }))).toEqual([
      { asset: 'BTC', available: '1.1345678901', total: '1.2345678901' },
      { asset: 'EUR', available: '1234567890123.4567', total: '1234567890123.4567' },
    ]);
    const addresses = (await call('GET', `/v1/connect/accounts/${id}/addresses`)).json().data;
    expect(addresses).toEqual([
      {
        object: 'address',
        address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
        asset: 'BTC',
        network: 'BTC',
        kind: 'deposit',
        label: 'Kraken BTC deposit',
      },
    ]);
  });

  it('reads no deposit addresses, but keeps the account active, when the key lacks the Deposit Funds permission', async () => {
    const account = live.fake.addAccount({
      permissions: new Set(['query_funds', 'query_ledger']),
      balances: { XXBT: { balance: '1.0000000000', hold_trade: '0.0000000000' } },
      depositAddresses: { XXBT: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' },
    });
    const id = await connected(account);
    const refreshed = await refresh(id, ['balances']);
    expect(refreshed).toMatchObject({ status: 'active', balance_refresh: { status: 'succeeded' } });
    expect((await call('GET', `/v1/connect/accounts/${id}/addresses`)).json().data).toEqual([]);
  });

  it('walks every ledger page and stores each entry once, with signed exact amounts and fees', async () => {
    const account = live.fake.addAccount({ ledger: krakenLedger(120) });
    const id = await connected(account);
    const offsetsBefore = live.fake.ledgerOffsets().length;
    const refreshed = await refresh(id, ['transactions']);
    expect(refreshed.transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
    expect(live.fake.ledgerOffsets().slice(offsetsBefore)).toEqual([0, 50, 100]);

    const stored = await allTransactions(id);
    expect(stored).toHaveLength(120);
    const withdrawal = stored.find((tx) => tx.type === 'withdrawal');
    expect(withdrawal).toMatchObject({ asset: 'BTC', amount: '-0.0012345678', fee: '0.000015' });
    const buy = stored.filter((tx) => tx.type === 'trade');
    expect(buy.some((tx) => tx.asset === 'EUR' && tx.amount === '-500' && tx.fee === '1.3')).toBe(true);
    expect(buy.some((tx) => tx.asset === 'BTC' && tx.amount === '0.0512345681')).toBe(true);

    // A second refresh finds the same entries: nothing doubles.
    await refresh(id, ['transactions']);
    expect(await allTransactions(id)).toHaveLength(120);
  });

  it('records a failed page mid-walk as a failed refresh, and the next refresh goes on from the last page stored', async () => {
    const account = live.fake.addAccount({ ledger: krakenLedger(120), failLedgerAtOffset: 100 });
    const id = await connected(account);
    const refreshed = await refresh(id, ['transactions']);
    expect(refreshed.transaction_refresh).toMatchObject({ status: 'failed', error: { code: 'provider_unavailable' } });
    // The pages read before are stored (they are Kraken's records); the refresh is not complete.
    expect(await allTransactions(id)).toHaveLength(100);

    delete account.failLedgerAtOffset;
    live.app.clock.advance(EXCHANGE_UNAVAILABLE_SECONDS);
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded' });
    // It asks only for what is older than the oldest entry stored (Kraken's `end`, inclusive):
    // the 20 left and the few of the boundary second again, one page.
    const oldestStored = Math.floor((account.ledger[20] as { time: number }).time);
    const resumed = live.fake.requests
      .slice(before)
      .filter((r) => r.path === '/0/private/Ledgers')
      .map((r) => new URLSearchParams(r.body));
    expect(resumed.map((p) => [p.get('end'), p.get('ofs')])).toEqual([[String(oldestStored + 1), '0']]);
    expect(await allTransactions(id)).toHaveLength(120);

    // Done: the next refresh is incremental, from a day before the newest entry.
    const newest = Math.floor(Math.max(...account.ledger.map((e) => e.time)));
    const again = live.fake.requests.length;
    await refresh(id, ['transactions']);
    const next = live.fake.requests
      .slice(again)
      .filter((r) => r.path === '/0/private/Ledgers')
      .map((r) => new URLSearchParams(r.body));
    expect(next.every((p) => p.get('start') === String(newest - 86_400) && !p.has('end'))).toBe(true);
  });

  it('reads only what is new (and the last day again) on the next refresh, from the stored cursor', async () => {
    // Hourly entries: 120 span five days.
    const start = 1_767_603_600;
    const account = live.fake.addAccount({ ledger: krakenLedger(120, { startTime: start, spacing: 3600 }) });
    const id = await connected(account);
    await refresh(id, ['transactions']);
    const newest = Math.floor(Math.max(...account.ledger.map((e) => e.time)));

    account.ledger.push(...krakenLedger(30, { startTime: newest + 3 * 86_400, spacing: 3600, first: 120 }));
    const requestsBefore = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded' });
    const ledgerCalls = live.fake.requests
      .slice(requestsBefore)
      .filter((r) => r.path === '/0/private/Ledgers')
      .map((r) => new URLSearchParams(r.body));
    // From a day before the newest entry already read: 24 re-read, 30 new → two pages.
    expect(ledgerCalls.map((p) => [p.get('start'), p.get('ofs')])).toEqual([
      [String(newest - 86_400), '0'],
      [String(newest - 86_400), '50'],
    ]);
    expect(await allTransactions(id)).toHaveLength(150);
  });

  it('fails the refresh, naming the field, when the stored cursor is not one of the ledger walk’s forms', async () => {
    const account = live.fake.addAccount({ ledger: krakenLedger(3) });
    const id = await connected(account);
    // A checkpoint of another walk (by `until`): read as this walk's, it would start it anywhere.
    await live.app.ctx.db
      .updateTable('connect_accounts')
      .set({ transaction_cursor: JSON.stringify({ backfill: { until: 1_767_603_600_000, top: 1_767_603_600 } }) })
      .where('id', '=', id)
      .execute();
    const before = live.fake.requests.length;
    expect((await call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['transactions'] })).statusCode).toBe(200);
    await runDueJobs(live.app.ctx);
    // The job fails with the misfit (the worker logs it, and retries), having asked Kraken nothing.
    const job = await live.app.ctx.db
      .selectFrom('jobs')
      .select(['status', 'last_error'])
      .where('payload', 'like', `%"account_id":"${id}"%`)
      .executeTakeFirstOrThrow();
    expect(job.last_error).toContain(
      "Kraken's stored history cursor is not one of the ledger-offset walk's: /backfill/end Expected required property",
    );
    expect(live.fake.requests.slice(before).some((r) => r.path === '/0/private/Ledgers')).toBe(false);
    await live.app.ctx.db.deleteFrom('jobs').where('payload', 'like', `%"account_id":"${id}"%`).execute();
  });

  it.each([
    [
      'the rate limit',
      (a: KrakenAccount) => (a.failWith = 'EAPI:Rate limit exceeded'),
      'provider_rate_limited',
      EXCHANGE_RATE_LIMIT_SECONDS,
    ],
    ['an outage', (a: KrakenAccount) => (a.failWith = 'EService:Unavailable'), 'provider_unavailable', EXCHANGE_UNAVAILABLE_SECONDS],
  ])('records %s as a failed refresh with the time to come back', async (_what, breakIt, code, seconds) => {
    const account = live.fake.addAccount({ ledger: krakenLedger(3) });
    const id = await connected(account);
    breakIt(account);
    const before = Math.floor(live.app.clock.now() / 1000);
    const refreshed = await refresh(id, ['balances', 'transactions']);
    const after = Math.floor(live.app.clock.now() / 1000);
    for (const state of [refreshed.balance_refresh, refreshed.transaction_refresh]) {
      expect(state).toMatchObject({ status: 'failed', error: { code } });
      expect(state.next_refresh_available_at).toBeGreaterThanOrEqual(before + seconds);
      expect(state.next_refresh_available_at).toBeLessThanOrEqual(after + seconds);
    }
    expect(refreshed.status).toBe('active');
  });

  it('records maintenance as unavailable with the time to come back', async () => {
    const account = live.fake.addAccount({ ledger: krakenLedger(3) });
    const id = await connected(account);
    live.fake.setStatus('maintenance');
    try {
      const refreshed = await refresh(id, ['transactions']);
      expect(refreshed.transaction_refresh).toMatchObject({ status: 'failed', error: { code: 'provider_unavailable' } });
      expect(refreshed.transaction_refresh.next_refresh_available_at).toBeGreaterThan(0);
    } finally {
      live.fake.setStatus('online');
    }
  });

  it('marks the account requires_reauth, with an event, when Kraken stops accepting the key', async () => {
    const account = live.fake.addAccount({ balances: { XXBT: { balance: '1.0000000000', hold_trade: '0.0000000000' } } });
    const id = await connected(account);
    account.failWith = 'EAPI:Invalid key';
    const refreshed = await refresh(id, ['balances']);
    expect(refreshed.status).toBe('requires_reauth');
    expect(refreshed.balance_refresh).toMatchObject({ status: 'failed', error: { code: 'reauthentication_required' } });
    const events = (await call('GET', '/v1/events?type=account.refreshed')).json().data;
    expect(events.find((e: { data: { object: { id: string } } }) => e.data.object.id === id).data.object.status).toBe('requires_reauth');
  });

  it('never writes an API key or secret to the logs or the database', async () => {
    const account = live.fake.addAccount({
      balances: { XXBT: { balance: '1.0000000000', hold_trade: '0.0000000000' } },
      ledger: krakenLedger(60),
    });
    const { session: created, path, agent } = await consented();
    // A failed attempt first (its key and secret must not be kept either), then the real one.
    const other = live.fake.addAccount({ failWith: 'EGeneral:Permission denied' });
    expect((await agent.post(`${path}/providers/kraken`, { apiKey: other.key, secret: other.secret })).statusCode).toBe(422);
    expect((await agent.post(`${path}/providers/kraken`, { apiKey: account.key, secret: account.secret })).statusCode).toBe(303);
    expect((await agent.post(`${path}/finish`)).statusCode).toBe(200);
    const [id] = (await session(created.id)).accounts;
    await refresh(id as string, ['balances', 'transactions']);
    account.failWith = 'EAPI:Invalid key';
    await refresh(id as string, ['balances']);

    expect(log.lines.length).toBeGreaterThan(0);
    const logs = log.lines.join('\n');
    const dump = [...(await snapshotDatabase(live.app.ctx.db, [])).values()].join('\n');
    for (const secret of [account.key, account.secret, other.key, other.secret]) {
      for (const form of [secret, encodeURIComponent(secret), Buffer.from(secret, 'base64').toString('hex')]) {
        expect(logs.includes(form), 'logs').toBe(false);
        expect(dump.includes(form), 'database').toBe(false);
      }
    }
  });
});
