import { describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { fakeForTests } from '../../../test/support/fake-exchange-server.js';
import { startFakeKucoin, type KucoinAccount, type KucoinEntry } from '../../../test/support/fake-kucoin.js';
import { liveExchangeSuite, netByAsset } from '../../../test/support/live-exchange.js';
import { providerAt, refsOf, walkHistory } from '../../../test/support/provider-walk.js';
import { EXCHANGE_RATE_LIMIT_SECONDS } from './ccxt-errors.js';

const DAY = 86_400_000;

/** An account ledger id as KuCoin writes them: 24 hex digits, rising with time. */
const hexId = (n: bigint) => `65ca${n.toString(16).padStart(20, '0')}`;

/**
 * A classic KuCoin history: deposits into the Main account, a move to the Trade account, a trade
 * there, a withdrawal; `padding` one-USDT deposits on one day twenty days ago, five to a
 * millisecond (more than a page of 500 in one day); quiet days between. `amount` is the balance
 * change, the fee in it, as KuCoin's ledger gives it. Ids (hex, as KuCoin's) rise with time.
 */
function classic(padding: number, perMillisecond = 5) {
  const now = Date.now();
  let id = 265_329_987_780_000n;
  const entry = (fields: Omit<KucoinEntry, 'id' | 'fee' | 'createdAt'> & { fee?: string; daysAgo: number }): KucoinEntry => {
    const { daysAgo, fee, ...rest } = fields;
    return { id: hexId((id += 11n)), fee: fee ?? '0', createdAt: now - daysAgo * DAY, ...rest };
  };
  const entries: KucoinEntry[] = [
    // KuCoin's ledger has answered both the older names (Deposit, Transfer) and codes (DEPOSIT…).
    entry({ currency: 'USDT', amount: '1000', direction: 'in', bizType: 'Deposit', accountType: 'MAIN', daysAgo: 300 }),
    entry({ currency: 'BTC', amount: '0.5', direction: 'in', bizType: 'DEPOSIT', accountType: 'MAIN', daysAgo: 200 }),
    entry({ currency: 'USDT', amount: '600', direction: 'out', bizType: 'TRANSFER', accountType: 'MAIN', daysAgo: 100 }),
    entry({ currency: 'USDT', amount: '600', direction: 'in', bizType: 'Transfer', accountType: 'TRADE', daysAgo: 100 }),
    // Bought 0.01 BTC for 300 USDT, the fee (0.3 USDT) in what went out.
    entry({
      currency: 'USDT',
      amount: '300.3',
      fee: '0.3',
      direction: 'out',
      bizType: 'TRADE_EXCHANGE',
      accountType: 'TRADE',
      daysAgo: 50,
      context: '{"symbol":"BTC-USDT","orderId":"6705f6350dc7210007d6a36d","tradeId":"10046097631627265"}',
    }),
    entry({
      currency: 'BTC',
      amount: '0.01',
      direction: 'in',
      bizType: 'Exchange',
      accountType: 'TRADE',
      daysAgo: 50,
      context: '{"symbol":"BTC-USDT","orderId":"6705f6350dc7210007d6a36d","tradeId":"10046097631627265"}',
    }),
  ];
  const base = now - 20 * DAY;
  for (let i = 0; i < padding; i++)
    entries.push({
      id: hexId((id += 11n)),
      currency: 'USDT',
      amount: '1',
      fee: '0',
      direction: 'in',
      bizType: 'DEPOSIT',
      accountType: 'MAIN',
      createdAt: base + Math.floor(i / perMillisecond),
    });
  // Withdrew 0.05 BTC, the fee (0.0005 BTC) in what left the account.
  entries.push(
    entry({ currency: 'BTC', amount: '0.0505', fee: '0.0005', direction: 'out', bizType: 'WITHDRAW', accountType: 'MAIN', daysAgo: 10 }),
  );
  return {
    entries,
    balances: [
      { type: 'main' as const, currency: 'BTC', balance: '0.4495', available: '0.4495' },
      { type: 'main' as const, currency: 'USDT', balance: String(400 + padding), available: String(400 + padding) },
      { type: 'trade' as const, currency: 'BTC', balance: '0.01', available: '0.01' },
      { type: 'trade' as const, currency: 'USDT', balance: '299.7', available: '299.7' },
    ],
  };
}

/**
 * A high-frequency account: a classic history, then a move of 100 USDT to the Trade HF account
 * and `padding` one-USDT moves in, then a trade there (the fee in what came in), all in the last
 * three days (the HF ledger keeps no more).
 */
function highFrequency(padding: number) {
  const { entries, balances } = classic(0);
  const now = Date.now();
  let id = 254_062_248_624_000n;
  const hf = (fields: Omit<KucoinEntry, 'id' | 'accountType' | 'createdAt' | 'fee'> & { fee?: string; ago: number }): KucoinEntry => {
    const { ago, fee, ...rest } = fields;
    return { id: String((id += 7n)), accountType: 'TRADE_HF', fee: fee ?? '0', createdAt: now - ago, ...rest };
  };
  entries.push({
    id: hexId(265_329_987_790_001n),
    currency: 'USDT',
    amount: '100',
    fee: '0',
    direction: 'out',
    bizType: 'Transfer',
    accountType: 'MAIN',
    createdAt: now - 2 * DAY,
  });
  entries.push(hf({ currency: 'USDT', amount: '100', direction: 'in', bizType: 'TRANSFER', ago: 2 * DAY }));
  for (let i = 0; i < padding; i++)
    entries.push(hf({ currency: 'USDT', amount: '1', direction: 'in', bizType: 'TRANSFER', ago: DAY + 1000 - i }));
  // Bought 0.001 BTC for 50 USDT: 0.00099 BTC came in, after a 0.00001 BTC fee.
  entries.push(hf({ currency: 'USDT', amount: '50', direction: 'out', bizType: 'TRADE_EXCHANGE', ago: 3_600_000 }));
  entries.push(hf({ currency: 'BTC', amount: '0.00099', fee: '0.00001', direction: 'in', bizType: 'TRADE_EXCHANGE', ago: 3_600_000 }));
  const main = balances.map((b) => (b.type === 'main' && b.currency === 'USDT' ? { ...b, balance: '300', available: '300' } : b));
  return {
    entries,
    hf: true,
    balances: [
      ...main,
      { type: 'trade_hf' as const, currency: 'USDT', balance: String(50 + padding), available: String(50 + padding) },
      { type: 'trade_hf' as const, currency: 'BTC', balance: '0.00099', available: '0.00099' },
    ],
  };
}

/**
 * KuCoin in live mode: ccxt's kucoin class, unmodified, against a local fake KuCoin that checks
 * every private request's key, passphrase, timestamp and HMAC-SHA256 signature. The Main, Trade
 * and Trade HF accounts' balances are added; the account ledger is walked a day a call back a
 * year, and the Trade HF ledger by id.
 */
describe.each(engines())('KuCoin through ccxt on %s', (engine) => {
  const live = liveExchangeSuite(engine, 'kucoin', startFakeKucoin);
  const { consented, connected, refresh, allTransactions, call } = live;
  const fields = (account: KucoinAccount) => ({ apiKey: account.key, secret: account.secret, password: account.passphrase });
  const calls = (from: number, path: string) =>
    live.fake.requests
      .slice(from)
      .filter((r) => r.path === path)
      .map((r) => r.query);
  const balancesOf = async (id: string) =>
    (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data.map((b: { asset: string; total: string }) => [b.asset, b.total]);

  it('walks the account ledger a day a call back a year, past quiet days, and the history adds up to the Main and Trade balances', async () => {
    const account = live.fake.addAccount({
      ...classic(1200),
      addresses: {
        BTC: [{ chain: 'btc', address: 'bc1qkucoindeposit00000000000000000000000000' }],
        USDT: [
          { chain: 'eth', address: '0x00000000000000000000000000000000000000aa' },
          { chain: 'trx', address: 'TKucoinDeposit000000000000000000000' },
        ],
      },
    });
    const id = await connected('kucoin', fields(account));
    const before = live.fake.requests.length;
    const refreshed = await refresh(id, ['balances', 'transactions']);
    expect(refreshed.balance_refresh).toMatchObject({ status: 'succeeded', error: null });
    expect(refreshed.transaction_refresh).toMatchObject({ status: 'succeeded', error: null });

    expect(await balancesOf(id)).toEqual([
      ['BTC', '0.4595'],
      ['USDT', '1899.7'],
    ]);
    const transactions = await allTransactions(id);
    expect(transactions).toHaveLength(6 + 1200 + 1);
    expect(netByAsset(transactions)).toEqual({ BTC: '0.4595', USDT: '1899.7' });
    // The amount moved, the fee on top (KuCoin's amount has it in).
    expect(transactions.filter((tx) => tx.type === 'withdrawal')).toEqual([
      expect.objectContaining({ asset: 'BTC', amount: '-0.05', fee: '0.0005', fee_asset: 'BTC' }),
    ]);
    // Deposits answered with the older name (Deposit) and with the code (DEPOSIT) alike.
    expect(transactions.filter((tx) => tx.type === 'deposit')).toHaveLength(2 + 1200);
    expect(
      transactions
        .filter((tx) => tx.type === 'trade')
        .map((tx) => [tx.asset, tx.amount, tx.fee])
        .sort(),
    ).toEqual([
      ['BTC', '0.01', null],
      ['USDT', '-300', '0.3'],
    ]);

    // Every call asks for 24 hours at most; the windows go back from now a year, one after
    // another, the busy day in three pages of 500.
    const ledger = calls(before, '/api/v1/accounts/ledgers').map((q) => ({
      start: Number(q.get('startAt')),
      end: Number(q.get('endAt')),
      size: q.get('pageSize'),
    }));
    expect(ledger.every((c) => c.end - c.start < DAY && c.size === '500')).toBe(true);
    expect(ledger[0]?.end).toBeGreaterThan(Date.now() - 60_000);
    expect(Math.min(...ledger.map((c) => c.start))).toBeLessThan(Date.now() - 363 * DAY);
    expect(ledger.length).toBeGreaterThanOrEqual(366);
    expect(ledger.length).toBeLessThanOrEqual(369);
    // A classic account has no Trade HF account: KuCoin is asked, and its HF ledger is not read.
    expect(calls(before, '/api/v1/hf/accounts/opened').length).toBeGreaterThan(0);
    expect(calls(before, '/api/v1/hf/accounts/ledgers')).toHaveLength(0);

    expect(
      (await call('GET', `/v1/connect/accounts/${id}/addresses`))
        .json()
        .data.map((a: { asset: string; address: string }) => [a.asset, a.address])
        .sort(),
    ).toEqual([
      ['BTC', 'bc1qkucoindeposit00000000000000000000000000'],
      ['USDT', '0x00000000000000000000000000000000000000aa'],
      ['USDT', 'TKucoinDeposit000000000000000000000'],
    ]);
  });

  it('reads a high-frequency account’s Trade HF balances and ledger, paged by id', async () => {
    const account = live.fake.addAccount(highFrequency(250));
    const id = await connected('kucoin', fields(account));
    const before = live.fake.requests.length;
    expect((await refresh(id, ['balances', 'transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded' });
    expect(await balancesOf(id)).toEqual([
      ['BTC', '0.46049'],
      ['USDT', '899.7'],
    ]);
    const transactions = await allTransactions(id);
    expect(transactions).toHaveLength(7 + 1 + 1 + 250 + 2);
    expect(netByAsset(transactions)).toEqual({ BTC: '0.46049', USDT: '899.7' });
    const hf = calls(before, '/api/v1/hf/accounts/ledgers');
    expect(hf.map((q) => [q.get('limit'), q.get('lastId')])).toEqual([
      ['200', null],
      ['200', expect.stringMatching(/^\d+$/)],
    ]);
  });

  it('reads a quiet account’s next refresh from the last walk’s start, not the year again', async () => {
    const account = live.fake.addAccount({ entries: [], balances: [] });
    const id = await connected('kucoin', fields(account));
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded' });
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded' });
    expect(calls(before, '/api/v1/accounts/ledgers').length).toBeLessThanOrEqual(2);
  });

  it('reads back only to the cursor’s time on the next refresh', async () => {
    const account = live.fake.addAccount(classic(0));
    const id = await connected('kucoin', fields(account));
    await refresh(id, ['transactions']);
    account.entries.push({
      id: hexId(265_329_987_799_999n),
      currency: 'USDT',
      amount: '5',
      fee: '0',
      direction: 'in',
      bizType: 'Deposit',
      accountType: 'MAIN',
      createdAt: Date.now(),
    });
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded' });
    // From a day before the newest entry the last refresh read (the withdrawal ten days ago):
    // eleven or twelve windows, not a year's.
    const ledger = calls(before, '/api/v1/accounts/ledgers');
    expect(ledger.length).toBeLessThanOrEqual(12);
    expect(Math.min(...ledger.map((q) => Number(q.get('startAt'))))).toBeGreaterThanOrEqual(Date.now() - 11 * DAY - 60_000);
    expect(await allTransactions(id)).toHaveLength(7 + 1);
  });

  it('records a used-up quota as rate limited, with the time to come back, and an outage as unavailable', async () => {
    const account = live.fake.addAccount(classic(0));
    const id = await connected('kucoin', fields(account));
    live.fake.failNext((r) => r.path === '/api/v1/accounts', {
      status: 429,
      body: { code: '429000', msg: 'Too Many Requests' },
      headers: { 'gw-ratelimit-reset': '1500' },
    });
    const before = Math.floor(live.app.clock.now() / 1000);
    const limited = await refresh(id, ['balances']);
    expect(limited.balance_refresh).toMatchObject({ status: 'failed', error: { code: 'provider_rate_limited' } });
    expect(limited.balance_refresh.next_refresh_available_at).toBeGreaterThanOrEqual(before + EXCHANGE_RATE_LIMIT_SECONDS);
    expect(limited.status).toBe('active');

    // The older per-endpoint limit, 200002, likewise.
    const other = await connected('kucoin', fields(live.fake.addAccount(classic(0))));
    live.fake.failNext((r) => r.path === '/api/v1/accounts', { status: 200, body: { code: '200002', msg: 'Too many requests' } });
    expect((await refresh(other, ['balances'])).balance_refresh).toMatchObject({
      status: 'failed',
      error: { code: 'provider_rate_limited' },
    });

    live.fake.failNext((r) => r.path === '/api/v1/accounts/ledgers', {
      status: 503,
      body: 'Service Unavailable: we are temporarily offline for maintenance',
      text: true,
    });
    const down = await refresh(id, ['transactions']);
    expect(down.transaction_refresh).toMatchObject({ status: 'failed', error: { code: 'provider_unavailable' } });
    expect(down.transaction_refresh.next_refresh_available_at).toBeGreaterThan(0);
  });

  it('marks the account requires_reauth when KuCoin stops accepting the key', async () => {
    const account = live.fake.addAccount(classic(0));
    const id = await connected('kucoin', fields(account));
    live.fake.failNext((r) => r.path === '/api/v1/accounts', { status: 401, body: { code: '400003', msg: 'KC-API-KEY not exists' } });
    const refreshed = await refresh(id, ['balances']);
    expect(refreshed.status).toBe('requires_reauth');
    expect(refreshed.balance_refresh).toMatchObject({ status: 'failed', error: { code: 'reauthentication_required' } });
  });

  it('refuses a unified trading account, which it cannot read yet', async () => {
    const unified = live.fake.addAccount({ mode: 'UNIFIED' });
    const { path, agent } = await consented();
    const refused = await agent.post(`${path}/providers/kucoin`, fields(unified));
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('Unified Trading Account');
  });

  it('refuses a key that can trade, and explains a wrong passphrase', async () => {
    const trader = live.fake.addAccount({ permission: 'General,Spot' });
    const { path, agent } = await consented();
    const refused = await agent.post(`${path}/providers/kucoin`, fields(trader));
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('This key can trade.');
    const reader = live.fake.addAccount();
    const wrong = await agent.post(`${path}/providers/kucoin`, { ...fields(reader), password: `${reader.passphrase}x` });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('KuCoin did not accept');
  });
});

/** The day-by-day walk through the provider interface the refresh uses: a checkpoint resumes it. */
describe('KuCoin ledger walked across jobs', () => {
  const kucoin = fakeForTests(startFakeKucoin);

  const walk = (account: KucoinAccount, cursor: string | null, pages = Infinity) =>
    walkHistory(
      providerAt('kucoin', kucoin.fake.url),
      { apiKey: account.key, secret: account.secret, password: account.passphrase },
      cursor,
      pages,
    );

  it('resumes from its checkpoint at the window it reached, and reads every entry once', async () => {
    const account = kucoin.fake.addAccount(classic(1200));
    // Two pages: the withdrawal's window (ten days ago; the quiet ones before it make no page of
    // their own) and the first page of the busy day. A classic account walks one book: its
    // checkpoint has the one-book form.
    const first = await walk(account, null, 2);
    const checkpoint = JSON.parse(first.read.at(-1)?.checkpoint as string) as { windowed: boolean; backfill: { until: number } };
    expect(checkpoint.windowed).toBe(true);
    const { until } = checkpoint.backfill;
    expect(until).toBeLessThan(Date.now() - 19 * DAY);
    const before = kucoin.fake.requests.length;
    const rest = await walk(account, first.read.at(-1)?.checkpoint as string);
    expect(
      Number(
        kucoin.fake.requests
          .slice(before)
          .find((r) => r.path === '/api/v1/accounts/ledgers')
          ?.query.get('endAt'),
      ),
    ).toBe(until);
    // Every entry, none twice but those of the millisecond a resume asks again (upserted).
    const refs = new Set([...refsOf(first.read), ...refsOf(rest.read)]);
    expect([...refs].sort()).toEqual(account.entries.map((e) => `ledger:${e.id}`).sort());
  });

  it.each([false, true])(
    'reads every entry of a millisecond a page boundary splits (startAt and endAt exclusive: %s)',
    async (boundsExclusive) => {
      // Seven entries a millisecond: pages of 500 end inside one.
      const account = kucoin.fake.addAccount({ ...classic(1200, 7), boundsExclusive });
      const { read } = await walk(account, null);
      const refs = refsOf(read);
      expect(new Set(refs)).toEqual(new Set(account.entries.map((e) => `ledger:${e.id}`)));
      expect(new Set(refs).size).toBe(refs.length);
    },
  );

  it('leaves a checkpoint every 30 quiet windows, so an empty account’s walk goes on across jobs too', async () => {
    const account = kucoin.fake.addAccount({ entries: [], balances: [] });
    const before = kucoin.fake.requests.length;
    const { read } = await walk(account, null, 1);
    expect(kucoin.fake.requests.slice(before).filter((r) => r.path === '/api/v1/accounts/ledgers')).toHaveLength(30);
    const { backfill } = JSON.parse(read[0]?.checkpoint as string) as { backfill: { until: number } };
    expect(Math.abs(backfill.until - (Date.now() - 30 * DAY))).toBeLessThan(60_000);
  });

  it('reads a cursor from before the windows afresh, back a year, once', async () => {
    const account = kucoin.fake.addAccount(classic(0));
    const before = kucoin.fake.requests.length;
    // The walk by end time alone ended at the first quiet day: its cursor may hide older entries.
    const { returned } = await walk(account, JSON.stringify({ since: Date.now() - 5 * DAY }));
    const starts = kucoin.fake.requests
      .slice(before)
      .filter((r) => r.path === '/api/v1/accounts/ledgers')
      .map((r) => Number(r.query.get('startAt')));
    expect(Math.min(...starts)).toBeLessThan(Date.now() - 363 * DAY);
    expect(JSON.parse(returned as string)).toEqual({ since: expect.any(Number), windowed: true });
  });
});
