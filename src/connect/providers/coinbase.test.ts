import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { snapshotDatabase } from '../../../test/support/db-snapshot.js';
import { COINBASE_UNAUTHORIZED, startFakeCoinbase, type CoinbaseAccount, type CoinbaseWallet } from '../../../test/support/fake-coinbase.js';
import { liveExchangeSuite } from '../../../test/support/live-exchange.js';
import { captureStream } from '../../../test/support/test-app.js';
import { EXCHANGE_RATE_LIMIT_SECONDS } from './ccxt-errors.js';

/**
 * Coinbase (Advanced Trade, CDP keys) in live mode, end to end: ccxt's coinbase class, unmodified,
 * against a local fake Coinbase over HTTPS that checks every request's ES256 JWT.
 */
describe.each(engines())('Coinbase through ccxt on %s', (engine) => {
  const log = captureStream();
  const live = liveExchangeSuite(engine, 'coinbase', startFakeCoinbase, { app: { config: { LOG_LEVEL: 'trace' }, logStream: log.stream } });
  const { consented, session, connected, refresh, allTransactions, call } = live;
  const fields = (account: CoinbaseAccount) => ({ apiKey: account.key, secret: account.secret });

  /** A BTC wallet with `count` transactions, newest first, one a day. */
  function btcWallet(count: number): CoinbaseWallet {
    const transactions = Array.from({ length: count }, (_, i) => {
      const n = count - 1 - i;
      return { id: `tx-${String(n).padStart(4, '0')}`, type: n % 2 === 0 ? 'buy' : 'send', status: 'completed', amount: n % 2 === 0 ? '0.00100000' : '-0.00050000', created_at: new Date(Date.UTC(2025, 0, 1) + n * 86_400_000).toISOString() };
    });
    return { uuid: '8bfc20d7-f7c6-4422-bf07-8243ca4169fe', currency: 'BTC', available: '0.12345678', hold: '0.00000001', transactions };
  }

  it('asks for the key name and the PEM private key, and never writes either back into the form', async () => {
    const { path, agent } = await consented();
    const form = await agent.get(`${path}/providers/coinbase`);
    expect(form.body).toMatch(/<textarea id="field-secret" name="secret"/);
    const account = live.fake.addAccount({ failWith: COINBASE_UNAUTHORIZED });
    const failed = await agent.post(`${path}/providers/coinbase`, fields(account));
    expect(failed.statusCode).toBe(422);
    expect(failed.body).toContain('Coinbase did not accept this API key and secret.');
    expect(failed.body).not.toContain(account.key);
    // The PEM's key material (the hint names the BEGIN/END lines, the key itself is never shown).
    expect(failed.body).not.toContain(account.secret.split('\n')[1]);
  });

  it('connects a view-only key and refreshes exact balances and every page of every wallet’s ledger', async () => {
    const account = live.fake.addAccount({
      wallets: [
        { ...btcWallet(150), addresses: [{ id: 'addr-1', address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', network: 'bitcoin' }] },
        { uuid: '1bfc20d7-f7c6-4422-bf07-8243ca4169fe', currency: 'USD', available: '1000.50', hold: '0', transactions: [] },
        { uuid: '2bfc20d7-f7c6-4422-bf07-8243ca4169fe', currency: 'ETH', available: '0', hold: '0', transactions: [], addresses: [{ id: 'addr-2', address: '0x0000000000000000000000000000000000000004', network: 'ethereum' }] },
      ],
    });
    const id = await connected('coinbase', fields(account));
    const refreshed = await refresh(id, ['balances', 'transactions']);
    expect(refreshed.balance_refresh).toMatchObject({ status: 'succeeded' });
    expect(refreshed.transaction_refresh).toMatchObject({ status: 'succeeded' });
    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data;
    expect(balances.map(({ asset, available, total }: Record<string, string>) => ({ asset, available, total }))).toEqual([
      { asset: 'BTC', available: '0.12345678', total: '0.12345679' },
      { asset: 'USD', available: '1000.5', total: '1000.5' },
    ]);
    // The BTC wallet's existing address, listed (ccxt's lookup would create one: a write). The
    // ETH wallet holds nothing: not asked.
    const addresses = (await call('GET', `/v1/connect/accounts/${id}/addresses`)).json().data;
    expect(addresses.map(({ address, asset, kind, label }: Record<string, string>) => ({ address, asset, kind, label }))).toEqual([
      { address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', asset: 'BTC', kind: 'deposit', label: 'Coinbase BTC deposit' },
    ]);
    expect(live.fake.requests.some((r) => r.path === '/v2/accounts/2bfc20d7-f7c6-4422-bf07-8243ca4169fe/addresses')).toBe(false);
    expect(live.fake.requests.some((r) => r.method !== 'GET')).toBe(false);
    const transactions = await allTransactions(id);
    expect(transactions).toHaveLength(150);
    expect(transactions[0]).toMatchObject({ type: 'withdrawal', asset: 'BTC', amount: '-0.0005' });
    expect(transactions[1]).toMatchObject({ type: 'trade', asset: 'BTC', amount: '0.001' });
    const pages = live.fake.requests.filter((r) => r.path === '/v2/accounts/8bfc20d7-f7c6-4422-bf07-8243ca4169fe/transactions');
    expect(pages.map((r) => r.query.get('starting_after'))).toEqual([null, 'tx-0050']);
    // Every private request carried a fresh ES256 JWT the fake verified (it answers 401 otherwise).
    expect(live.fake.requests.filter((r) => r.headers.authorization).every((r) => String(r.headers.authorization).startsWith('Bearer '))).toBe(true);
  });

  it('reads every page of wallets (250 a page), adding wallets of one currency together', async () => {
    // Two BTC wallets, the first and the last: one on each page.
    const btc = (i: number) => i === 0 || i === 259;
    const wallets: CoinbaseWallet[] = Array.from({ length: 260 }, (_, i) => ({
      uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      currency: btc(i) ? 'BTC' : `T${String(i).padStart(3, '0')}`,
      available: btc(i) ? '0.1' : `${i + 1}.5`,
      hold: i === 259 ? '0.00000001' : '0',
      transactions: [],
    }));
    const account = live.fake.addAccount({ wallets });
    const id = await connected('coinbase', fields(account));
    const before = live.fake.requests.length;
    expect((await refresh(id, ['balances'])).balance_refresh).toMatchObject({ status: 'succeeded' });
    const pages = live.fake.requests.slice(before).filter((r) => r.path === '/api/v3/brokerage/accounts');
    // Both pages for the balances, then both again for the wallets whose deposit addresses to list.
    expect(pages.map((r) => [r.query.get('limit'), r.query.get('cursor')])).toEqual([
      ['250', null],
      ['250', '250'],
      ['250', null],
      ['250', '250'],
    ]);
    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data as { asset: string; available: string; total: string }[];
    expect(balances).toHaveLength(259);
    expect(balances.find((b) => b.asset === 'T257')).toMatchObject({ available: '258.5', total: '258.5' });
    // The BTC wallets of the first and the second page: one balance, added exactly.
    expect(balances.find((b) => b.asset === 'BTC')).toMatchObject({ available: '0.2', total: '0.20000001' });
  });

  it('stores each page of a wallet’s ledger as it arrives: a failure on the second keeps the first, unfinished', async () => {
    const account = live.fake.addAccount({ wallets: [{ ...btcWallet(150), uuid: '7bfc20d7-f7c6-4422-bf07-8243ca4169fe' }] });
    const id = await connected('coinbase', fields(account));
    live.fake.failNext((r) => r.path === '/v2/accounts/7bfc20d7-f7c6-4422-bf07-8243ca4169fe/transactions' && r.query.get('starting_after') === 'tx-0050', {
      status: 503,
      body: 'upstream connect error or disconnect/reset before headers',
      text: true,
    });
    const failed = await refresh(id, ['transactions']);
    expect(failed.transaction_refresh).toMatchObject({ status: 'failed', error: { code: 'provider_unavailable' } });
    expect(await allTransactions(id)).toHaveLength(100);

    live.app.clock.advance(failed.transaction_refresh.next_refresh_available_at - Math.floor(live.app.clock.now() / 1000));
    const again = await refresh(id, ['transactions']);
    expect(again.transaction_refresh).toMatchObject({ status: 'succeeded' });
    expect(await allTransactions(id)).toHaveLength(150);
  });

  it('refuses a key that can trade or transfer, before creating any account', async () => {
    const account = live.fake.addAccount({ permissions: { can_view: true, can_trade: true, can_transfer: true } });
    const { session: created, path, agent } = await consented();
    const res = await agent.post(`${path}/providers/coinbase`, fields(account));
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('This key can trade and withdraw.');
    expect(await session(created.id)).toMatchObject({ status: 'open', accounts: [] });
  });

  it('refuses a JWT signed with another private key as a wrong key', async () => {
    const account = live.fake.addAccount();
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString();
    const { path, agent } = await consented();
    const res = await agent.post(`${path}/providers/coinbase`, { apiKey: account.key, secret: other });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('Coinbase did not accept this API key and secret.');
  });

  it('records a 429 as rate limited and a revoked key as requires_reauth', async () => {
    const account = live.fake.addAccount({ wallets: [btcWallet(3)] });
    const id = await connected('coinbase', fields(account));
    account.failWith = { status: 429, body: { errors: [{ id: 'rate_limit_exceeded', message: 'Too many requests' }] } };
    const limited = await refresh(id, ['balances']);
    expect(limited.balance_refresh).toMatchObject({ status: 'failed', error: { code: 'provider_rate_limited' } });
    expect(limited.balance_refresh.next_refresh_available_at).toBeGreaterThan(0);

    live.app.clock.advance(EXCHANGE_RATE_LIMIT_SECONDS);
    account.failWith = COINBASE_UNAUTHORIZED;
    const revoked = await refresh(id, ['transactions']);
    expect(revoked.status).toBe('requires_reauth');
  });

  it('never writes the key name or the private key to the logs or the database', async () => {
    const account = live.fake.addAccount({ wallets: [btcWallet(5)] });
    const id = await connected('coinbase', fields(account));
    await refresh(id, ['balances', 'transactions']);
    const logs = log.lines.join('\n');
    const dump = [...(await snapshotDatabase(live.app.ctx.db, [])).values()].join('\n');
    const pemBody = account.secret.split('\n').slice(1, -2).join('');
    for (const secret of [account.key, account.secret, pemBody, JSON.stringify(account.secret)]) {
      expect(logs.includes(secret), 'logs').toBe(false);
      expect(dump.includes(secret), 'database').toBe(false);
    }
  });
});
