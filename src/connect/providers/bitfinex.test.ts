import { describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { fakeForTests } from '../../../test/support/fake-exchange-server.js';
import { bitfinexLedger, startFakeBitfinex, type BitfinexAccount } from '../../../test/support/fake-bitfinex.js';
import { liveExchangeSuite, netByAsset } from '../../../test/support/live-exchange.js';
import { providerAt, refsOf, walkHistory } from '../../../test/support/provider-walk.js';
import { EXCHANGE_RATE_LIMIT_SECONDS, EXCHANGE_UNAVAILABLE_SECONDS } from './ccxt-errors.js';

/** The mts of the entry at `index` of the ledger newest first (a page of 2,500 ends at 2,499). */
const mtsAt = (account: BitfinexAccount, index: number) =>
  [...account.ledger].sort((a, b) => b.mts - a.mts || b.id - a.id)[index]?.mts as number;

/**
 * Bitfinex in live mode: ccxt's bitfinex class (API v2), unmodified, against a local fake Bitfinex
 * that checks every authenticated request's key, nonce and HMAC-SHA384 signature. Balances are
 * every wallet's (exchange, margin, funding); the history is the ledger of all of them, walked
 * newest first by end time, 2,500 a page.
 */
describe.each(engines())('Bitfinex through ccxt on %s', (engine) => {
  const live = liveExchangeSuite(engine, 'bitfinex', startFakeBitfinex, {
    // A read-only key may make no write call (`auth/w/…`), in any flow of this file.
    check: (fake) => expect(fake.requests.filter((r) => r.path.startsWith('/v2/auth/w/')).map((r) => r.path)).toEqual([]),
  });
  const { consented, connected, refresh, allTransactions, call } = live;
  const fields = (account: BitfinexAccount) => ({ apiKey: account.key, secret: account.secret });

  it('adds up every wallet’s balances, walks the ledger page by page across a shared millisecond, and the history adds up to them', async () => {
    // 2,613 entries, seven to a millisecond in the padding: the first page of 2,500 ends inside one.
    const account = live.fake.addAccount({ ledger: bitfinexLedger({ padding: 2600 }) });
    const boundary = mtsAt(account, 2499);
    expect(mtsAt(account, 2500)).toBe(boundary);
    const id = await connected('bitfinex', fields(account));
    const before = live.fake.requests.length;
    const refreshed = await refresh(id, ['balances', 'transactions']);
    expect(refreshed.balance_refresh).toMatchObject({ status: 'succeeded', error: null });
    expect(refreshed.transaction_refresh).toMatchObject({ status: 'succeeded', error: null });

    // The exchange wallet (BTC, USD, UST), the margin wallet (BTC) and the funding wallet (USD),
    // added by asset; Bitfinex's UST is Tether (USDT).
    const balances = (await call('GET', `/v1/connect/accounts/${id}/balances`)).json().data;
    expect(balances.map((b: { asset: string; total: string }) => [b.asset, b.total])).toEqual([
      ['BTC', '0.3496'],
      ['USD', '13021.23456789'],
      ['USDT', '250.5'],
    ]);
    const transactions = await allTransactions(id);
    expect(transactions).toHaveLength(2613);
    expect(netByAsset(transactions)).toEqual({ BTC: '0.3496', USD: '13021.23456789', USDT: '250.5' });

    // Newest first, 2,500 a call. The second page ends one millisecond past the oldest read (so
    // that millisecond is asked again, however Bitfinex reads `end`): the entries of the boundary
    // millisecond left off the first page come with it. It also holds entries at the very end it
    // asked for (the fake reads `end` as inclusive), so the third ends at its oldest millisecond.
    expect(live.fake.ledgerCalls(before)).toEqual([
      { limit: 2500 },
      { limit: 2500, end: boundary + 1 },
      { limit: 2500, end: mtsAt(account, 2612) },
    ]);

    const byType = (type: string) => transactions.filter((tx) => tx.type === type);
    expect(
      byType('deposit')
        .map((tx) => [tx.asset, tx.amount])
        .sort(),
    ).toEqual([
      ['BTC', '0.5'],
      ['USD', '10000'],
      ['USDT', '250.5'],
    ]);
    expect(byType('withdrawal').map((tx) => [tx.asset, tx.amount])).toEqual([['BTC', '-0.05']]);
    expect(
      byType('trade')
        .map((tx) => [tx.asset, tx.amount])
        .sort(),
    ).toEqual([
      ['BTC', '-0.1'],
      ['USD', '3000'],
    ]);
    // Bitfinex books fees as entries of their own: the trading fee and the withdrawal fee.
    expect(
      byType('fee')
        .map((tx) => [tx.asset, tx.amount])
        .sort(),
    ).toEqual([
      ['BTC', '-0.0004'],
      ['USD', '-6'],
    ]);
    // One ledger for every wallet: no entry is described as the first wallet's.
    const described = transactions.find((tx) => tx.amount === '1.23456789') as unknown as { description: string };
    expect(described.description).toMatch(/^Bitfinex ledger: payout \(\d+\)$/);
    // Moves between wallets: out of one, into the other, nothing on balance.
    const moves = byType('transfer').filter((tx) => tx.amount !== '0.01' && tx.amount !== '1.23456789');
    expect(moves.map((tx) => [tx.asset, tx.amount]).sort()).toEqual([
      ['BTC', '-0.1'],
      ['BTC', '0.1'],
      ['USD', '-2000'],
      ['USD', '2000'],
    ]);
  });

  it('lists no deposit addresses, and asks for none: ccxt’s lookup is a write endpoint', async () => {
    const account = live.fake.addAccount({ ledger: bitfinexLedger() });
    const id = await connected('bitfinex', fields(account));
    const before = live.fake.requests.length;
    const refreshed = await refresh(id, ['balances']);
    expect(refreshed).toMatchObject({ status: 'active', balance_refresh: { status: 'succeeded' } });
    expect((await call('GET', `/v1/connect/accounts/${id}/addresses`)).json().data).toEqual([]);
    expect(live.fake.requests.slice(before).map((r) => r.path)).toEqual(['/v2/auth/r/wallets', '/v2/auth/r/wallets', '/v2/auth/r/wallets']);
  });

  it('reads back only to the cursor’s time on the next refresh', async () => {
    const account = live.fake.addAccount({ ledger: bitfinexLedger() });
    const id = await connected('bitfinex', fields(account));
    await refresh(id, ['transactions']);
    const newest = Math.max(...account.ledger.map((e) => e.mts));
    account.ledger.push({
      id: 9000,
      currency: 'BTC',
      wallet: 'exchange',
      mts: Date.now(),
      amount: '0.25',
      description: 'Deposit (BITCOIN) #5005 on wallet exchange',
    });
    const before = live.fake.requests.length;
    expect((await refresh(id, ['transactions'])).transaction_refresh).toMatchObject({ status: 'succeeded' });
    // From a day before the newest entry read (whole seconds): the last day's and the new entry,
    // then one call ending just past the oldest of those, which brings nothing new.
    const since = (Math.floor(newest / 1000) - 86_400) * 1000;
    expect(live.fake.ledgerCalls(before)).toEqual([
      { start: since, limit: 2500 },
      { start: since, limit: 2500, end: newest + 1 },
    ]);
    const transactions = await allTransactions(id);
    expect(transactions).toHaveLength(14);
    expect(new Set(transactions.map((tx) => tx.id)).size).toBe(14);
  });

  it('refuses a key that can trade or withdraw, and explains a wrong secret', async () => {
    const { path, agent } = await consented();
    for (const [writes, what] of [
      [['orders'], 'This key can trade.'],
      [['withdraw'], 'This key can withdraw or transfer funds.'],
    ] as const) {
      const refused = await agent.post(`${path}/providers/bitfinex`, fields(live.fake.addAccount({ writes: [...writes] })));
      expect(refused.statusCode).toBe(422);
      expect(refused.body).toContain(what);
    }
    const reader = live.fake.addAccount();
    const wrong = await agent.post(`${path}/providers/bitfinex`, { ...fields(reader), secret: `${reader.secret}0` });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('Bitfinex did not accept');
  });

  it.each([
    ['the rate limit', (on: boolean) => live.fake.setRateLimited(on), 'provider_rate_limited', EXCHANGE_RATE_LIMIT_SECONDS],
    [
      'maintenance',
      (on: boolean) => live.fake.setStatus(on ? 'maintenance' : 'operative'),
      'provider_unavailable',
      EXCHANGE_UNAVAILABLE_SECONDS,
    ],
  ])('records %s as a failed refresh with the time to come back', async (_what, set, code, seconds) => {
    const account = live.fake.addAccount({ ledger: bitfinexLedger() });
    const id = await connected('bitfinex', fields(account));
    set(true);
    try {
      const before = Math.floor(live.app.clock.now() / 1000);
      const refreshed = await refresh(id, ['balances', 'transactions']);
      for (const state of [refreshed.balance_refresh, refreshed.transaction_refresh]) {
        expect(state).toMatchObject({ status: 'failed', error: { code } });
        expect(state.next_refresh_available_at).toBeGreaterThanOrEqual(before + seconds);
      }
      expect(refreshed.status).toBe('active');
    } finally {
      set(false);
    }
  });

  it('marks the account requires_reauth when Bitfinex stops accepting the key', async () => {
    const account = live.fake.addAccount({ ledger: bitfinexLedger() });
    const id = await connected('bitfinex', fields(account));
    live.fake.revoke(account);
    const refreshed = await refresh(id, ['balances', 'transactions']);
    expect(refreshed.status).toBe('requires_reauth');
    expect(refreshed.balance_refresh).toMatchObject({ status: 'failed', error: { code: 'reauthentication_required' } });
  });
});

/** The ledger walk through the provider interface the refresh uses: checkpoints that resume. */
describe('the Bitfinex ledger walked across jobs', () => {
  const bitfinex = fakeForTests(startFakeBitfinex);

  const walk = (account: BitfinexAccount, cursor: string | null, pages = Infinity) =>
    walkHistory(providerAt('bitfinex', bitfinex.fake.url), { apiKey: account.key, secret: account.secret }, cursor, pages);

  it('resumes from a page’s checkpoint at the millisecond it reached, and reads every entry', async () => {
    const account = bitfinex.fake.addAccount({ ledger: bitfinexLedger({ padding: 2600 }) });
    const first = await walk(account, null, 1);
    const checkpoint = first.read.at(-1)?.checkpoint as string;
    expect(JSON.parse(checkpoint)).toEqual({ backfill: { until: mtsAt(account, 2499) + 1, top: expect.any(Number) } });
    const before = bitfinex.fake.requests.length;
    const rest = await walk(account, checkpoint);
    expect(bitfinex.fake.ledgerCalls(before)[0]).toEqual({ limit: 2500, end: mtsAt(account, 2499) + 1 });
    expect(new Set([...refsOf(first.read), ...refsOf(rest.read)])).toEqual(new Set(account.ledger.map((e) => `ledger:${e.id}`)));
    const newest = Math.max(...account.ledger.map((e) => Math.floor(e.mts / 1000)));
    expect(JSON.parse(rest.returned as string)).toEqual({ since: (newest - 86_400) * 1000 });
  });

  it('pages back past a millisecond shared by more than half a page, where `end` is inclusive (the millisecond above it answered again)', async () => {
    // 1,300 entries a millisecond: the second page, asked to end one past the first page's oldest
    // millisecond, is that millisecond above (1,300 read already), 1,187 read already and 13 new.
    // Ending the third one past its oldest again would ask the same page for ever.
    const account = bitfinex.fake.addAccount({ ledger: bitfinexLedger({ padding: 2600, perMillisecond: 1300 }) });
    const { read } = await walk(account, null);
    const refs = refsOf(read);
    expect(new Set(refs)).toEqual(new Set(account.ledger.map((e) => `ledger:${e.id}`)));
    expect(new Set(refs).size).toBe(refs.length);
  });

  it('reads every entry of the millisecond a page boundary splits, were Bitfinex’s `end` exclusive', async () => {
    const account = bitfinex.fake.addAccount({ ledger: bitfinexLedger({ padding: 2600 }), endExclusive: true });
    const { read } = await walk(account, null);
    const refs = refsOf(read);
    expect(new Set(refs)).toEqual(new Set(account.ledger.map((e) => `ledger:${e.id}`)));
    expect(new Set(refs).size).toBe(refs.length);
  });
});
