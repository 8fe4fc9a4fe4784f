import { describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { fakeForTests } from '../../../test/support/fake-exchange-server.js';
import { okxBillAnswer, startFakeOkx, type OkxAccount, type OkxBill } from '../../../test/support/fake-okx.js';
import { liveExchangeSuite, netByAsset } from '../../../test/support/live-exchange.js';
import { providerAt, refsOf, walkHistory } from '../../../test/support/provider-walk.js';

const DAY = 86_400_000;

/**
 * A history across both of OKX's books: deposits and a withdrawal in the funding account, a move
 * to the trading account and two trades there (OKX's `balChg` has the fee taken off already), and
 * `padding` one-USDT deposits two months back, ten to a millisecond so that pages of 100 end
 * inside a millisecond, and `tradingPadding` one-USDT moves into the trading account before the
 * rest. Bill ids rise with time, as OKX's do.
 */
function history(padding: number, tradingPadding = 0) {
  const now = Date.now();
  let id = 1_000_000;
  const bill = (ccy: string, balChg: string, type: string, daysAgo: number, extra: Partial<OkxBill> = {}): OkxBill => ({
    billId: String((id += 7)),
    ccy,
    balChg,
    bal: '0',
    type,
    ts: now - daysAgo * DAY,
    ...extra,
  });
  const base = now - 60 * DAY;
  const fundingBills: OkxBill[] = Array.from({ length: padding }, (_, i) => ({
    billId: String((id += 7)),
    ccy: 'USDT',
    balChg: '1',
    bal: '0',
    type: '1',
    ts: base + Math.floor(i / 10),
  }));
  fundingBills.push(bill('USDT', '1000', '1', 40), bill('BTC', '0.5', '1', 39), bill('USDT', '-600', '131', 38));
  const tradingBills: OkxBill[] = [
    ...Array.from({ length: tradingPadding }, (_, i) => ({
      billId: String((id += 7)),
      ccy: 'USDT',
      balChg: '1',
      bal: '0',
      type: '1',
      ts: base + 100_000 + i,
    })),
    bill('USDT', '600', '1', 38),
    // Bought 0.01 BTC for 300 USDT, the fee (0.00001 BTC) taken off what came in.
    bill('BTC', '0.00999', '2', 30, { sz: '0.01', fee: '-0.00001', ordId: '700', instId: 'BTC-USDT' }),
    bill('USDT', '-300', '2', 30, { sz: '300', fee: '0', ordId: '700', instId: 'BTC-USDT' }),
    // Sold 0.004 BTC for 124 USDT, the fee (0.124 USDT) taken off what came in.
    bill('BTC', '-0.004', '2', 20, { sz: '0.004', fee: '0', ordId: '701', instId: 'BTC-USDT' }),
    bill('USDT', '123.876', '2', 20, { sz: '124', fee: '-0.124', ordId: '701', instId: 'BTC-USDT' }),
  ];
  fundingBills.push(bill('BTC', '-0.05', '2', 10));
  return {
    fundingBills,
    tradingBills,
    funding: [
      { ccy: 'BTC', bal: '0.45', availBal: '0.45' },
      { ccy: 'USDT', bal: String(400 + padding), availBal: String(400 + padding) },
    ],
    trading: [
      { ccy: 'BTC', eq: '0.00599', availEq: '0.00599' },
      { ccy: 'USDT', eq: String(423.876 + tradingPadding), availEq: String(423.876 + tradingPadding) },
    ],
  };
}

/**
 * OKX in live mode: ccxt's okx class, unmodified, against a local fake OKX that checks every
 * private request's key, passphrase, timestamp and HMAC-SHA256 signature. Both books — the funding
 * account (deposits, withdrawals) and the trading account (trades) — are read, bills paged back
 * by bill id.
 */
describe.each(engines())('OKX through ccxt on %s', (engine) => {
  const live = liveExchangeSuite(engine, 'okx', startFakeOkx);
  const { consented, connected, refresh, allTransactions, call } = live;
  const fields = (account: OkxAccount) => ({ apiKey: account.key, secret: account.secret, password: account.passphrase });
  const billCalls = (from: number, path: string) =>
    live.fake.requests
      .slice(from)
      .filter((r) => r.path === path)
      .map((r) => r.query);

  it('reads both books’ bills page by page and both books’ balances, and the history adds up to them', async () => {
    const account = live.fake.addAccount({
      ...history(230, 150),
      addresses: {
        BTC: [{ chain: 'BTC-Bitcoin', addr: 'bc1qokxdeposit0000000000000000000000000000' }],
        USDT: [{ chain: 'USDT-TON', addr: 'EQBfAN7LfaUYgXZNw5Wc7GBgkEX2yhuJ5ka95J1JJwXXf4a8', memo: '11563797' }],
      },
    });
    const id = await connected('okx', fields(account));
    const before = live.fake.requests.length;
    const refreshed = await refresh(id, ['balances', 'transactions']);
    expect(refreshed.transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
    expect(refreshed.balance_refresh).toMatchObject({ status: 'succeeded', error: null });

    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data;
    expect(balances.map((b: { asset: string; total: string }) => [b.asset, b.total])).toEqual([
      ['BTC', '0.45599'],
      ['USDT', '1203.876'],
    ]);
    const transactions = await allTransactions(id);
    expect(transactions).toHaveLength(230 + 4 + 150 + 5);
    expect(netByAsset(transactions)).toEqual({ BTC: '0.45599', USDT: '1203.876' });
    expect(transactions.filter((tx) => tx.type === 'deposit')).toHaveLength(232);
    expect(transactions.filter((tx) => tx.type === 'withdrawal')).toEqual([expect.objectContaining({ asset: 'BTC', amount: '-0.05' })]);
    // A trade leg's amount is what was traded; its fee is charged on top.
    expect(transactions.filter((tx) => tx.type === 'trade' && tx.fee !== null)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ asset: 'BTC', amount: '0.01', fee: '0.00001', fee_asset: 'BTC' }),
        expect.objectContaining({ asset: 'USDT', amount: '124', fee: '0.124', fee_asset: 'USDT' }),
      ]),
    );
    // The move between books: out of one, into the other.
    expect(
      transactions
        .filter((tx) => tx.type === 'transfer' && tx.amount.endsWith('600'))
        .map((tx) => tx.amount)
        .sort(),
    ).toEqual(['-600', '600']);

    // Funding bills by bill id (pagingType 2), 100 a page, each page before the oldest bill read:
    // 234 bills in three pages, none lost where a page ended inside a millisecond.
    const funding = billCalls(before, '/api/v5/asset/bills-history');
    expect(funding.map((q) => [q.get('pagingType'), q.get('limit'), q.get('after')])).toEqual([
      ['2', '100', null],
      ['2', '100', expect.stringMatching(/^\d+$/)],
      ['2', '100', expect.stringMatching(/^\d+$/)],
    ]);
    // Trading bills likewise: 155 in two pages, the second before the first's oldest bill.
    const trading = billCalls(before, '/api/v5/account/bills-archive');
    expect(trading.map((q) => q.get('after'))).toEqual([null, expect.stringMatching(/^\d+$/)]);
    expect(account.tradingBills.filter((b) => BigInt(b.billId) < BigInt(trading[1]?.get('after') as string))).toHaveLength(55);
    // Every bill, not just the spot ones (ccxt's fetchLedger would ask for instType=SPOT).
    expect(trading.some((q) => q.has('instType'))).toBe(false);

    expect((await call('GET', `/v1/connect/accounts/${id}/addresses`)).json().data).toEqual([
      expect.objectContaining({ address: 'bc1qokxdeposit0000000000000000000000000000', asset: 'BTC', kind: 'deposit' }),
      // A memo where OKX's captured answer has one (`addrEx.comment`, a TON address).
      expect.objectContaining({
        address: 'EQBfAN7LfaUYgXZNw5Wc7GBgkEX2yhuJ5ka95J1JJwXXf4a8',
        asset: 'USDT',
        label: 'OKX USDT deposit (memo/tag: 11563797)',
      }),
    ]);
  });

  it('reads back only to the cursor’s time on the next refresh, in each book', async () => {
    const account = live.fake.addAccount(history(230));
    const id = await connected('okx', fields(account));
    await refresh(id, ['transactions']);
    account.fundingBills.push({ billId: '9000000', ccy: 'USDT', balChg: '5', bal: '0', type: '1', ts: Date.now() });
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded' });
    // One page each: it reaches back past the last refresh's newest bill less a day.
    expect(billCalls(before, '/api/v5/asset/bills-history')).toHaveLength(1);
    expect(billCalls(before, '/api/v5/account/bills-archive')).toHaveLength(1);
    const transactions = await allTransactions(id);
    expect(transactions).toHaveLength(230 + 4 + 5 + 1);
    expect(new Set(transactions.map((tx) => tx.id)).size).toBe(transactions.length);
  });

  it('refuses a key that can trade, and explains a wrong passphrase', async () => {
    const trader = live.fake.addAccount({ perm: 'read_only,trade' });
    const { path, agent } = await consented();
    const refused = await agent.post(`${path}/providers/okx`, fields(trader));
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('This key can trade.');
    const reader = live.fake.addAccount();
    const wrong = await agent.post(`${path}/providers/okx`, { ...fields(reader), password: `${reader.passphrase}x` });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('OKX did not accept');
  });
});

