import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { snapshotDatabase } from '../../../test/support/db-snapshot.js';
import {
  COINBASE_UNAUTHORIZED,
  startFakeCoinbase,
  type CoinbaseAccount,
  type CoinbaseAddress,
  type CoinbaseWallet,
} from '../../../test/support/fake-coinbase.js';
import { fakeForTests } from '../../../test/support/fake-exchange-server.js';
import { liveExchangeSuite, netByAsset } from '../../../test/support/live-exchange.js';
import { providerAt, refsOf, walkHistory } from '../../../test/support/provider-walk.js';
import { captureStream } from '../../../test/support/test-app.js';
import { EXCHANGE_RATE_LIMIT_SECONDS } from './ccxt-errors.js';

/**
 * Two wallets whose history adds up to their balances, network fees inside the sends' amounts: a
 * USDT wallet and a BTC wallet.
 */
function feeWallets(): { btc: CoinbaseWallet; usdt: CoinbaseWallet } {
  // The USDT wallet's two transfers as ccxt's capture of Coinbase has them (ccxt/ccxt,
  // ts/src/test/static/response/coinbase.json, fetchDepositsWithdrawals): 2.01 USDT in, and
  // eighteen minutes later a send of −2.01 whose network fee (1.530199) is part of it.
  const usdt: CoinbaseWallet = {
    uuid: '952ea6fb-7422-5097-841f-23749355aca5',
    currency: 'USDT',
    available: '10',
    hold: '0',
    transactions: [
      {
        id: 'e457a27e-8ad0-56ee-90d3-94d9a86fc203',
        type: 'send',
        status: 'completed',
        amount: '-2.010000',
        created_at: '2024-11-03T13:50:09Z',
        network: { hash: '123485af495b4a19521e989b3c67c14cd36e38e7eda755faf8aa4321c8f41be8', status: 'pending', fee: '1.530199' },
        to: '0x22d35481cb74fa959aec61d11a5d4507a6112345',
      },
      {
        id: '45cdc829-ba86-5125-8c53-61b8ff3b2f2a',
        type: 'send',
        status: 'completed',
        amount: '2.010000',
        created_at: '2024-11-03T13:32:02Z',
        network: { hash: '432e6504d28630c9fbe44ea0aeb6c8f2ff60d271d92045b24b02d65a8b0c2e3a', status: 'confirmed' },
      },
      {
        id: 'c1d2e3f4-0000-4000-8000-000000000001',
        type: 'buy',
        status: 'completed',
        amount: '10.000000',
        created_at: '2024-11-01T09:00:00Z',
      },
    ],
  };
  // Bought 0.01 BTC, received 0.0005, sent 0.004 of which 0.0001 was the network's fee.
  const btc: CoinbaseWallet = {
    uuid: '6bfc20d7-f7c6-4422-bf07-8243ca4169fe',
    currency: 'BTC',
    available: '0.0065',
    hold: '0',
    transactions: [
      {
        id: 'c1d2e3f4-0000-4000-8000-000000000004',
        type: 'send',
        status: 'completed',
        amount: '0.00050000',
        created_at: '2025-02-03T10:00:00Z',
        network: { hash: 'c'.repeat(64), status: 'confirmed' },
      },
      {
        id: 'c1d2e3f4-0000-4000-8000-000000000003',
        type: 'send',
        status: 'completed',
        amount: '-0.00400000',
        created_at: '2025-02-02T10:00:00Z',
        network: { hash: 'd'.repeat(64), status: 'confirmed', fee: '0.00010000' },
        to: 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh',
      },
      {
        id: 'c1d2e3f4-0000-4000-8000-000000000002',
        type: 'buy',
        status: 'completed',
        amount: '0.01000000',
        created_at: '2025-02-01T10:00:00Z',
      },
    ],
  };
  return { btc, usdt };
}

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
      return {
        id: `tx-${String(n).padStart(4, '0')}`,
        type: n % 2 === 0 ? 'buy' : 'send',
        status: 'completed',
        amount: n % 2 === 0 ? '0.00100000' : '-0.00050000',
        created_at: new Date(Date.UTC(2025, 0, 1) + n * 86_400_000).toISOString(),
      };
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
        {
          uuid: '2bfc20d7-f7c6-4422-bf07-8243ca4169fe',
          currency: 'ETH',
          available: '0',
          hold: '0',
          transactions: [],
          addresses: [{ id: 'addr-2', address: '0x0000000000000000000000000000000000000004', network: 'ethereum' }],
        },
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
    expect(
      live.fake.requests.filter((r) => r.headers.authorization).every((r) => String(r.headers.authorization).startsWith('Bearer ')),
    ).toBe(true);
  });

  it('reads a send’s network fee inside its amount, and the history adds up to the balances', async () => {
    const { btc, usdt } = feeWallets();
    const account = live.fake.addAccount({ wallets: [btc, usdt] });
    const id = await connected('coinbase', fields(account));
    const refreshed = await refresh(id, ['balances', 'transactions']);
    expect(refreshed.transaction_refresh).toMatchObject({ status: 'succeeded' });
    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data;
    expect(balances.map(({ asset, total }: Record<string, string>) => [asset, total])).toEqual([
      ['BTC', '0.0065'],
      ['USDT', '10'],
    ]);
    const transactions = await allTransactions(id);
    expect(netByAsset(transactions)).toEqual({ BTC: '0.0065', USDT: '10' });
    // The send took 2.01 from the wallet: 0.479801 reached the address, 1.530199 paid the network.
    expect(transactions.find((tx) => tx.fee === '1.530199')).toMatchObject({
      type: 'withdrawal',
      asset: 'USDT',
      amount: '-0.479801',
      fee_asset: 'USDT',
    });
    expect(transactions.find((tx) => tx.fee === '0.0001')).toMatchObject({
      type: 'withdrawal',
      asset: 'BTC',
      amount: '-0.0039',
      fee_asset: 'BTC',
    });
  });

  it('lists a deposit address with its memo or tag, wherever Coinbase answers it', async () => {
    const wallet = (uuid: string, currency: string, address: CoinbaseAddress): CoinbaseWallet => ({
      uuid,
      currency,
      available: '25',
      hold: '0',
      transactions: [],
      addresses: [address],
    });
    const account = live.fake.addAccount({
      wallets: [
        // The tag at the top level, no `address_info`: the captured answer's shape.
        wallet('3bfc20d7-f7c6-4422-bf07-8243ca4169fe', 'XRP', {
          id: 'addr-xrp',
          address: 'rw2ciyaNshpHe7bCHo4bRWq6pqqynnWKQg',
          network: 'ripple',
          destination_tag: '3735928559',
        }),
        // In `address_info`, as Coinbase's reference documents it.
        wallet('4bfc20d7-f7c6-4422-bf07-8243ca4169fe', 'XLM', {
          id: 'addr-xlm',
          address: 'GCKFBEIYV2U22IO2BJ4KVJOIP7XPWQGQFKKWXR6DOSJBV7STMAQSMTGG',
          network: 'stellar',
          destination_tag: '987654',
          addressInfo: true,
        }),
        // An empty tag is none (the capture's own ERC-20 address).
        wallet('5bfc20d7-f7c6-4422-bf07-8243ca4169fe', 'USDT', {
          id: 'addr-usdt',
          address: '0x80C5F5921493e628A8036343B69B966123De7dC0',
          network: 'ethereum',
        }),
      ],
    });
    const id = await connected('coinbase', fields(account));
    expect((await refresh(id, ['balances'])).balance_refresh).toMatchObject({ status: 'succeeded' });
    const addresses = (await call('GET', `/v1/connect/accounts/${id}/addresses`)).json().data;
    expect(addresses.map(({ address, asset, label }: Record<string, string>) => ({ address, asset, label }))).toEqual([
      { address: '0x80C5F5921493e628A8036343B69B966123De7dC0', asset: 'USDT', label: 'Coinbase USDT deposit' },
      {
        address: 'GCKFBEIYV2U22IO2BJ4KVJOIP7XPWQGQFKKWXR6DOSJBV7STMAQSMTGG',
        asset: 'XLM',
        label: 'Coinbase XLM deposit (memo/tag: 987654)',
      },
      { address: 'rw2ciyaNshpHe7bCHo4bRWq6pqqynnWKQg', asset: 'XRP', label: 'Coinbase XRP deposit (memo/tag: 3735928559)' },
    ]);
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
    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data as {
      asset: string;
      available: string;
      total: string;
    }[];
    expect(balances).toHaveLength(259);
    expect(balances.find((b) => b.asset === 'T257')).toMatchObject({ available: '258.5', total: '258.5' });
    // The BTC wallets of the first and the second page: one balance, added exactly.
    expect(balances.find((b) => b.asset === 'BTC')).toMatchObject({ available: '0.2', total: '0.20000001' });
  });

  it('stores each page of a wallet’s ledger as it arrives: a failure on the second keeps the first, unfinished', async () => {
    const account = live.fake.addAccount({ wallets: [{ ...btcWallet(150), uuid: '7bfc20d7-f7c6-4422-bf07-8243ca4169fe' }] });
    const id = await connected('coinbase', fields(account));
    live.fake.failNext(
      (r) => r.path === '/v2/accounts/7bfc20d7-f7c6-4422-bf07-8243ca4169fe/transactions' && r.query.get('starting_after') === 'tx-0050',
      {
        status: 503,
        body: 'upstream connect error or disconnect/reset before headers',
        text: true,
      },
    );
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

/** The wallets' ledgers walked through the provider interface the refresh uses, from a stored cursor. */
describe('Coinbase wallet ledgers walked from a stored cursor', () => {
  const coinbase = fakeForTests(startFakeCoinbase);
  const walk = (account: CoinbaseAccount, cursor: string | null) =>
    walkHistory(providerAt('coinbase', coinbase.fake.url), { apiKey: account.key, secret: account.secret }, cursor);

  it('reads every wallet again, once, for a cursor stored when network fees were read on top of the amounts', async () => {
    const { btc, usdt } = feeWallets();
    const account = coinbase.fake.addAccount({ wallets: [btc, usdt] });
    // A cursor of the former reading: after the USDT wallet's transfers (2024), before the BTC ones.
    const former = await walk(account, JSON.stringify({ since: Date.UTC(2025, 0, 1) }));
    const read = former.read.flatMap((page) => page.transactions);
    expect(read).toHaveLength(6);
    // The send stored then as −2.01 with its fee on top is read again, as the wallet moved.
    expect(read.find((tx) => tx.fee === '1.530199')).toMatchObject({
      ref: 'ledger:e457a27e-8ad0-56ee-90d3-94d9a86fc203',
      amount: '-0.479801',
      description: 'Coinbase wallet ledger: send',
    });
    // The cursor now says so: the next walk reads from the day before the newest entry only.
    expect(JSON.parse(former.returned as string)).toEqual({ since: Date.parse('2025-02-02T10:00:00Z'), feeIncluded: true });
    const later = await walk(account, former.returned as string);
    expect(refsOf(later.read).sort()).toEqual([
      'ledger:c1d2e3f4-0000-4000-8000-000000000003',
      'ledger:c1d2e3f4-0000-4000-8000-000000000004',
    ]);
  });
});
