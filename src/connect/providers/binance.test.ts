import { describe, expect, it } from 'vitest';
import { runDueJobs } from '../../../test/support/connect.js';
import { engines } from '../../../test/support/database.js';
import { snapshotDatabase } from '../../../test/support/db-snapshot.js';
import {
  BINANCE_MARKETS,
  BINANCE_RATE_LIMITED,
  startFakeBinance,
  type BinanceAccount,
  type BinanceFiatOrder,
  type BinanceTrade,
} from '../../../test/support/fake-binance.js';
import { pointExchangeAt } from '../../../test/support/exchange-overrides.js';
import { liveExchangeSteps, liveExchangeSuite, netByAsset } from '../../../test/support/live-exchange.js';
import { captureStream, startTestApp, type TestApp } from '../../../test/support/test-app.js';
import { EXCHANGE_RATE_LIMIT_SECONDS } from './ccxt-errors.js';

const DAY = 86_400_000;

/**
 * The per-account minute tests pace ccxt at this many ms a unit of cost (Binance's own is 50),
 * which shortens Binance's minute in proportion (account-limits.ts), to `MINUTE_AT_RATE_LIMIT`:
 * long enough to tell a wait for it from none, short enough that waiting for it costs little.
 */
const SHORT_MINUTE_RATE_LIMIT = 2.5;
const MINUTE_AT_RATE_LIMIT = (60_000 * SHORT_MINUTE_RATE_LIMIT) / 50;

/** A spot trade of the fake account, at `daysAgo`. */
function trade(
  symbol: string,
  id: number,
  side: 'buy' | 'sell',
  qty: string,
  price: string,
  quoteQty: string,
  commission: string,
  commissionAsset: string,
  daysAgo: number,
): BinanceTrade {
  return {
    symbol,
    id,
    orderId: id * 10,
    price,
    qty,
    quoteQty,
    commission,
    commissionAsset,
    time: Date.now() - daysAgo * DAY,
    isBuyer: side === 'buy',
    isMaker: false,
  };
}

/** A completed deposit of the fake account, `daysAgo`. */
function deposit(id: string, coin: string, amount: string, daysAgo: number) {
  return {
    id,
    amount,
    coin,
    network: 'ETH',
    status: 1,
    address: '0x0000000000000000000000000000000000000006',
    txId: `0x${id.padStart(64, '0')}`,
    insertTime: Date.now() - daysAgo * DAY,
  };
}

/** A fiat deposit (0) or withdrawal (1) in EUR of the fake account, `daysAgo`. */
function fiatOrder(
  transactionType: 0 | 1,
  orderNo: string,
  indicatedAmount: string,
  amount: string,
  totalFee: string,
  status: string,
  daysAgo: number,
): BinanceFiatOrder {
  const at = Date.now() - daysAgo * DAY;
  return {
    transactionType,
    orderNo,
    fiatCurrency: 'EUR',
    indicatedAmount,
    amount,
    totalFee,
    method: 'BankAccount',
    status,
    createTime: at,
    updateTime: at,
  };
}

/**
 * Binance in live mode, end to end: ccxt's binance class, unmodified, against a local fake Binance
 * that checks every SIGNED request (key header, HMAC-SHA256 signature, timestamp and recvWindow).
 */