/** The walk over books, through the provider interface the refresh uses: checkpoints that resume. */
describe('OKX books walked across jobs', () => {
  const okx = fakeForTests(startFakeOkx);

  const provider = () => providerAt('okx', okx.fake.url);
  const walk = (account: OkxAccount, cursor: string | null, pages = Infinity) =>
    walkHistory(provider(), { apiKey: account.key, secret: account.secret, password: account.passphrase }, cursor, pages);

  const everything = (account: OkxAccount) =>
    [...account.tradingBills.map((b) => `ledger:${b.billId}`), ...account.fundingBills.map((b) => `ledger:funding:${b.billId}`)].sort();

  it('resumes inside the first book from its checkpoint, then walks the next', async () => {
    const account = okx.fake.addAccount(history(30, 150));
    const first = await walk(account, null, 1);
    const checkpoint = JSON.parse(first.read.at(-1)?.checkpoint as string) as { books: Record<string, string>; at: string };
    expect(checkpoint.at).toBe('trading');
    const after = (JSON.parse(checkpoint.books.trading as string) as { backfill: { after: string } }).backfill.after;
    const before = okx.fake.requests.length;
    const rest = await walk(account, first.read.at(-1)?.checkpoint as string);
    expect(
      okx.fake.requests
        .slice(before)
        .find((r) => r.path === '/api/v5/account/bills-archive')
        ?.query.get('after'),
    ).toBe(after);
    expect([...refsOf(first.read), ...refsOf(rest.read)].sort()).toEqual(everything(account));
  });

  it('resumes mid-book from a checkpoint holding the finished book’s cursor, and ends with one cursor per book', async () => {
    const account = okx.fake.addAccount(history(230));
    // The trading book (one page), its end, and the first funding page.
    const first = await walk(account, null, 3);
    const checkpoint = JSON.parse(first.read.at(-1)?.checkpoint as string) as { books: Record<string, string> };
    expect(JSON.parse(checkpoint.books.trading as string)).toEqual({ since: expect.any(Number) });
    expect(JSON.parse(checkpoint.books.funding as string)).toEqual({
      backfill: { after: expect.stringMatching(/^\d+$/), top: expect.any(Number) },
    });

    const before = okx.fake.requests.length;
    const rest = await walk(account, first.read.at(-1)?.checkpoint as string);
    // The trading book is not read again; the funding book goes on before the bill it reached.
    expect(okx.fake.requests.slice(before).filter((r) => r.path === '/api/v5/account/bills-archive')).toEqual([]);
    const funding = okx.fake.requests.slice(before).filter((r) => r.path === '/api/v5/asset/bills-history');
    expect(funding[0]?.query.get('after')).toBe(JSON.parse(checkpoint.books.funding as string).backfill.after);
    expect([...refsOf(first.read), ...refsOf(rest.read)].sort()).toEqual(everything(account));
    const cursor = JSON.parse(rest.returned as string) as { books: Record<string, string> };
    expect(Object.keys(cursor.books).sort()).toEqual(['funding', 'trading']);
    expect(JSON.parse(cursor.books.funding as string)).toEqual({ since: expect.any(Number) });
  });

  it('reads each book back only to its cursor’s time on a later walk', async () => {
    const account = okx.fake.addAccount(history(230));
    const { returned } = await walk(account, null);
    const fresh: OkxBill = { billId: '9000001', ccy: 'USDT', balChg: '5', bal: '0', type: '1', ts: Date.now() };
    account.fundingBills.push(fresh);
    const later = await walk(account, returned as string);
    // A day before each book's newest bill: the funding withdrawal (10 days ago) and the new
    // deposit; the trading account's last sale (20 days ago, two bills). Nothing older.
    const day = (daysAgo: number) => (b: OkxBill) => Math.abs(b.ts - (Date.now() - daysAgo * DAY)) < 3_600_000;
    expect(refsOf(later.read).sort()).toEqual(
      [
        ...account.tradingBills.filter(day(20)).map((b) => `ledger:${b.billId}`),
        ...account.fundingBills.filter((b) => day(10)(b) || b === fresh).map((b) => `ledger:funding:${b.billId}`),
      ].sort(),
    );
  });

  it('fails, rather than pass a ledger off as complete, when the exchange ignores the bill id it is given', async () => {
    const account = okx.fake.addAccount(history(230));
    // The second page answers the first again: not below the bill id asked about.
    const first = okx.fake.requests.length;
    const stuck = account.fundingBills.slice(-100).map((b) => okxBillAnswer(b, 'funding'));
    okx.fake.failNext((r) => r.path === '/api/v5/asset/bills-history' && r.query.has('after'), {
      status: 200,
      body: { code: '0', msg: '', data: stuck },
    });
    await expect(walk(account, null)).rejects.toThrow(/OKX call failed/);
    expect(okx.fake.requests.slice(first).filter((r) => r.path === '/api/v5/asset/bills-history')).toHaveLength(2);
  });
});
