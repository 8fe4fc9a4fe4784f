import { describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { GEMINI_MARKETS, startFakeGemini, type GeminiAccount, type GeminiTrade } from '../../../test/support/fake-gemini.js';
import { liveExchangeSuite, netByAsset } from '../../../test/support/live-exchange.js';

const DAY = 86_400_000;

/**
 * Gemini in live mode: ccxt's gemini class, unmodified, against a local fake Gemini that checks every
 * private request's payload, HMAC-SHA384 signature and nonce. Its lists (transfers, trades per
 * market) page forward by time, as Gemini documents the walk.
 */
describe.each(engines())('Gemini through ccxt on %s', (engine) => {
  const live = liveExchangeSuite(engine, 'gemini', startFakeGemini);
  const { consented, connected, refresh, allTransactions, call } = live;
  const fields = (account: GeminiAccount) => ({ apiKey: account.key, secret: account.secret });
  const trade = (
    symbol: string,
    tid: number,
    type: 'Buy' | 'Sell',
    amount: string,
    price: string,
    fee_amount: string,
    fee_currency: string,
    daysAgo: number,
  ): GeminiTrade => ({
    symbol,
    tid,
    order_id: String(tid * 10),
    type,
    price,
    amount,
    fee_currency,
    fee_amount,
    timestampms: Date.now() - daysAgo * DAY,
  });

  it('reads every page of transfers and every market’s trades, following the assets found, and the history adds up to the balances', async () => {
    const deposits = Array.from({ length: 120 }, (_, i) => ({
      eid: 1000 + i,
      type: 'Deposit' as const,
      status: 'Complete' as const,
      currency: 'BTC',
      amount: '0.01',
      txHash: i.toString(16).padStart(64, '0'),
      timestampms: Date.now() - 60 * DAY + i * 3_600_000,
    }));
    const account = live.fake.addAccount({
      balances: [
        { currency: 'BTC', amount: '1.2', available: '1.2' },
        { currency: 'USD', amount: '4995.001', available: '4995.001' },
      ],
      transfers: [
        ...deposits,
        { eid: 5000, type: 'Deposit', status: 'Complete', currency: 'USD', amount: '5000', timestampms: Date.now() - 50 * DAY },
      ],
      addresses: { bitcoin: [{ address: 'bc1qgeminideposit000000000000000000000000', timestamp: Date.now() - 90 * DAY, label: 'BTC' }] },
      trades: [
        trade('ethusd', 1, 'Buy', '1', '2000', '2', 'USD', 40),
        trade('soleth', 2, 'Buy', '10', '0.05', '0.0005', 'ETH', 39),
        trade('solusd', 3, 'Sell', '10', '100', '1', 'USD', 38),
        trade('ethusd', 4, 'Sell', '0.4995', '2000', '0.999', 'USD', 37),
      ],
    });
    const id = await connected('gemini', fields(account));
    const before = live.fake.requests.length;
    const refreshed = await refresh(id, ['balances', 'transactions']);
    expect(refreshed.transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
    expect(refreshed.balance_refresh).toMatchObject({ status: 'succeeded' });
    // Deposit addresses: BTC's on Gemini's `bitcoin` network; none asked for USD (no network).
    expect((await call('GET', `/v1/connect/accounts/${id}/addresses`)).json().data).toEqual([
      expect.objectContaining({ address: 'bc1qgeminideposit000000000000000000000000', asset: 'BTC', network: 'BTC', kind: 'deposit' }),
    ]);
    expect(
      live.fake.requests
        .slice(before)
        .filter((r) => r.path.startsWith('/v1/addresses/'))
        .map((r) => r.path),
    ).toEqual(['/v1/addresses/bitcoin']);

    const transactions = await allTransactions(id);
    expect(transactions.filter((tx) => tx.type === 'deposit')).toHaveLength(121);
    expect(transactions.filter((tx) => tx.type === 'trade')).toHaveLength(8);
    expect(netByAsset(transactions)).toEqual({ BTC: '1.2', ETH: '0', SOL: '0', USD: '4995.001' });
    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data;
    expect(balances.map((b: { asset: string; total: string }) => [b.asset, b.total])).toEqual([
      ['BTC', '1.2'],
      ['USD', '4995.001'],
    ]);

    const payloads = live.fake.requests.slice(before).map((r) => ({
      path: r.path,
      body: JSON.parse(Buffer.from(String(r.headers['x-gemini-payload'] ?? ''), 'base64').toString('utf8') || '{}') as Record<
        string,
        unknown
      >,
    }));
    // Transfers from the beginning, 50 at a time, each page from one ms after the newest read, to an empty page.
    const transferPages = payloads.filter((p) => p.path === '/v1/transfers').map((p) => p.body);
    expect(transferPages).toHaveLength(4);
    expect(transferPages[0]).toMatchObject({ timestamp: 0, limit_transfers: 50 });
    expect(transferPages.slice(1).every((b, i) => Number(b.timestamp) > Number(transferPages[i]?.timestamp))).toBe(true);
    // Trades: the markets of USD and BTC, then ETH's once an ETH trade turned up, then SOL's; never DOGE/EUR.
    const asked = payloads.filter((p) => p.path === '/v1/mytrades').map((p) => String(p.body.symbol));
    expect([...new Set(asked)].sort()).toEqual(GEMINI_MARKETS.filter((m) => m !== 'dogeeur').sort());
  });

  it('asks each market only for trades after the last one read on the next refresh', async () => {
    const account = live.fake.addAccount({
      balances: [{ currency: 'USD', amount: '100', available: '100' }],
      trades: [trade('btcusd', 10, 'Buy', '0.001', '60000', '0.6', 'USD', 3)],
    });
    const id = await connected('gemini', fields(account));
    await refresh(id, ['transactions']);
    const first = account.trades[0] as GeminiTrade;
    account.trades.push(trade('btcusd', 11, 'Sell', '0.001', '61000', '0.61', 'USD', 0));
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded' });
    const btc = live.fake.requests
      .slice(before)
      .map(
        (r) =>
          JSON.parse(Buffer.from(String(r.headers['x-gemini-payload'] ?? ''), 'base64').toString('utf8') || '{}') as Record<
            string,
            unknown
          >,
      )
      .filter((b) => b.request === '/v1/mytrades' && b.symbol === 'btcusd');
    expect(btc[0]?.timestamp).toBe(first.timestampms + 1);
    const transactions = await allTransactions(id);
    expect(transactions.filter((tx) => tx.type === 'trade')).toHaveLength(4);
    expect(new Set(transactions.map((tx) => tx.id)).size).toBe(transactions.length);
  });

  it('reads no deposit addresses, but keeps the account active, when the key’s role cannot list them', async () => {
    const account = live.fake.addAccount({
      roles: { isAuditor: false, isFundManager: false, isTrader: false },
      balances: [{ currency: 'BTC', amount: '0.1', available: '0.1' }],
      addresses: { bitcoin: [{ address: 'bc1qgeminideposit000000000000000000000000', timestamp: Date.now() }] },
    });
    const id = await connected('gemini', fields(account));
    const before = live.fake.requests.length;
    const refreshed = await refresh(id, ['balances']);
    expect(refreshed).toMatchObject({ status: 'active', balance_refresh: { status: 'succeeded', error: null } });
    // Gemini refused the lookup (MissingRole), which ccxt reports as an authentication failure.
    expect(live.fake.requests.slice(before).filter((r) => r.path === '/v1/addresses/bitcoin')).toHaveLength(1);
    expect((await call('GET', `/v1/connect/accounts/${id}/addresses`)).json().data).toEqual([]);
  });

  it('refuses a key with the Trader or Fund Manager role, and explains a wrong secret', async () => {
    const trader = live.fake.addAccount({ roles: { isAuditor: false, isFundManager: false, isTrader: true } });
    const { path, agent } = await consented();
    const refused = await agent.post(`${path}/providers/gemini`, fields(trader));
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('This key can trade.');
    const auditor = live.fake.addAccount();
    const wrong = await agent.post(`${path}/providers/gemini`, { apiKey: auditor.key, secret: `${auditor.secret}x` });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('Gemini did not accept this API key and secret.');
  });
});
