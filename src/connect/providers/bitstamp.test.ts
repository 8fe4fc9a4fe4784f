import { randomUUID } from 'node:crypto';
import { request } from 'node:https';
import { describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { fakeForTests } from '../../../test/support/fake-exchange-server.js';
import {
  BITSTAMP_MAINTENANCE,
  BITSTAMP_RATE_LIMITED,
  bitstampHmac,
  bitstampTrade,
  bitstampTransfer,
  startFakeBitstamp,
  type BitstampAccount,
  type FakeBitstamp,
} from '../../../test/support/fake-bitstamp.js';
import { liveExchangeSuite, netByAsset } from '../../../test/support/live-exchange.js';
import { providerAt, refsOf, walkHistory } from '../../../test/support/provider-walk.js';
import { SELF_SIGNED_TLS } from '../../../test/support/self-signed-tls.js';
import { formatUnits } from '../amounts.js';
import { EXCHANGE_RATE_LIMIT_SECONDS, EXCHANGE_UNAVAILABLE_SECONDS } from './ccxt-errors.js';

const DAY = 86_400_000;

/** The parameters of the `user_transactions` calls the fake took since its `from`th request. */
const ledgerCalls = (bitstamp: FakeBitstamp, from: number) =>
  bitstamp.requests
    .slice(from)
    .filter((r) => r.path === '/api/v2/user_transactions/')
    .map((r) => new URLSearchParams(r.body));

/**
 * A Bitstamp history as `user_transactions` answers it, ids rising with time: a USD deposit, a
 * BTC deposit under one unit, BTC bought with USD (Bitstamp books the USD rounded to cents:
 * 950.27, not 0.01 × 95,026.53 = 950.2653), ETH bought with BTC, ETH sold for USD, a BTC
 * withdrawal with its fee, XRP from a sub account; and `padding` one-dollar deposits 30 days back.
 * Each trade's fee is in its quote currency. The balances are what it all adds up to.
 */
function history(padding: number) {
  const now = Date.now();
  const usd = dollars(padding);
  let id = 300_000_000;
  const at = (daysAgo: number) => now - daysAgo * DAY;
  const transactions = [
    bitstampTransfer((id += 3), at(60), 'usd', '10000.00'),
    bitstampTransfer((id += 3), at(50), 'btc', '0.50000000'),
    ...Array.from({ length: padding }, (_, i) => bitstampTransfer((id += 3), at(30) + i * 1000, 'usd', '1.00')),
    bitstampTrade((id += 3), at(25), ['btc', 'usd'], '0.01000000', '-950.27', 95026.53, '2.38'),
    bitstampTrade((id += 3), at(20), ['eth', 'btc'], '1.00000000', '-0.03456789', 0.03456789, '0.00008642'),
    bitstampTrade((id += 3), at(15), ['eth', 'usd'], '-0.50000000', '1234.57', 2469.13, '3.09'),
    bitstampTransfer((id += 3), at(10), 'btc', '-0.05000000', '0.00010000'),
    { ...bitstampTransfer((id += 3), at(9), 'xrp', '25.00000000'), type: '14' },
    // A currency Bitstamp lists no market for any more: ccxt would not know it.
    bitstampTransfer((id += 3), at(8), 'ltc', '2.00000000'),
  ];
  return {
    transactions,
    balances: {
      usd: { total: usd, available: usd },
      btc: { total: '0.42524569', available: '0.40000000' },
      eth: { total: '0.50000000', available: '0.50000000' },
      xrp: { total: '25.00000000', available: '25.00000000' },
      ltc: { total: '2.00000000', available: '2.00000000' },
      eur: { total: '0.00', available: '0.00' },
    },
  };
}

/** The USD the history leaves: 10,000 in, 952.65 out for BTC, 1,231.48 in for ETH, and the padding. */
const dollars = (padding: number) => formatUnits(BigInt(1_027_883 + padding * 100), 2);

/** What the history adds up to, as netByAsset writes it. */
const added = (padding: number) => ({ BTC: '0.42524569', ETH: '0.5', LTC: '2', USD: dollars(padding), XRP: '25' });

/**
 * Bitstamp in live mode: ccxt's bitstamp class, unmodified, against a local fake Bitstamp over
 * HTTPS that checks every private request's key, nonce, timestamp and HMAC-SHA256 signature as
 * Bitstamp documents them. The whole flow goes through the hosted connect pages, the API and the
 * refresh job.
 */
describe.each(engines())('Bitstamp through ccxt on %s', (engine) => {
  const live = liveExchangeSuite(engine, 'bitstamp', startFakeBitstamp);
  const { consented, connected, refresh, allTransactions, call } = live;
  const fields = (account: BitstampAccount) => ({ apiKey: account.key, secret: account.secret });

  it('walks user_transactions 1,000 a page, each trade as its two legs, and the history adds up to the balances', async () => {
    const account = live.fake.addAccount(history(1100));
    const id = await connected('bitstamp', fields(account));
    const before = live.fake.requests.length;
    const refreshed = await refresh(id, ['balances', 'transactions']);
    expect(refreshed.balance_refresh).toMatchObject({ status: 'succeeded', error: null });
    expect(refreshed.transaction_refresh).toMatchObject({ status: 'succeeded', error: null });

    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data;
    expect(balances.map((b: Record<string, string>) => [b.asset, b.total, b.available])).toEqual([
      ['BTC', '0.42524569', '0.4'],
      ['ETH', '0.5', '0.5'],
      ['LTC', '2', '2'],
      ['USD', '11378.83', '11378.83'],
      ['XRP', '25', '25'],
    ]);
    const transactions = await allTransactions(id);
    expect(transactions).toHaveLength(2 + 1100 + 3 * 2 + 1 + 1 + 1);
    expect(netByAsset(transactions)).toEqual(added(1100));

    // Both legs of each trade as Bitstamp booked them, the fee with the quote leg.
    const trades = transactions.filter((tx) => tx.type === 'trade').map((tx) => [tx.asset, tx.amount, tx.fee, tx.fee_asset]);
    expect(trades.sort()).toEqual(
      [
        ['BTC', '0.01', null, null],
        ['USD', '-950.27', '2.38', 'USD'],
        ['ETH', '1', null, null],
        ['BTC', '-0.03456789', '0.00008642', 'BTC'],
        ['ETH', '-0.5', null, null],
        ['USD', '1234.57', '3.09', 'USD'],
      ].sort(),
    );
    // Deposits in (one under a unit among them), the withdrawal out with its fee, the sub
    // account's XRP a transfer.
    expect(
      transactions
        .filter((tx) => tx.type === 'deposit' && tx.asset !== 'USD')
        .map((tx) => [tx.asset, tx.amount])
        .sort(),
    ).toEqual([
      ['BTC', '0.5'],
      ['LTC', '2'],
    ]);
    expect(transactions.filter((tx) => tx.type === 'deposit' && tx.asset === 'USD' && tx.amount !== '1')).toEqual([
      expect.objectContaining({ amount: '10000' }),
    ]);
    expect(transactions.filter((tx) => tx.type === 'withdrawal')).toEqual([
      expect.objectContaining({ asset: 'BTC', amount: '-0.05', fee: '0.0001', fee_asset: 'BTC' }),
    ]);
    expect(transactions.filter((tx) => tx.type === 'transfer')).toEqual([expect.objectContaining({ asset: 'XRP', amount: '25' })]);

    // Oldest first, 1,000 a page, the second from the thousandth entry's id: 1,108 entries in two pages.
    expect(ledgerCalls(live.fake, before).map((p) => [p.get('since_id'), p.get('sort'), p.get('limit'), p.get('offset')])).toEqual([
      [null, 'asc', '1000', null],
      [String(account.transactions[999]?.id), 'asc', '1000', null],
    ]);
  });

  it('corrects in place a row stored under ccxt’s reading, a deposit as a withdrawal', async () => {
    const account = live.fake.addAccount({
      transactions: [bitstampTransfer(300_500_001, Date.now(), 'usd', '10000.00')],
      balances: { usd: { total: '10000.00', available: '10000.00' } },
    });
    const id = await connected('bitstamp', fields(account));
    await refresh(id, ['transactions']);
    // What a refresh stored before the rows were read by column: the same reference, as an outflow,
    // and the cursor of that walk by offset (a time), which the walk by id reads from the start.
    await live.app.ctx.db
      .updateTable('connect_account_transactions')
      .set({ type: 'withdrawal', amount: '-10000' })
      .where('account_id', '=', id)
      .where('provider_ref', '=', 'ledger:300500001')
      .execute();
    await live.app.ctx.db
      .updateTable('connect_accounts')
      .set({ transaction_cursor: JSON.stringify({ since: Date.now() - DAY }) })
      .where('id', '=', id)
      .execute();
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded' });
    expect((await allTransactions(id)).map((tx) => [tx.type, tx.asset, tx.amount])).toEqual([['deposit', 'USD', '10000']]);
  });

  it('reads on from the newest id read on the next refresh, whether Bitstamp answers that row again or not', async () => {
    const account = live.fake.addAccount(history(0));
    const id = await connected('bitstamp', fields(account));
    await refresh(id, ['transactions']);
    const newestRead = account.transactions.at(-1)?.id;
    account.transactions.push(bitstampTrade(400_000_001, Date.now(), ['btc', 'usd'], '-0.00100000', '96.12', 96123.45, '0.24'));
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded' });
    // One call from the newest id read: the fake answers that row again (our reading of
    // `since_id`), which is left out; the new trade is its two legs.
    expect(ledgerCalls(live.fake, before).map((p) => p.get('since_id'))).toEqual([String(newestRead)]);
    const transactions = await allTransactions(id);
    expect(transactions).toHaveLength(11 + 2);
    expect(new Set(transactions.map((tx) => tx.id)).size).toBe(transactions.length);
    expect(netByAsset(transactions)).toEqual({ ...added(0), BTC: '0.42424569', USD: '10374.71' });
  });

  it('records a page failing mid-walk as a failed refresh, and the next refresh goes on from the last page stored', async () => {
    const account = live.fake.addAccount(history(1200));
    const id = await connected('bitstamp', fields(account));
    live.fake.failNext((r) => r.path === '/api/v2/user_transactions/' && new URLSearchParams(r.body).has('since_id'), BITSTAMP_MAINTENANCE);
    const failed = await refresh(id, ['transactions']);
    expect(failed.transaction_refresh).toMatchObject({ status: 'failed', error: { code: 'provider_unavailable' } });
    // The first page is stored (the oldest 1,000 entries, deposits all); the refresh is not complete.
    expect(await allTransactions(id)).toHaveLength(1000);

    live.app.clock.advance(EXCHANGE_UNAVAILABLE_SECONDS);
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded' });
    // From the id of the last entry stored: the first page is not read again.
    expect(ledgerCalls(live.fake, before).map((p) => p.get('since_id'))).toEqual([String(account.transactions[999]?.id)]);
    const transactions = await allTransactions(id);
    expect(transactions).toHaveLength(11 + 1200);
    expect(netByAsset(transactions)).toEqual(added(1200));
  });

  it.each([
    ['the rate limit (response code 400.002)', BITSTAMP_RATE_LIMITED, 'provider_rate_limited', EXCHANGE_RATE_LIMIT_SECONDS],
    [
      'the rate limit answered with HTTP 429',
      { ...BITSTAMP_RATE_LIMITED, status: 429 },
      'provider_rate_limited',
      EXCHANGE_RATE_LIMIT_SECONDS,
    ],
    // Undocumented, so not assumed away: a 429 whose body names no code is a rate limit all the same.
    [
      'an HTTP 429 with no response code',
      { status: 429, body: { status: 'error', reason: 'Too many requests' } },
      'provider_rate_limited',
      EXCHANGE_RATE_LIMIT_SECONDS,
    ],
    ['maintenance', BITSTAMP_MAINTENANCE, 'provider_unavailable', EXCHANGE_UNAVAILABLE_SECONDS],
  ])('records %s as a failed refresh with the time to come back', async (_what, answer, code, seconds) => {
    const account = live.fake.addAccount(history(0));
    const id = await connected('bitstamp', fields(account));
    for (const path of ['/api/v2/account_balances/', '/api/v2/user_transactions/']) live.fake.failNext((r) => r.path === path, answer);
    const before = Math.floor(live.app.clock.now() / 1000);
    const refreshed = await refresh(id, ['balances', 'transactions']);
    for (const state of [refreshed.balance_refresh, refreshed.transaction_refresh]) {
      expect(state).toMatchObject({ status: 'failed', error: { code } });
      expect(state.next_refresh_available_at).toBeGreaterThanOrEqual(before + seconds);
    }
    expect(refreshed.status).toBe('active');
  });

  it('explains the rate limit on the form as a wait, not as an answer it could not use', async () => {
    const account = live.fake.addAccount(history(0));
    const { path, agent } = await consented();
    live.fake.failNext((r) => r.path === '/api/v2/account_balances/', BITSTAMP_RATE_LIMITED);
    const res = await agent.post(`${path}/providers/bitstamp`, fields(account));
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('Bitstamp is limiting how often we may ask.');
  });

  it('marks the account requires_reauth when Bitstamp stops accepting the key, and refuses a wrong secret on the form', async () => {
    const account = live.fake.addAccount(history(0));
    const id = await connected('bitstamp', fields(account));
    const secret = account.secret;
    // The key's secret changed at Bitstamp: our signatures no longer match (API0005).
    account.secret = `${secret}0`;
    const refreshed = await refresh(id, ['balances']);
    expect(refreshed.status).toBe('requires_reauth');
    expect(refreshed.balance_refresh).toMatchObject({ status: 'failed', error: { code: 'reauthentication_required' } });

    const { path, agent } = await consented();
    const wrong = await agent.post(`${path}/providers/bitstamp`, { apiKey: account.key, secret });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('Bitstamp did not accept this API key and secret.');
  });

  it('reads deposit addresses where the key may, and none (the account staying active) where it may not', async () => {
    const addresses = {
      btc: { address: 'bc1qbitstampdeposit000000000000000000000000' },
      eth: { address: '0x00000000000000000000000000000000000000bb' },
      xrp: { address: 'rDsbeomae4FXwgQTJp9Rs64Qg9vDiTCdBv', destination_tag: 89_123_457 },
    };
    const withDeposit = live.fake.addAccount({
      ...history(0),
      permissions: new Set(['account_balance', 'user_transactions', 'deposit']),
      addresses,
    });
    const id = await connected('bitstamp', fields(withDeposit));
    expect((await refresh(id, ['balances'])).balance_refresh).toMatchObject({ status: 'succeeded' });
    expect(
      (await call('GET', `/v1/connect/accounts/${id}/addresses`))
        .json()
        .data.map((a: Record<string, string>) => [a.asset, a.address, a.label])
        .sort(),
    ).toEqual([
      ['BTC', 'bc1qbitstampdeposit000000000000000000000000', 'Bitstamp BTC deposit'],
      ['ETH', '0x00000000000000000000000000000000000000bb', 'Bitstamp ETH deposit'],
      ['XRP', 'rDsbeomae4FXwgQTJp9Rs64Qg9vDiTCdBv', 'Bitstamp XRP deposit (memo/tag: 89123457)'],
    ]);

    // The key our steps ask for has no deposit permission: Bitstamp answers API0003.
    const readOnly = live.fake.addAccount({ ...history(0), addresses });
    const other = await connected('bitstamp', fields(readOnly));
    const refreshed = await refresh(other, ['balances']);
    expect(refreshed).toMatchObject({ status: 'active', balance_refresh: { status: 'succeeded' } });
    expect((await call('GET', `/v1/connect/accounts/${other}/addresses`)).json().data).toEqual([]);
  });
});

/** The walk through the provider interface the refresh uses, against ccxt's own reading of the entries. */
describe('Bitstamp user_transactions read by columns', () => {
  const bitstamp = fakeForTests(startFakeBitstamp);

  const walk = (account: BitstampAccount, history?: Parameters<typeof providerAt>[2]) =>
    walkHistory(providerAt('bitstamp', bitstamp.fake.url, history), { apiKey: account.key, secret: account.secret }, null);

  it('keeps the references ccxt’s reading gave a deposit, a trade’s legs beside them', async () => {
    const { transactions } = history(0);
    // Deposits only: the entries ccxt's reading (the row before its rows were read by column)
    // could store at all. That walk went by offset, newest first.
    const deposits = bitstamp.fake.addAccount({ transactions: transactions.filter((e) => e.type === '0' && e.usd !== 0) });
    const ccxtReading = await walk(deposits, { kind: 'ledger-offset', param: 'offset', pageSize: 1000 });
    const ours = await walk(deposits);
    expect(refsOf(ours.read)).toEqual(refsOf(ccxtReading.read));
    // ccxt reads a Bitstamp deposit as an outflow: those rows were stored as withdrawals.
    expect(ccxtReading.read.flatMap((p) => p.transactions).map((tx) => [tx.type, tx.amount])).toEqual([['withdrawal', '-10000']]);
    expect(ours.read.flatMap((p) => p.transactions).map((tx) => [tx.type, tx.amount])).toEqual([['deposit', '10000']]);

    // A trade (which ccxt's reading could never store) is its two legs.
    const everything = bitstamp.fake.addAccount({ transactions });
    const { read } = await walk(everything);
    const trade = transactions.find((e) => e.type === '2') as { id: number };
    expect(refsOf(read).filter((ref) => ref.startsWith(`ledger:${trade.id}`))).toEqual([
      `ledger:${trade.id}:base`,
      `ledger:${trade.id}:quote`,
    ]);
    // ccxt's reading cannot walk it at all: its trade entries and sub-unit amounts have no currency.
    await expect(walk(everything, { kind: 'ledger-offset', param: 'offset', pageSize: 1000 })).rejects.toThrow(/Bitstamp call failed/);
  });

  it.each(['inclusive', 'exclusive'] as const)(
    'leaves the newest id read as each full page’s checkpoint; a walk from it reads on from there, each entry once (`since_id` %s)',
    async (reading) => {
      const { transactions } = history(2100);
      const account = bitstamp.fake.addAccount({ transactions, sinceId: reading });
      const connection = { apiKey: account.key, secret: account.secret };
      const provider = providerAt('bitstamp', bitstamp.fake.url);
      // Stopped after two pages, as a refresh out of time stops. Read as inclusive, `since_id`
      // answers the row asked from again (left out): 999 new ones on the second page.
      const first = await walkHistory(provider, connection, null, 2);
      const secondEnd = reading === 'inclusive' ? 1998 : 1999;
      expect(first.read.map((page) => page.checkpoint)).toEqual([
        JSON.stringify({ fromId: String(transactions[999]?.id) }),
        JSON.stringify({ fromId: String(transactions[secondEnd]?.id) }),
      ]);
      const rest = await walkHistory(provider, connection, first.read[1]?.checkpoint as string);
      // The last page needs no checkpoint: its newest id is the cursor the walk returns.
      expect(rest.read.map((page) => page.checkpoint)).toEqual([undefined]);
      expect(rest.returned).toBe(JSON.stringify({ fromId: String(transactions.at(-1)?.id) }));
      const refs = [...refsOf(first.read), ...refsOf(rest.read)];
      expect(new Set(refs).size).toBe(refs.length);
      expect(refs).toHaveLength(2 + 2100 + 3 * 2 + 3);
      // Nothing new: the cursor stays where it was.
      expect((await walkHistory(provider, connection, rest.returned as string)).returned).toBe(rest.returned);
    },
  );

  it('keeps the cursor it had when an account has nothing to read', async () => {
    const empty = bitstamp.fake.addAccount({ transactions: [] });
    const connection = { apiKey: empty.key, secret: empty.secret };
    const provider = providerAt('bitstamp', bitstamp.fake.url);
    expect((await walkHistory(provider, connection, null)).returned).toBeNull();
    // A cursor of the former walk by offset (a time) is read from the start, and kept while there is nothing.
    const former = JSON.stringify({ since: Date.now() - DAY });
    expect((await walkHistory(provider, connection, former)).returned).toBe(former);
  });

  it.each([
    ['an answer that ignored since_id', { sinceId: 'ignored' as const }, 2],
    ['an answer newest first whatever sort says', { ignoresSort: true }, 1],
  ])('fails rather than pass rows over: %s', async (_what, misreading, calls) => {
    const account = bitstamp.fake.addAccount({ transactions: history(1000).transactions, ...misreading });
    const before = bitstamp.fake.requests.length;
    // What failed is not shown (the exchange's words may echo what we sent): the class.
    await expect(walk(account)).rejects.toThrow('Bitstamp call failed: Error');
    expect(ledgerCalls(bitstamp.fake, before)).toHaveLength(calls);
  });

  it('fails rather than pass rows over when a row booked late lists out of id order', async () => {
    // Oldest first by time, so a row with a high id and an old time comes before lower ids.
    const { transactions } = history(1100);
    const late = { ...bitstampTransfer(900_000_000, Date.now() - 45 * DAY, 'usd', '5.00'), type: '0' };
    const account = bitstamp.fake.addAccount({ transactions: [...transactions, late] });
    await expect(walk(account)).rejects.toThrow('Bitstamp call failed: Error');
  });
});

/** The fake itself refuses what Bitstamp documents it refuses: a fake that took anything would prove nothing. */
describe('the fake Bitstamp', () => {
  const bitstamp = fakeForTests(startFakeBitstamp);

  /** A signed POST to the fake as Bitstamp's documentation builds it, with `change` applied last. */
  function post(
    account: BitstampAccount,
    path: string,
    body: string,
    change: { nonce?: string; timestamp?: string; host?: string; signHost?: string } = {},
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const url = new URL(path, bitstamp.fake.url);
    const nonce = change.nonce ?? randomUUID();
    const timestamp = change.timestamp ?? String(Date.now());
    const contentType = 'application/x-www-form-urlencoded';
    const signature = bitstampHmac(
      account.secret,
      `BITSTAMP ${account.key}POST${change.signHost ?? url.host}${url.pathname}${contentType}${nonce}${timestamp}v2${body}`,
    );
    const headers = {
      'X-Auth': `BITSTAMP ${account.key}`,
      'X-Auth-Signature': signature.toUpperCase(),
      'X-Auth-Nonce': nonce,
      'X-Auth-Timestamp': timestamp,
      'X-Auth-Version': 'v2',
      'Content-Type': contentType,
    };
    return new Promise((resolve, reject) => {
      const req = request(url, { method: 'POST', headers, ca: SELF_SIGNED_TLS.cert }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }),
        );
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('takes a request signed as documented (upper-case hex too), and refuses a reused nonce, a stale timestamp, a host signed with its scheme and a missing permission', async () => {
    const account = bitstamp.fake.addAccount({ balances: { btc: { total: '1.00000000', available: '1.00000000' } } });
    const nonce = randomUUID();
    expect(await post(account, '/api/v2/account_balances/', 'foo=bar', { nonce })).toMatchObject({
      status: 200,
      json: expect.arrayContaining([expect.objectContaining({ currency: 'btc', total: '1.00000000' })]),
    });
    expect(await post(account, '/api/v2/account_balances/', 'foo=bar', { nonce })).toMatchObject({
      status: 403,
      json: { code: 'API0004' },
    });
    expect(await post(account, '/api/v2/account_balances/', 'foo=bar', { timestamp: String(Date.now() - 151_000) })).toMatchObject({
      status: 403,
      json: { code: 'API0017' },
    });
    expect(
      await post(account, '/api/v2/account_balances/', 'foo=bar', { signHost: `https://${new URL(bitstamp.fake.url).host}` }),
    ).toMatchObject({ status: 403, json: { code: 'API0005' } });
    expect(await post(account, '/api/v2/btc_address/', 'foo=bar')).toMatchObject({
      status: 403,
      json: { code: 'API0003', reason: 'No permission found' },
    });
    expect(await post(account, '/api/v2/user_transactions/', 'offset=200001')).toMatchObject({
      status: 400,
      json: { reason: 'Invalid offset' },
    });
    expect(
      await post(account, '/api/v2/user_transactions/', `until_timestamp=${Math.floor(Date.now() / 1000) - 31 * 86_400}`),
    ).toMatchObject({ status: 400, json: { response_code: '400.034' } });
  });
});