describe.each(engines())('Binance through ccxt on %s', (engine) => {
  const log = captureStream();
  const live = liveExchangeSuite(engine, 'binance', startFakeBinance, { app: { config: { LOG_LEVEL: 'trace' }, logStream: log.stream } });
  const { consented, session, connected, refresh, allTransactions, call } = live;
  const fields = (account: BinanceAccount) => ({ apiKey: account.key, secret: account.secret });
  /**
   * Runs `check` against an app of its own (closed after) whose ccxt paces Binance at `rateLimit` ms
   * a unit of cost, or whose refreshes have `historyBudgetMs` to walk a history.
   */
  async function withApp(
    change: { rateLimit?: number; historyBudgetMs?: number },
    check: (app: TestApp, steps: ReturnType<typeof liveExchangeSteps>) => Promise<void>,
  ): Promise<void> {
    const binance = {
      ...pointExchangeAt('binance', live.fake.url),
      ...(change.rateLimit === undefined ? {} : { rateLimit: change.rateLimit }),
    };
    const app = await startTestApp(engine, {
      seams: {
        exchangeOverrides: { binance },
        ...(change.historyBudgetMs === undefined ? {} : { refreshHistoryBudgetMs: change.historyBudgetMs }),
      },
    });
    try {
      const appClient = await app.newClient();
      await check(
        app,
        liveExchangeSteps(
          () => app,
          () => appClient,
        ),
      );
    } finally {
      await app.close();
    }
  }

  it('connects a read-only key and refreshes exact balances (Spot and Funding wallets added), deposits and withdrawals', async () => {
    const account = live.fake.addAccount({
      balances: [
        { asset: 'BTC', free: '0.12345678', locked: '0.00100000' },
        { asset: 'USDT', free: '12345678901234.56789012', locked: '0.00000000' },
        { asset: 'ETH', free: '0.00000000', locked: '0.00000000' },
      ],
      funding: [
        { asset: 'BTC', free: '0.50000000', locked: '0.00000000', freeze: '0.00000000', withdrawing: '0.00000000' },
        { asset: 'USDC', free: '90.00000000', locked: '0.00000000', freeze: '10.00000000', withdrawing: '0.00000000' },
      ],
      deposits: [
        {
          id: '769800519366885376',
          amount: '0.50000000',
          coin: 'BTC',
          network: 'BTC',
          status: 1,
          address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
          txId: 'a'.repeat(64),
          insertTime: 1_767_603_600_000,
        },
      ],
      withdrawals: [
        {
          id: 'b6ae22b3aa844210a7041aee7589627c',
          amount: '0.25000000',
          transactionFee: '0.00020000',
          coin: 'BTC',
          network: 'BTC',
          status: 6,
          address: 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh',
          txId: 'b'.repeat(64),
          applyTime: '2026-01-10 11:12:02',
        },
      ],
    });
    const id = await connected('binance', fields(account));
    const refreshed = await refresh(id, ['balances', 'transactions']);
    expect(refreshed.balance_refresh).toMatchObject({ status: 'succeeded' });
    expect(refreshed.transaction_refresh).toMatchObject({ status: 'succeeded' });
    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data;
    expect(balances.map(({ asset, available, total }: Record<string, string>) => ({ asset, available, total }))).toEqual([
      { asset: 'BTC', available: '0.62345678', total: '0.62445678' },
      { asset: 'USDC', available: '90', total: '100' },
      { asset: 'USDT', available: '12345678901234.56789012', total: '12345678901234.56789012' },
    ]);
    // The Funding wallet is a signed POST: its signature travels in the body.
    const funding = live.fake.requests.filter(
      (r) => r.path === '/sapi/v1/asset/get-funding-asset' && r.headers['x-mbx-apikey'] === account.key,
    );
    expect(funding.length).toBeGreaterThan(0);
    expect(funding.every((r) => r.method === 'POST' && /&signature=[0-9a-f]{64}$/.test(r.body))).toBe(true);
    // Addresses are looked up for listed assets only: USDC has no market on the fake, so ccxt
    // does not know it (and would fail the refresh trying).
    const lookups = live.fake.requests
      .filter((r) => r.path === '/sapi/v1/capital/deposit/address' && r.headers['x-mbx-apikey'] === account.key)
      .map((r) => r.query.get('coin'));
    expect(lookups.sort()).toEqual(['BTC', 'USDT']);
    const transactions = await allTransactions(id);
    expect(transactions.map(({ type, asset, amount, fee, status, tx_hash }) => ({ type, asset, amount, fee, status, tx_hash }))).toEqual([
      { type: 'withdrawal', asset: 'BTC', amount: '-0.25', fee: '0.0002', status: 'completed', tx_hash: 'b'.repeat(64) },
      { type: 'deposit', asset: 'BTC', amount: '0.5', fee: null, status: 'completed', tx_hash: 'a'.repeat(64) },
    ]);
    // Every signed request carried the key and a timestamp; the fake refused none.
    const signed = live.fake.requests.filter((r) => r.query.has('signature'));
    expect(signed.length).toBeGreaterThan(0);
    expect(signed.every((r) => r.headers['x-mbx-apikey'] === account.key && r.query.has('timestamp'))).toBe(true);
  });

  it('walks the transfer history 90 days at a time since 2017 once, then only from the stored cursor', async () => {
    const account = live.fake.addAccount({
      deposits: [
        {
          id: 'dep-2019',
          amount: '1.00000000',
          coin: 'ETH',
          network: 'ETH',
          status: 1,
          address: '0x0000000000000000000000000000000000000001',
          txId: `0x${'c'.repeat(64)}`,
          insertTime: Date.UTC(2019, 4, 1),
        },
        {
          id: 'dep-recent',
          amount: '2.00000000',
          coin: 'ETH',
          network: 'ETH',
          status: 0,
          address: '0x0000000000000000000000000000000000000001',
          txId: `0x${'d'.repeat(64)}`,
          insertTime: Date.now() - 5 * 86_400_000,
        },
      ],
    });
    const id = await connected('binance', fields(account));
    const depositCalls = () =>
      live.fake.requests.filter((r) => r.path === '/sapi/v1/capital/deposit/hisrec' && r.headers['x-mbx-apikey'] === account.key);

    await refresh(id, ['transactions']);
    const windows = Math.ceil((Date.now() - Date.UTC(2017, 6, 1)) / (90 * 86_400_000));
    expect(depositCalls()).toHaveLength(windows);
    expect((await allTransactions(id)).map((tx) => [tx.amount, tx.status])).toEqual([
      ['2', 'pending'],
      ['1', 'completed'],
    ]);

    // The pending deposit completes; the next refresh starts a day before the newest entry read.
    (account.deposits[1] as { status: number }).status = 1;
    const before = depositCalls().length;
    await refresh(id, ['transactions']);
    const next = depositCalls().slice(before);
    expect(next).toHaveLength(1);
    const newest = (account.deposits[1] as { insertTime: number }).insertTime;
    expect(Number(next[0]?.query.get('startTime'))).toBe((Math.floor(newest / 1000) - 86_400) * 1000);
    expect((await allTransactions(id)).map((tx) => [tx.amount, tx.status])).toEqual([
      ['2', 'completed'],
      ['1', 'completed'],
    ]);
  });

  it('reads spot trades market by market, following the assets it finds, and the history reconciles with the balances', async () => {
    // 10,000 USDT in; BNB bought, SOL bought and sold for BNB, BNB sold: only BTC and USDT are left.
    const account = live.fake.addAccount({
      balances: [
        { asset: 'BTC', free: '0.04980000', locked: '0.00000000' },
        { asset: 'USDT', free: '4000.51757507', locked: '40.00000000' },
        { asset: 'BNB', free: '0.00000000', locked: '0.00000000' },
      ],
      deposits: [
        {
          id: 'dep-usdt',
          amount: '10000.00000000',
          coin: 'USDT',
          network: 'ETH',
          status: 1,
          address: '0x0000000000000000000000000000000000000002',
          txId: `0x${'e'.repeat(64)}`,
          insertTime: Date.now() - 30 * DAY,
        },
      ],
      withdrawals: [
        {
          id: 'wd-btc',
          amount: '0.05000000',
          transactionFee: '0.00020000',
          coin: 'BTC',
          network: 'BTC',
          status: 6,
          address: 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh',
          txId: 'f'.repeat(64),
          applyTime: new Date(Date.now() - 5 * DAY).toISOString().slice(0, 19).replace('T', ' '),
        },
      ],
      trades: [
        trade('BNBUSDT', 101, 'buy', '2.00000000', '600.00000000', '1200.00000000', '0.00150000', 'BNB', 29),
        // The fee in a third asset (BNB) goes with the base leg.
        trade('BTCUSDT', 201, 'buy', '0.10000000', '60000.00000000', '6000.00000000', '0.00075000', 'BNB', 28),
        trade('SOLBNB', 301, 'buy', '4.00000000', '0.25000000', '1.00000000', '0.00400000', 'SOL', 27),
        trade('SOLBNB', 302, 'sell', '3.99600000', '0.26000000', '1.03896000', '0.00103896', 'BNB', 26),
        trade('BNBUSDT', 102, 'sell', '2.03567104', '610.00000000', '1241.75933440', '1.24175933', 'USDT', 25),
      ],
    });
    const id = await connected('binance', fields(account));
    const before = live.fake.requests.length;
    const refreshed = await refresh(id, ['balances', 'transactions']);
    expect(refreshed.transaction_refresh).toMatchObject({ status: 'succeeded', error: null });

    const transactions = await allTransactions(id);
    const trades = transactions.filter((tx) => tx.type === 'trade');
    expect(trades).toHaveLength(10);
    expect(trades.find((tx) => tx.asset === 'BTC')).toMatchObject({ amount: '0.1', fee: '0.00075', fee_asset: 'BNB', status: 'completed' });
    expect(
      trades
        .filter((tx) => tx.asset === 'USDT')
        .map((tx) => tx.amount)
        .sort(),
    ).toEqual(['-1200', '-6000', '1241.7593344']);
    // Every asset's history adds up to its balance; SOL and BNB come and go to nothing.
    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data;
    expect(balances.map((b: { asset: string; total: string }) => [b.asset, b.total])).toEqual([
      ['BTC', '0.0498'],
      ['USDT', '4040.51757507'],
    ]);
    expect(netByAsset(transactions)).toEqual({ BNB: '0', BTC: '0.0498', SOL: '0', USDT: '4040.51757507' });

    // The markets asked: those of BTC and USDT (held, moved), then BNB's once a BNB trade turned up,
    // then SOL's; never DOGE/EUR, which touches none of them. Each once, from the first trade.
    const asked = live.fake.requests.slice(before).filter((r) => r.path === '/api/v3/myTrades');
    expect(asked.map((r) => r.query.get('symbol')).sort()).toEqual(
      BINANCE_MARKETS.map(([b, q]) => b + q)
        .filter((s) => s !== 'DOGEEUR')
        .sort(),
    );
    expect(asked.every((r) => r.query.get('fromId') === '0' && r.query.get('limit') === '1000')).toBe(true);
    expect(asked.findIndex((r) => r.query.get('symbol') === 'SOLBNB')).toBeGreaterThan(
      asked.findIndex((r) => r.query.get('symbol') === 'BNBUSDT'),
    );
  });

  it("pages a market's trades by id, 1,000 at a time, and later refreshes ask each market only for newer ids", async () => {
    const many = Array.from({ length: 1500 }, (_, i) =>
      trade('BTCUSDT', 5000 + i, 'buy', '0.00010000', '60000.00000000', '6.00000000', '0.00000010', 'BTC', 20 - i / 100),
    );
    const account = live.fake.addAccount({ balances: [{ asset: 'BTC', free: '0.14985000', locked: '0.00000000' }], trades: many });
    const id = await connected('binance', fields(account));
    const tradeCalls = (from: number) =>
      live.fake.requests
        .slice(from)
        .filter((r) => r.path === '/api/v3/myTrades' && r.query.get('symbol') === 'BTCUSDT')
        .map((r) => r.query.get('fromId'));

    let before = live.fake.requests.length;
    await refresh(id, ['transactions']);
    expect(tradeCalls(before)).toEqual(['0', '6000']);
    expect((await allTransactions(id)).filter((tx) => tx.asset === 'BTC')).toHaveLength(1500);

    account.trades.push(trade('BTCUSDT', 6500, 'sell', '0.05000000', '61000.00000000', '3050.00000000', '3.05000000', 'USDT', 0));
    before = live.fake.requests.length;
    const again = await refresh(id, ['transactions']);
    expect(again.transaction_refresh).toMatchObject({ status: 'succeeded' });
    expect(tradeCalls(before)).toEqual(['6500']);
    const transactions = await allTransactions(id);
    expect(transactions).toHaveLength(3002);
    expect(new Set(transactions.map((tx) => tx.id)).size).toBe(3002);
    expect(transactions.find((tx) => tx.asset === 'USDT' && tx.amount === '3050')).toMatchObject({ fee: '3.05', fee_asset: 'USDT' });
  });

  it("goes on in new jobs from each stored range and market when a run's time is spent, reading each once", async () => {
    // A run stops after every stored page here (no time budget at all).
    await withApp({ historyBudgetMs: 0 }, async (slow, steps) => {
      const account = live.fake.addAccount({
        balances: [{ asset: 'USDT', free: '798.80080000', locked: '0.00000000' }],
        deposits: [
          {
            id: 'dep-slow',
            amount: '1000.00000000',
            coin: 'USDT',
            network: 'ETH',
            status: 1,
            address: '0x0000000000000000000000000000000000000003',
            txId: `0x${'9'.repeat(64)}`,
            insertTime: Date.now() - 400 * DAY,
          },
        ],
        trades: [
          trade('BNBUSDT', 7, 'buy', '1.00000000', '600.00000000', '600.00000000', '0.00100000', 'BNB', 300),
          trade('SOLBNB', 8, 'buy', '3.99600000', '0.25000000', '0.99900000', '0.00400000', 'SOL', 200),
          trade('SOLUSDT', 9, 'sell', '3.99200000', '100.00000000', '399.20000000', '0.39920000', 'USDT', 100),
        ],
        // 501 fiat deposits: two pages of one range (500 a page), which a run may stop between.
        fiatOrders: Array.from({ length: 501 }, (_, i) => fiatOrder(0, `fd-page-${i}`, '1', '1', '0', 'Successful', 50 - i / 100)),
      });
      const id = await steps.connected('binance', fields(account));
      const before = live.fake.requests.length;
      const refreshed = await steps.refresh(id, ['transactions'], 100_000);
      expect(refreshed.transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
      expect(netByAsset(await steps.allTransactions(id))).toEqual({ BNB: '0', EUR: '501', SOL: '0', USDT: '798.8008' });

      const mine = live.fake.requests.slice(before).filter((r) => r.headers['x-mbx-apikey'] === account.key);
      const windows = Math.ceil((Date.now() - Date.UTC(2017, 6, 1)) / (90 * DAY));
      expect(mine.filter((r) => r.path === '/sapi/v1/capital/deposit/hisrec')).toHaveLength(windows);
      // Simple Earn's ranges likewise, each once across the jobs.
      expect(mine.filter((r) => r.path === '/sapi/v1/simple-earn/locked/history/rewardsRecord')).toHaveLength(
        Math.ceil((Date.now() - Date.UTC(2023, 0, 1)) / (89 * DAY)),
      );
      // The fiat deposits' one range: page 1, then (in the next run) page 2 of the same range, and
      // what came after that range's end.
      const fiat = mine.filter((r) => r.path === '/sapi/v1/fiat/orders' && r.query.get('transactionType') === '0').map((r) => r.query);
      const end = Number(fiat[0]?.get('endTime'));
      expect(fiat.map((q) => [Number(q.get('beginTime')), q.get('page')])).toEqual([
        [Date.UTC(2017, 6, 1), '1'],
        [Date.UTC(2017, 6, 1), '2'],
        [end + 1, '1'],
      ]);
      expect(Number(fiat[1]?.get('endTime'))).toBe(end);
      const markets = mine.filter((r) => r.path === '/api/v3/myTrades').map((r) => r.query.get('symbol'));
      expect(markets.sort()).toEqual([...new Set(markets)].sort());
      expect(markets).toContain('SOLBNB');
      const runs = await slow.ctx.db
        .selectFrom('jobs')
        .select(['id'])
        .where('type', '=', 'connect.refresh_account')
        .where('payload', 'like', `%"account_id":"${id}"%`)
        .execute();
      expect(runs.length).toBeGreaterThan(windows);
      const events = (await steps.call('GET', '/v1/events?limit=100'))
        .json()
        .data.filter((e: { type: string; data: { object: { id: string } } }) => e.type === 'account.refreshed' && e.data.object.id === id);
      expect(events).toHaveLength(1);
      // Done: the cursor keeps where to read from next, and nothing of the unfinished walk.
      const { transaction_cursor: cursor } = await slow.ctx.db
        .selectFrom('connect_accounts')
        .select('transaction_cursor')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      const books = (JSON.parse(cursor as string) as { books: Record<string, string> }).books;
      expect(JSON.parse(books.spot as string)).toEqual({
        since: expect.any(Number),
        assets: ['BNB', 'SOL', 'USDT'],
        trades: { 'BNB/USDT': '7', 'SOL/BNB': '8', 'SOL/USDT': '9' },
        converted: true,
      });
      expect(JSON.parse(books.earn as string)).toEqual({ since: expect.any(Number) });
    });
  }, 120_000); // hundreds of jobs: ~10 s here, several times that on a loaded CI machine

  it('pages the deposits of a 90-day range 1,000 at a time', async () => {
    const deposits = Array.from({ length: 1200 }, (_, i) => ({
      id: `dep-many-${i}`,
      amount: '0.00100000',
      coin: 'BTC',
      network: 'BTC',
      status: 1,
      address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      txId: i.toString(16).padStart(64, '0'),
      insertTime: Date.now() - 10 * DAY + i * 60_000,
    }));
    const account = live.fake.addAccount({ balances: [{ asset: 'BTC', free: '1.20000000', locked: '0.00000000' }], deposits });
    const id = await connected('binance', fields(account));
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded' });
    const calls = live.fake.requests
      .slice(before)
      .filter((r) => r.path === '/sapi/v1/capital/deposit/hisrec' && r.headers['x-mbx-apikey'] === account.key);
    // Every range asked from offset 0; the one holding the 1,200 deposits once more from 1,000.
    const second = calls.filter((r) => r.query.get('offset') === '1000');
    expect(second).toHaveLength(1);
    expect(calls.filter((r) => r.query.get('offset') === '0')).toHaveLength(calls.length - 1);
    expect(calls.every((r) => r.query.get('limit') === '1000')).toBe(true);
    expect(netByAsset(await allTransactions(id))).toEqual({ BTC: '1.2' });
  });

  it('reads Convert history 30 days a call since 2017, each conversion as two legs, a failed one marked failed', async () => {
    const account = live.fake.addAccount({
      balances: [
        { asset: 'BNB', free: '0.06000000', locked: '0.00000000' },
        { asset: 'USDT', free: '80.00000000', locked: '0.00000000' },
      ],
      deposits: [deposit('dep-convert', 'USDT', '100.00000000', 200)],
      conversions: [
        // Binance's own example order id, and the next: past 2^53, both read as one number.
        {
          quoteId: 'f3b91c525b2644c7bc1e1cd31b6e1aa6',
          orderId: Number('940708407462087195'),
          orderStatus: 'SUCCESS',
          fromAsset: 'USDT',
          fromAmount: '20',
          toAsset: 'BNB',
          toAmount: '0.06',
          createTime: Date.now() - 100 * DAY,
        },
        {
          quoteId: '0a1b2c3d4e5f60718293a4b5c6d7e8f9',
          orderId: Number('940708407462087196'),
          orderStatus: 'FAIL',
          fromAsset: 'USDT',
          fromAmount: '10',
          toAsset: 'BNB',
          toAmount: '0.03',
          createTime: Date.now() - 99 * DAY,
        },
      ],
    });
    const id = await connected('binance', fields(account));
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
    const transactions = await allTransactions(id);
    const converted = transactions
      .filter((tx) => tx.type === 'trade')
      .map(({ asset, amount, fee, status }) => ({ asset, amount, fee, status }));
    expect(converted).toEqual(
      expect.arrayContaining([
        { asset: 'USDT', amount: '-20', fee: null, status: 'completed' },
        { asset: 'BNB', amount: '0.06', fee: null, status: 'completed' },
        { asset: 'USDT', amount: '-10', fee: null, status: 'failed' },
        { asset: 'BNB', amount: '0.03', fee: null, status: 'failed' },
      ]),
    );
    expect(converted).toHaveLength(4);
    expect(netByAsset(transactions.filter((tx) => tx.status !== 'failed'))).toEqual({ BNB: '0.06', USDT: '80' });
    // Every range from July 2017, 30 days at most, each once.
    const calls = live.fake.requests
      .slice(before)
      .filter((r) => r.path === '/sapi/v1/convert/tradeFlow' && r.headers['x-mbx-apikey'] === account.key);
    expect(calls).toHaveLength(Math.ceil((Date.now() - Date.UTC(2017, 6, 1)) / (30 * DAY)));
    expect(calls.every((r) => Number(r.query.get('endTime')) - Number(r.query.get('startTime')) <= 30 * DAY)).toBe(true);
    expect(Number(calls[0]?.query.get('startTime'))).toBe(Date.UTC(2017, 6, 1));

    // The next refresh reads only the ranges from the cursor on: a day before the newest conversion.
    const { transaction_cursor: cursor } = await live.app.ctx.db
      .selectFrom('connect_accounts')
      .select('transaction_cursor')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const spot = (JSON.parse(cursor as string) as { books: { spot: string } }).books.spot;
    const since = (JSON.parse(spot) as { since: number }).since;
    expect(Math.abs(since - (Date.now() - 100 * DAY))).toBeLessThan(60_000);
    const later = live.fake.requests.length;
    await refresh(id, ['transactions']);
    const next = live.fake.requests
      .slice(later)
      .filter((r) => r.path === '/sapi/v1/convert/tradeFlow' && r.headers['x-mbx-apikey'] === account.key);
    expect(Number(next[0]?.query.get('startTime'))).toBe(since);
    expect(next).toHaveLength(Math.ceil((Date.now() - since) / (30 * DAY)));
  });

  it('reads a range holding more conversions than a page as two halves, whatever order Binance lists them in', async () => {
    // 2,100 within ten minutes: however the 30-day ranges fall, one holds more than 1,000.
    const conversions = Array.from({ length: 2100 }, (_, i) => ({
      quoteId: `quote-${i}`,
      orderId: 5_000_000 + i,
      orderStatus: 'SUCCESS' as const,
      fromAsset: 'USDT',
      fromAmount: '1',
      toAsset: 'BNB',
      toAmount: '0.001',
      createTime: Date.now() - 5 * DAY + i * 250,
    }));
    const account = live.fake.addAccount({
      balances: [
        { asset: 'BNB', free: '2.10000000', locked: '0.00000000' },
        { asset: 'USDT', free: '900.00000000', locked: '0.00000000' },
      ],
      deposits: [deposit('dep-many-converts', 'USDT', '3000.00000000', 6)],
      conversions,
      // The order that defeats asking again up to the oldest conversion read.
      conversionsOldestFirst: true,
    });
    const id = await connected('binance', fields(account));
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
    expect(netByAsset(await allTransactions(id))).toEqual({ BNB: '2.1', USDT: '900' });
    const calls = live.fake.requests
      .slice(before)
      .filter((r) => r.path === '/sapi/v1/convert/tradeFlow' && r.headers['x-mbx-apikey'] === account.key);
    expect(calls.every((r) => r.query.get('limit') === '1000')).toBe(true);
    // A range answering a full page is asked again as its first half, then its second.
    const full = calls.findIndex(
      (r, i) =>
        calls[i + 1]?.query.get('startTime') === r.query.get('startTime') &&
        Number(calls[i + 1]?.query.get('endTime')) < Number(r.query.get('endTime')),
    );
    expect(full).toBeGreaterThanOrEqual(0);
    const firstHalfEnd = Number(calls[full + 1]?.query.get('endTime'));
    expect(
      calls.some(
        (r) => Number(r.query.get('startTime')) === firstHalfEnd + 1 && r.query.get('endTime') === calls[full]?.query.get('endTime'),
      ),
    ).toBe(true);
  });

  it('reads the conversions from the beginning once for a cursor from before they were read', async () => {
    const account = live.fake.addAccount({
      balances: [{ asset: 'BNB', free: '0.06000000', locked: '0.00000000' }],
      conversions: [
        {
          quoteId: 'old-conversion',
          orderId: 1,
          orderStatus: 'SUCCESS',
          fromAsset: 'USDT',
          fromAmount: '20',
          toAsset: 'BNB',
          toAmount: '0.06',
          createTime: Date.now() - 400 * DAY,
        },
      ],
      deposits: [deposit('dep-before', 'USDT', '20.00000000', 500)],
    });
    const id = await connected('binance', fields(account));
    // The cursor a walk from before conversions were read left: a day before the newest deposit.
    const old = JSON.stringify({ since: Date.now() - 10 * DAY, assets: ['BNB', 'USDT'], trades: {} });
    await live.app.ctx.db.updateTable('connect_accounts').set({ transaction_cursor: old }).where('id', '=', id).execute();
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
    const calls = live.fake.requests
      .slice(before)
      .filter((r) => r.path === '/sapi/v1/convert/tradeFlow' && r.headers['x-mbx-apikey'] === account.key);
    expect(Number(calls[0]?.query.get('startTime'))).toBe(Date.UTC(2017, 6, 1));
    expect(
      (await allTransactions(id))
        .filter((tx) => tx.type === 'trade')
        .map((tx) => tx.amount)
        .sort(),
    ).toEqual(['-20', '0.06']);
    // The deposits go on from the old cursor; the new one says the conversions were read.
    const deposits = live.fake.requests
      .slice(before)
      .filter((r) => r.path === '/sapi/v1/capital/deposit/hisrec' && r.headers['x-mbx-apikey'] === account.key);
    expect(Number(deposits[0]?.query.get('startTime'))).toBeGreaterThan(Date.now() - 11 * DAY);
    const { transaction_cursor: cursor } = await live.app.ctx.db
      .selectFrom('connect_accounts')
      .select('transaction_cursor')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse((JSON.parse(cursor as string) as { books: { spot: string } }).books.spot)).toMatchObject({ converted: true });
  });

  it('adds Simple Earn positions to the balances, leaves out their LD mirrors, and reads the rewards range by range since 2023', async () => {
    const realtime = Array.from({ length: 300 }, (_, i) => ({
      asset: 'USDT',
      rewards: '0.00001',
      projectId: 'USDT001',
      type: 'REALTIME' as const,
      time: Date.now() - 150 * DAY + i * (DAY / 2),
    }));
    const account = live.fake.addAccount({
      // 600 USDT and 2.1 BNB came in; 500 USDT went to Flexible, 2 BNB to Locked. Flexible rewards
      // grew the position; the locked reward was paid to Spot. The Spot account lists the
      // Flexible position again as LDUSDT.
      balances: [
        { asset: 'USDT', free: '100.00000000', locked: '0.00000000' },
        { asset: 'LDUSDT', free: '500.00320000', locked: '0.00000000' },
        { asset: 'BNB', free: '0.11000000', locked: '0.00000000' },
        // A token whose name starts like a mirror, with no Earn position behind it: it stays.
        { asset: 'LDO', free: '3.00000000', locked: '0.00000000' },
        // The mirror of a position in an asset with no spot market here (so not among ccxt's
        // currencies): left out all the same.
        { asset: 'LDDOT', free: '10.00000000', locked: '0.00000000' },
      ],
      deposits: [
        deposit('dep-earn-usdt', 'USDT', '600.00000000', 200),
        deposit('dep-earn-bnb', 'BNB', '2.10000000', 190),
        deposit('dep-earn-ldo', 'LDO', '3.00000000', 180),
        deposit('dep-earn-dot', 'DOT', '10.00000000', 170),
      ],
      earn: {
        flexible: [
          { asset: 'USDT', totalAmount: '500.0032', productId: 'USDT001' },
          { asset: 'DOT', totalAmount: '10', productId: 'DOT001' },
        ],
        locked: [{ positionId: 123123, asset: 'BNB', amount: '2' }],
        flexibleRewards: [
          ...realtime,
          { asset: 'USDT', rewards: '0.0002', projectId: 'USDT001', type: 'BONUS', time: Date.now() - 120 * DAY },
        ],
        lockedRewards: [
          { positionId: 123123, time: Date.now() - 30 * DAY, asset: 'BNB', lockPeriod: '30', amount: '0.01', type: 'Locked Rewards' },
        ],
      },
    });
    const id = await connected('binance', fields(account));
    const before = live.fake.requests.length;
    const refreshed = await refresh(id, ['balances', 'transactions']);
    expect(refreshed.transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data;
    expect(balances.map(({ asset, available, total }: Record<string, string>) => ({ asset, available, total }))).toEqual([
      { asset: 'BNB', available: '0.11', total: '2.11' },
      { asset: 'DOT', available: '0', total: '10' },
      { asset: 'LDO', available: '3', total: '3' },
      { asset: 'USDT', available: '100', total: '600.0032' },
    ]);
    const transactions = await allTransactions(id);
    expect(netByAsset(transactions)).toEqual({ BNB: '2.11', DOT: '10', LDO: '3', USDT: '600.0032' });
    expect(transactions.filter((tx) => tx.type === 'transfer')).toHaveLength(302);

    // Every list, range by range from January 2023, 89 days at most a call, 100 rows a page.
    const mine = live.fake.requests.slice(before).filter((r) => r.headers['x-mbx-apikey'] === account.key);
    const flexible = mine.filter((r) => r.path === '/sapi/v1/simple-earn/flexible/history/rewardsRecord').map((r) => r.query);
    const ranges = Math.ceil((Date.now() - Date.UTC(2023, 0, 1)) / (89 * DAY));
    expect(new Set(flexible.map((q) => q.get('type')))).toEqual(new Set(['ALL']));
    expect(flexible.every((q) => Number(q.get('endTime')) - Number(q.get('startTime')) < 89 * DAY && q.get('size') === '100')).toBe(true);
    expect(Math.min(...flexible.map((q) => Number(q.get('startTime'))))).toBe(Date.UTC(2023, 0, 1));
    // 300 real-time rewards over 150 days: some range holds more than a page.
    expect(flexible.filter((q) => q.get('current') !== '1').length).toBeGreaterThan(0);
    expect(flexible.filter((q) => q.get('current') === '1')).toHaveLength(ranges);
    expect(mine.filter((r) => r.path === '/sapi/v1/simple-earn/locked/history/rewardsRecord')).toHaveLength(ranges);

    // The next refresh reads the rewards from a day before the newest one read.
    const later = live.fake.requests.length;
    await refresh(id, ['transactions']);
    const next = live.fake.requests
      .slice(later)
      .filter((r) => r.path === '/sapi/v1/simple-earn/locked/history/rewardsRecord' && r.headers['x-mbx-apikey'] === account.key);
    expect(next).toHaveLength(1);
    expect(Number(next[0]?.query.get('startTime'))).toBeGreaterThan(Date.now() - 2 * DAY);
    expect(await allTransactions(id)).toHaveLength(transactions.length);
  });

  it("reads the Funding wallet's movements: purchases with fiat, fiat deposits and withdrawals, P2P orders; failed and pending ones move nothing", async () => {
    const ago = (days: number) => Date.now() - days * DAY;
    const payment = (transactionType: 0 | 1, orderNo: string, crypto: string, fiat: string, status: string, days: number) =>
      transactionType === 0
        ? {
            transactionType,
            orderNo,
            sourceAmount: fiat,
            fiatCurrency: 'EUR',
            obtainAmount: crypto,
            cryptoCurrency: 'BTC',
            totalFee: '0.5',
            price: '50000',
            status,
            paymentMethod: 'Credit Card',
            createTime: ago(days),
            updateTime: ago(days),
          }
        : {
            transactionType,
            orderNo,
            sourceAmount: crypto,
            fiatCurrency: 'EUR',
            obtainAmount: fiat,
            cryptoCurrency: 'BTC',
            totalFee: '0.1',
            price: '50000',
            status,
            createTime: ago(days),
            updateTime: ago(days),
          };
    const p2p = (orderNumber: string, tradeType: 'BUY' | 'SELL', amount: string, commission: string, orderStatus: string, at: number) => ({
      orderNumber,
      advNo: `adv-${orderNumber}`,
      tradeType,
      asset: 'USDT',
      fiat: 'EUR',
      fiatSymbol: '€',
      amount,
      totalPrice: amount,
      unitPrice: '1',
      orderStatus,
      createTime: at,
      commission,
      counterPartNickName: 'ab***',
      advertisementRole: commission === '0' ? ('TAKER' as const) : ('MAKER' as const),
    });
    // 101 small P2P buys within an hour: more than a page of 100.
    const many = Array.from({ length: 101 }, (_, i) =>
      p2p(`2021${String(i).padStart(16, '0')}`, 'BUY', '1', '0', 'COMPLETED', ago(20) + i * 30_000),
    );
    const account = live.fake.addAccount({
      // EUR: 98.5 deposited (100 sent, 1.5 fee), 31 withdrawn (30 sent on, 1 fee). BTC: 0.001
      // bought by card, 0.0002 sold. USDT: 100 bought P2P as maker (0.1 commission), 101 bought
      // as taker, 40 sold.
      balances: [{ asset: 'EUR', free: '67.50000000', locked: '0.00000000' }],
      funding: [
        { asset: 'BTC', free: '0.00080000', locked: '0.00000000', freeze: '0.00000000', withdrawing: '0.00000000' },
        { asset: 'USDT', free: '160.90000000', locked: '0.00000000', freeze: '0.00000000', withdrawing: '0.00000000' },
      ],
      fiatOrders: [
        fiatOrder(0, 'fd-1', '100.00', '98.50', '1.50', 'Successful', 40),
        fiatOrder(1, 'fw-1', '31.00', '30.00', '1.00', 'Finished', 10),
        fiatOrder(0, 'fd-failed', '500.00', '500.00', '0.00', 'Failed', 9),
        fiatOrder(0, 'fd-stuck', '5.00', '5.00', '0.00', 'Refund Failed', 45),
      ],
      fiatPayments: [
        payment(0, 'card-1', '0.001', '50.5', 'Completed', 15),
        payment(0, 'card-failed', '0.5', '25000', 'Failed', 14),
        payment(1, 'sell-1', '0.0002', '9.9', 'Completed', 5),
      ],
      p2p: [
        p2p('p2p-buy', 'BUY', '100', '0.1', 'COMPLETED', ago(30)),
        p2p('p2p-sell', 'SELL', '40', '0', 'COMPLETED', ago(8)),
        p2p('p2p-cancelled', 'BUY', '999', '0', 'CANCELLED', ago(7)),
        p2p('p2p-open', 'BUY', '7', '0', 'TRADING', ago(12)),
        ...many,
      ],
    });
    const id = await connected('binance', fields(account));
    const before = live.fake.requests.length;
    expect((await refresh(id, ['balances', 'transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
    const transactions = await allTransactions(id);
    expect(transactions).toHaveLength(3 + 4 + 4 + 101);
    const moved = transactions.filter((tx) => tx.status === 'completed');
    expect(netByAsset(moved)).toEqual({ BTC: '0.0008', EUR: '67.5', USDT: '160.9' });
    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data;
    expect(Object.fromEntries(balances.map((b: { asset: string; total: string }) => [b.asset, b.total]))).toEqual(netByAsset(moved));
    expect(transactions.filter((tx) => tx.status !== 'completed').map(({ asset, amount, status }) => ({ asset, amount, status }))).toEqual(
      expect.arrayContaining([
        { asset: 'EUR', amount: '500', status: 'failed' },
        { asset: 'BTC', amount: '0.5', status: 'failed' },
        { asset: 'USDT', amount: '999', status: 'failed' },
        { asset: 'USDT', amount: '7', status: 'pending' },
        { asset: 'EUR', amount: '5', status: 'pending' },
      ]),
    );
    expect(moved.filter((tx) => tx.asset === 'EUR').map(({ type, amount, fee }) => ({ type, amount, fee }))).toEqual([
      { type: 'withdrawal', amount: '-30', fee: '1' },
      { type: 'deposit', amount: '100', fee: '1.5' },
    ]);
    const refs = (
      await live.app.ctx.db.selectFrom('connect_account_transactions').select('provider_ref').where('account_id', '=', id).execute()
    ).map((r) => r.provider_ref);
    expect(refs).toEqual(
      expect.arrayContaining([
        'fiat:payment:card-1',
        'fiat:payment:sell-1',
        'fiat:deposit:fd-1',
        'fiat:withdrawal:fw-1',
        'p2p:p2p-buy',
        'p2p:p2p-sell',
      ]),
    );

    // Fiat lists cost 90,000 of Binance's weight a call: one range each, from July 2017. P2P: 30
    // days a call, the last 180 days, each range once per side, a full page read on.
    const mine = live.fake.requests.slice(before).filter((r) => r.headers['x-mbx-apikey'] === account.key);
    const fiat = mine.filter((r) => r.path === '/sapi/v1/fiat/orders').map((r) => r.query);
    expect(fiat.map((q) => [q.get('transactionType'), q.get('beginTime'), q.get('rows')])).toEqual([
      ['0', String(Date.UTC(2017, 6, 1)), '500'],
      ['1', String(Date.UTC(2017, 6, 1)), '500'],
    ]);
    const c2c = mine.filter((r) => r.path === '/sapi/v1/c2c/orderMatch/listUserOrderHistory').map((r) => r.query);
    expect(c2c.every((q) => Number(q.get('endTimestamp')) - Number(q.get('startTimestamp')) < 30 * DAY && q.get('rows') === '100')).toBe(
      true,
    );
    expect(Math.min(...c2c.map((q) => Number(q.get('startTimestamp'))))).toBeGreaterThanOrEqual(Date.now() - 181 * DAY);
    expect(c2c.filter((q) => q.get('page') === '2')).toHaveLength(1);

    // The open order holds the cursor: the next refresh reads from it, and sees it completed. (The
    // fiat order in a state we do not know as final, 45 days old, holds nothing: past 30 days.)
    (account.p2p.find((o) => o.orderNumber === 'p2p-open') as { orderStatus: string }).orderStatus = 'COMPLETED';
    (account.funding[1] as { free: string }).free = '167.90000000';
    const later = live.fake.requests.length;
    await refresh(id, ['transactions']);
    const next = live.fake.requests
      .slice(later)
      .filter((r) => r.headers['x-mbx-apikey'] === account.key && r.path === '/sapi/v1/fiat/orders');
    expect(next).toHaveLength(2);
    expect(next.every((r) => Math.abs(Number(r.query.get('beginTime')) - ago(12)) < 60_000)).toBe(true);
    const again = await allTransactions(id);
    expect(again).toHaveLength(transactions.length);
    expect(netByAsset(again.filter((tx) => tx.status === 'completed'))).toEqual({ BTC: '0.0008', EUR: '67.5', USDT: '167.9' });
    // Nothing pending: the one after reads from a day before the newest record (the sale, 5 days ago).
    const last = live.fake.requests.length;
    await refresh(id, ['transactions']);
    const third = live.fake.requests
      .slice(last)
      .filter((r) => r.headers['x-mbx-apikey'] === account.key && r.path === '/sapi/v1/fiat/orders');
    expect(Math.abs(Number(third[0]?.query.get('beginTime')) - ago(6))).toBeLessThan(60_000);
  });

  it('reads Binance Pay 90 days a call over the last 18 months: a payment from two assets as one record each, a range answering 100 as two halves', async () => {
    const pay = (
      transactionId: string,
      amount: string,
      currency: string,
      at: number,
      fundsDetail = [{ currency, amount: amount.replace(/^-/, '') }],
    ) => ({
      orderType: 'C2C',
      transactionId,
      transactionTime: at,
      amount,
      currency,
      walletType: 1,
      fundsDetail,
    });
    // 100 received within a day: a full answer.
    const received = Array.from({ length: 100 }, (_, i) => pay(`M_R_${i}`, '0.5', 'USDT', Date.now() - 50 * DAY + i * 60_000));
    const account = live.fake.addAccount({
      funding: [
        { asset: 'USDT', free: '41.00000000', locked: '0.00000000', freeze: '0.00000000', withdrawing: '0.00000000' },
        { asset: 'BNB', free: '0.90000000', locked: '0.00000000', freeze: '0.00000000', withdrawing: '0.00000000' },
      ],
      deposits: [deposit('dep-pay', 'BNB', '1.00000000', 100)],
      // 10 USDT sent, paid with 9 USDT and 0.1 BNB.
      pay: [
        ...received,
        pay('M_P_1', '-10', 'USDT', Date.now() - 20 * DAY, [
          { currency: 'USDT', amount: '9' },
          { currency: 'BNB', amount: '0.1' },
        ]),
      ],
    });
    const id = await connected('binance', fields(account));
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
    const transactions = await allTransactions(id);
    expect(transactions).toHaveLength(1 + 100 + 2);
    expect(netByAsset(transactions)).toEqual({ BNB: '0.9', USDT: '41' });
    const refs = (
      await live.app.ctx.db.selectFrom('connect_account_transactions').select('provider_ref').where('account_id', '=', id).execute()
    ).map((r) => r.provider_ref);
    expect(refs).toEqual(expect.arrayContaining(['pay:M_P_1:USDT', 'pay:M_P_1:BNB', 'pay:M_R_0:USDT']));
    const calls = live.fake.requests
      .slice(before)
      .filter((r) => r.path === '/sapi/v1/pay/transactions' && r.headers['x-mbx-apikey'] === account.key)
      .map((r) => r.query);
    expect(calls.every((q) => Number(q.get('endTime')) - Number(q.get('startTime')) < 90 * DAY && q.get('limit') === '100')).toBe(true);
    expect(Math.min(...calls.map((q) => Number(q.get('startTime'))))).toBeGreaterThanOrEqual(Date.now() - 541 * DAY);
    // A range answering 100, then its first half.
    expect(
      calls.some(
        (q, i) => calls[i + 1]?.get('startTime') === q.get('startTime') && Number(calls[i + 1]?.get('endTime')) < Number(q.get('endTime')),
      ),
    ).toBe(true);
  });

  it('reads the Funding wallet from the beginning for a cursor from before it had a history, the other books from theirs', async () => {
    const account = live.fake.addAccount({
      deposits: [deposit('dep-old-cursor', 'USDT', '5.00000000', 400)],
      fiatOrders: [fiatOrder(0, 'fd-old', '10', '10', '0', 'Successful', (Date.now() - Date.UTC(2020, 0, 1)) / DAY)],
    });
    const id = await connected('binance', fields(account));
    const spot = JSON.stringify({ since: Date.now() - 10 * DAY, assets: ['USDT'], trades: {}, converted: true });
    const earn = JSON.stringify({ since: Date.now() - 10 * DAY });
    await live.app.ctx.db
      .updateTable('connect_accounts')
      .set({ transaction_cursor: JSON.stringify({ books: { spot, earn } }) })
      .where('id', '=', id)
      .execute();
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
    const mine = live.fake.requests.slice(before).filter((r) => r.headers['x-mbx-apikey'] === account.key);
    expect(Number(mine.find((r) => r.path === '/sapi/v1/capital/deposit/hisrec')?.query.get('startTime'))).toBe(JSON.parse(spot).since);
    expect(Number(mine.find((r) => r.path === '/sapi/v1/simple-earn/locked/history/rewardsRecord')?.query.get('startTime'))).toBe(
      JSON.parse(earn).since,
    );
    expect(Number(mine.find((r) => r.path === '/sapi/v1/fiat/orders')?.query.get('beginTime'))).toBe(Date.UTC(2017, 6, 1));
    expect((await allTransactions(id)).map((tx) => [tx.asset, tx.amount])).toEqual([['EUR', '10']]);
    const { transaction_cursor: cursor } = await live.app.ctx.db
      .selectFrom('connect_accounts')
      .select('transaction_cursor')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(Object.keys((JSON.parse(cursor as string) as { books: object }).books).sort()).toEqual(['earn', 'funding', 'spot']);
  });

  it('reads the dust log from December 2020: each small balance converted to BNB as two legs, the service charge as the fee', async () => {
    const account = live.fake.addAccount({
      balances: [
        { asset: 'BNB', free: '0.00588000', locked: '0.00000000' },
        { asset: 'USDT', free: '9.50000000', locked: '0.00000000' },
      ],
      deposits: [deposit('d1', 'USDT', '10.00000000', 300), deposit('d2', 'ETH', '0.00100000', 300)],
      // Binance's example: the service charge is 2 % of the BNB the dust was worth.
      dust: [
        {
          transId: 45178372831,
          operateTime: Date.now() - 200 * DAY,
          details: [
            { transId: 4359321, fromAsset: 'USDT', amount: '0.5', transferedAmount: '0.001', serviceChargeAmount: '0.00002' },
            { transId: 4359322, fromAsset: 'ETH', amount: '0.001', transferedAmount: '0.005', serviceChargeAmount: '0.0001' },
          ],
        },
      ],
    });
    const id = await connected('binance', fields(account));
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
    const transactions = await allTransactions(id);
    expect(
      transactions.filter((tx) => tx.type === 'trade').map(({ asset, amount, fee, fee_asset }) => ({ asset, amount, fee, fee_asset })),
    ).toEqual(
      expect.arrayContaining([
        { asset: 'USDT', amount: '-0.5', fee: null, fee_asset: null },
        { asset: 'BNB', amount: '0.001', fee: '0.00002', fee_asset: 'BNB' },
        { asset: 'ETH', amount: '-0.001', fee: null, fee_asset: null },
        { asset: 'BNB', amount: '0.005', fee: '0.0001', fee_asset: 'BNB' },
      ]),
    );
    expect(netByAsset(transactions)).toEqual({ BNB: '0.00588', ETH: '0', USDT: '9.5' });
    const calls = live.fake.requests
      .slice(before)
      .filter((r) => r.path === '/sapi/v1/asset/dribblet' && r.headers['x-mbx-apikey'] === account.key);
    // Nothing asked before the log begins; every range within Binance's 90 days.
    expect(Math.min(...calls.map((r) => Number(r.query.get('startTime'))))).toBe(Date.UTC(2020, 11, 1));
    expect(calls.every((r) => Number(r.query.get('endTime')) - Number(r.query.get('startTime')) <= 90 * DAY)).toBe(true);
  });

  it('reads a range of the dust log answering its last 100 again as two halves, none cut off', async () => {
    // 250 within three days: however the 30-day ranges fall, one holds more than 100.
    const dust = Array.from({ length: 250 }, (_, i) => ({
      transId: 60_000_000 + i,
      operateTime: Date.now() - 10 * DAY + i * 1_000_000,
      details: [
        { transId: 70_000_000 + i, fromAsset: 'USDT', amount: '0.01', transferedAmount: '0.00002', serviceChargeAmount: '0.0000004' },
      ],
    }));
    const account = live.fake.addAccount({
      balances: [
        { asset: 'BNB', free: '0.00490000', locked: '0.00000000' },
        { asset: 'USDT', free: '7.50000000', locked: '0.00000000' },
      ],
      deposits: [deposit('dep-dust', 'USDT', '10.00000000', 40)],
      dust,
    });
    const id = await connected('binance', fields(account));
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
    const transactions = await allTransactions(id);
    expect(transactions.filter((tx) => tx.type === 'trade')).toHaveLength(500);
    expect(netByAsset(transactions)).toEqual({ BNB: '0.0049', USDT: '7.5' });
    // A range answering 100, then its first half.
    const calls = live.fake.requests
      .slice(before)
      .filter((r) => r.path === '/sapi/v1/asset/dribblet' && r.headers['x-mbx-apikey'] === account.key);
    const full = calls.findIndex(
      (r, i) =>
        calls[i + 1]?.query.get('startTime') === r.query.get('startTime') &&
        Number(calls[i + 1]?.query.get('endTime')) < Number(r.query.get('endTime')),
    );
    expect(full).toBeGreaterThanOrEqual(0);
  });

  it.each([
    ['trade', { enableSpotAndMarginTrading: true }, 'This key can trade.'],
    ['withdraw', { enableWithdrawals: true }, 'This key can withdraw or transfer funds.'],
    ['trade and withdraw', { enableFutures: true, enableInternalTransfer: true }, 'This key can trade and withdraw.'],
  ])('refuses a key that can %s, before creating any account', async (_what, powers, message) => {
    const account = live.fake.addAccount();
    Object.assign(account.restrictions, powers);
    const { session: created, path, agent } = await consented();
    const res = await agent.post(`${path}/providers/binance`, fields(account));
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain(message);
    expect(res.body).toContain('We only accept read-only keys');
    expect(await session(created.id)).toMatchObject({ status: 'open', accounts: [] });
  });

  it('explains a wrong secret, an unknown key and a clock that is off, and the session stays open', async () => {
    const account = live.fake.addAccount();
    const { session: created, path, agent } = await consented();
    const wrongSecret = await agent.post(`${path}/providers/binance`, { apiKey: account.key, secret: `${account.secret}x` });
    expect(wrongSecret.statusCode).toBe(422);
    expect(wrongSecret.body).toContain('Binance did not accept this API key and secret.');

    const unknownKey = await agent.post(`${path}/providers/binance`, { apiKey: `${account.key}x`, secret: account.secret });
    expect(unknownKey.statusCode).toBe(422);
    // Binance's one answer for a wrong key, an IP allow-list and a missing permission (-2015).
    expect(unknownKey.body).toContain('Binance did not accept this key.');
    expect(unknownKey.body).toContain('IP addresses');

    live.fake.setClockOffset(-120_000);
    try {
      const skewed = await agent.post(`${path}/providers/binance`, fields(account));
      expect(skewed.statusCode).toBe(422);
      expect(skewed.body).toContain('(nonce)');
    } finally {
      live.fake.setClockOffset(0);
    }
    expect(await session(created.id)).toMatchObject({ status: 'open', accounts: [] });
    expect((await agent.post(`${path}/providers/binance`, fields(account))).statusCode).toBe(303);
  });

  it('explains a rate limit (HTTP 429) and maintenance in the flow as "try later"', async () => {
    const account = live.fake.addAccount({ failWith: BINANCE_RATE_LIMITED });
    const { path, agent } = await consented();
    const limited = await agent.post(`${path}/providers/binance`, fields(account));
    expect(limited.statusCode).toBe(503);
    expect(limited.body).toContain('Binance is limiting how often we may ask.');

    delete account.failWith;
    live.fake.setStatus('maintenance');
    try {
      const down = await agent.post(`${path}/providers/binance`, fields(account));
      expect(down.statusCode).toBe(503);
      expect(down.body).toMatch(/Binance is (not responding right now|down for maintenance)/);
    } finally {
      live.fake.setStatus('normal');
    }
  });

  it('records a rate limit on refresh with the time to come back, and a revoked key as requires_reauth', async () => {
    const account = live.fake.addAccount({ balances: [{ asset: 'BTC', free: '1.00000000', locked: '0.00000000' }] });
    const id = await connected('binance', fields(account));
    account.failWith = BINANCE_RATE_LIMITED;
    const before = Math.floor(live.app.clock.now() / 1000);
    const limited = await refresh(id, ['balances']);
    expect(limited.balance_refresh).toMatchObject({ status: 'failed', error: { code: 'provider_rate_limited' } });
    expect(limited.balance_refresh.next_refresh_available_at).toBeGreaterThanOrEqual(before + EXCHANGE_RATE_LIMIT_SECONDS);

    live.app.clock.advance(EXCHANGE_RATE_LIMIT_SECONDS);
    account.failWith = { status: 401, body: { code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' } };
    const revoked = await refresh(id, ['transactions']);
    expect(revoked.status).toBe('requires_reauth');
    expect(revoked.transaction_refresh).toMatchObject({ status: 'failed', error: { code: 'reauthentication_required' } });
  });

  it("paces the calls of every account on Binance together, at ccxt's rate limit", async () => {
    // ccxt's own pace (here 50 ms a unit of cost; GET /api/v3/account costs 4 units in ccxt's table,
    // so ~200 ms apart) instead of the tests' lifted one. Every call of the connections is paced too.
    await withApp({ rateLimit: 50 }, async (paced, steps) => {
      const accounts = [live.fake.addAccount(), live.fake.addAccount()];
      const ids = [
        await steps.connected('binance', fields(accounts[0] as BinanceAccount)),
        await steps.connected('binance', fields(accounts[1] as BinanceAccount)),
      ];
      const before = live.fake.requests.length;
      for (const id of ids)
        expect((await steps.call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['balances'] })).statusCode).toBe(200);
      await runDueJobs(paced.ctx);
      // The two refreshes ran side by side in the worker; their calls still came one pace apart.
      const calls = live.fake.requests
        .slice(before)
        .filter((r) => r.path === '/api/v3/account')
        .sort((a, b) => a.at - b.at);
      expect(calls.map((r) => r.headers['x-mbx-apikey']).sort()).toEqual(accounts.map((a) => a.key).sort());
      expect((calls[1] as { at: number }).at - (calls[0] as { at: number }).at).toBeGreaterThanOrEqual(90);
    });
  });

  it('keeps an account’s minute across processes: a refresh in a second process (its own app, the same database) waits for the minute the first spent', async () => {
    const minute = MINUTE_AT_RATE_LIMIT;
    live.fake.countUidWeight(minute);
    const binance = { ...pointExchangeAt('binance', live.fake.url), rateLimit: SHORT_MINUTE_RATE_LIMIT };
    const first = await startTestApp(engine, { seams: { exchangeOverrides: { binance } } });
    const second = await startTestApp(engine, { seams: { exchangeOverrides: { binance } }, database: first.database });
    try {
      const client = await first.newClient();
      const [inFirst, inSecond] = [first, second].map((app) =>
        liveExchangeSteps(
          () => app,
          () => client,
        ),
      ) as [ReturnType<typeof liveExchangeSteps>, ReturnType<typeof liveExchangeSteps>];
      const account = live.fake.addAccount();
      account.fiatOrders = [fiatOrder(0, 'p1-in', '10', '10', '0', 'Successful', 3), fiatOrder(1, 'p1-out', '4', '4', '0', 'Finished', 2)];
      const id = await inFirst.connected('binance', fields(account));
      const recent = JSON.stringify({ since: Date.now() - 10 * DAY });
      const cursor = JSON.stringify({
        books: { spot: JSON.stringify({ since: Date.now() - 10 * DAY, assets: [], trades: {}, converted: true }), earn: recent },
      });
      const before = live.fake.requests.length;
      for (const [steps, app] of [
        [inFirst, first],
        [inSecond, second],
      ] as const) {
        // Each refresh walks the fiat orders afresh (two calls of 90,000 each: the whole minute).
        await app.ctx.db.updateTable('connect_accounts').set({ transaction_cursor: cursor }).where('id', '=', id).execute();
        expect((await steps.refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
      }
      const calls = live.fake.requests
        .slice(before)
        .filter((r) => r.path === '/sapi/v1/fiat/orders')
        .map((r) => r.at);
      expect(live.fake.uidRefusals).toEqual([]);
      expect(calls).toHaveLength(4);
      const [a1, , a3] = calls as [number, number, number, number];
      expect(a3 - a1).toBeGreaterThanOrEqual(minute);
    } finally {
      live.fake.countUidWeight(undefined);
      await second.close();
      await first.close();
    }
  }, 90_000);

  it('paces the calls Binance weighs per account in a minute of their own, per account: a second refresh waits for it, another account does not', async () => {
    // At 2.5 ms a unit of ccxt's cost (Binance's pace is 50), Binance's minute is 3 s. The fake
    // counts each account's weight per endpoint over that minute and refuses a call past 180,000:
    // fiat deposits and withdrawals weigh 90,000 a call, two a minute.
    const minute = MINUTE_AT_RATE_LIMIT;
    live.fake.countUidWeight(minute);
    try {
      await withApp({ rateLimit: SHORT_MINUTE_RATE_LIMIT }, async (paced, steps) => {
        const fiat = (key: string) => [
          fiatOrder(0, `${key.slice(0, 8)}-in`, '10', '10', '0', 'Successful', 3),
          fiatOrder(1, `${key.slice(0, 8)}-out`, '4', '4', '0', 'Finished', 2),
        ];
        const [first, other] = [live.fake.addAccount(), live.fake.addAccount()] as [BinanceAccount, BinanceAccount];
        first.fiatOrders = fiat(first.key);
        other.fiatOrders = fiat(other.key);
        const ids = [await steps.connected('binance', fields(first)), await steps.connected('binance', fields(other))];
        // Short walks (the Spot and Earn books read from 10 days back), so that the calls come close together.
        const recent = JSON.stringify({ since: Date.now() - 10 * DAY });
        const cursor = JSON.stringify({
          books: { spot: JSON.stringify({ since: Date.now() - 10 * DAY, assets: [], trades: {}, converted: true }), earn: recent },
        });
        await paced.ctx.db.updateTable('connect_accounts').set({ transaction_cursor: cursor }).where('id', 'in', ids).execute();
        const before = live.fake.requests.length;
        expect((await steps.refresh(ids[0] as string, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded' });
        // At once: the first account again (its minute still spent) and the other.
        for (const id of ids)
          expect((await steps.call('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['transactions'] })).statusCode).toBe(200);
        await runDueJobs(paced.ctx);
        for (const id of ids)
          expect((await steps.call('GET', `/v1/connect/accounts/${id}`)).json().transaction_refresh).toMatchObject({
            status: 'succeeded',
            error: null,
          });
        expect(live.fake.uidRefusals).toEqual([]);

        const calls = (account: BinanceAccount) =>
          live.fake.requests
            .slice(before)
            .filter((r) => r.path === '/sapi/v1/fiat/orders' && r.headers['x-mbx-apikey'] === account.key)
            .map((r) => r.at);
        const [a1, a2, a3, a4] = calls(first) as [number, number, number, number];
        expect(calls(first)).toHaveLength(4);
        // The first account's second refresh waited for its minute; the other account never waited
        // for it. Within a refresh the two calls come at once: in the shared limiter they cost
        // their IP weight, not ccxt's 600 units (1.5 s here).
        expect(a3 - a1).toBeGreaterThanOrEqual(minute);
        expect(a4 - a2).toBeGreaterThanOrEqual(minute);
        const [b1, b2] = calls(other) as [number, number];
        expect(calls(other)).toHaveLength(2);
        expect(b2).toBeLessThan(a1 + minute);
        for (const [one, two] of [
          [a1, a2],
          [a3, a4],
          [b1, b2],
        ] as const)
          expect(two - one).toBeLessThan(minute / 2);
        for (const id of ids) expect(netByAsset(await steps.allTransactions(id))).toEqual({ EUR: '6' });
      });
    } finally {
      live.fake.countUidWeight(undefined);
    }
  });

  it.each([
    ['in seconds', () => '900'],
    ['as an HTTP date', () => new Date(Date.now() + 900_000).toUTCString()],
  ])("waits as long as Binance's Retry-After asks (%s) when that is longer than our own wait", async (_form, retryAfter) => {
    const account = live.fake.addAccount({ balances: [{ asset: 'BTC', free: '1.00000000', locked: '0.00000000' }] });
    const id = await connected('binance', fields(account));
    account.failWith = { ...BINANCE_RATE_LIMITED, headers: { 'retry-after': retryAfter() } };
    try {
      const before = Math.floor(live.app.clock.now() / 1000);
      const limited = await refresh(id, ['balances']);
      expect(limited.balance_refresh).toMatchObject({ status: 'failed', error: { code: 'provider_rate_limited' } });
      // An HTTP date is whole seconds: up to one short of 900.
      expect(limited.balance_refresh.next_refresh_available_at - before).toBeGreaterThanOrEqual(899);
      expect(limited.balance_refresh.next_refresh_available_at - before).toBeLessThanOrEqual(902);
    } finally {
      delete account.failWith;
    }
  });

  it('never writes an API key or secret to the logs or the database', async () => {
    const account = live.fake.addAccount({ balances: [{ asset: 'BTC', free: '1.00000000', locked: '0.00000000' }] });
    const refused = live.fake.addAccount({ restrictions: { enableWithdrawals: true } });
    const { session: created, path, agent } = await consented();
    expect((await agent.post(`${path}/providers/binance`, fields(refused))).statusCode).toBe(422);
    expect((await agent.post(`${path}/providers/binance`, fields(account))).statusCode).toBe(303);
    expect((await agent.post(`${path}/finish`)).statusCode).toBe(200);
    const [id] = (await session(created.id)).accounts;
    await refresh(id as string, ['balances', 'transactions']);

    const logs = log.lines.join('\n');
    const dump = [...(await snapshotDatabase(live.app.ctx.db, [])).values()].join('\n');
    for (const secret of [account.key, account.secret, refused.key, refused.secret]) {
      expect(logs.includes(secret), 'logs').toBe(false);
      expect(dump.includes(secret), 'database').toBe(false);
    }
  });
});
