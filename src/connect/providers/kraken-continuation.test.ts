import { describe, expect, it } from 'vitest';
import { runDueJobs } from '../../../test/support/connect.js';
import { engines } from '../../../test/support/database.js';
import { krakenLedger, startFakeKraken } from '../../../test/support/fake-kraken.js';
import { liveExchangeSuite } from '../../../test/support/live-exchange.js';
import { EXCHANGE_UNAVAILABLE_SECONDS } from './ccxt-errors.js';

/**
 * Refreshes that take more than one job, the client asking once: a first walk of a long history
 * (each run stops after a stored page once its time budget is spent — here none: after every page
 * — and a new job goes on from that page's checkpoint), and transient failures retried by
 * themselves at `next_refresh_available_at`, the wait doubling each time.
 */
describe.each(engines())('Kraken refreshes over several job runs on %s', (engine) => {
  const live = liveExchangeSuite(engine, 'kraken', startFakeKraken, { app: { seams: { refreshHistoryBudgetMs: 0 } } });
  const { connected, refresh, allTransactions, call } = live;

  it('goes on in new jobs from each stored page until the whole ledger is read, then records it once', async () => {
    const account = live.fake.addAccount({ ledger: krakenLedger(120) });
    const id = await connected('kraken', { apiKey: account.key, secret: account.secret });
    const before = live.fake.requests.length;
    const refreshed = await refresh(id, ['transactions']);
    expect(refreshed.transaction_refresh).toMatchObject({ status: 'succeeded', error: null });
    expect(await allTransactions(id)).toHaveLength(120);
    // One ledger page per run: the first from the top, each next one below the oldest entry stored.
    const pages = live.fake.requests
      .slice(before)
      .filter((r) => r.path === '/0/private/Ledgers')
      .map((r) => new URLSearchParams(r.body));
    expect(pages).toHaveLength(3);
    expect(pages.map((p) => p.get('ofs'))).toEqual(['0', '0', '0']);
    expect(pages[0]?.has('end')).toBe(false);
    expect(Number(pages[2]?.get('end'))).toBeLessThan(Number(pages[1]?.get('end')));
    const runs = await live.app.ctx.db
      .selectFrom('jobs')
      .select(['id'])
      .where('type', '=', 'connect.refresh_account')
      .where('payload', 'like', `%${id}%`)
      .execute();
    expect(runs.length).toBe(3);
    const events = (await call('GET', '/v1/events?limit=100'))
      .json()
      .data.filter((e: { type: string; data: { object: { id: string } } }) => e.type === 'account.refreshed' && e.data.object.id === id);
    expect(events).toHaveLength(1);
  });

  it('retries a transient failure by itself at next_refresh_available_at, the wait doubling, three times at most', async () => {
    const account = live.fake.addAccount({ ledger: krakenLedger(3) });
    const id = await connected('kraken', { apiKey: account.key, secret: account.secret });
    const scheduled = async () =>
      (
        await live.app.ctx.db
          .selectFrom('jobs')
          .select(['run_at', 'payload'])
          .where('type', '=', 'connect.refresh_account')
          .where('status', '=', 'pending')
          .where('payload', 'like', `%${id}%`)
          .execute()
      ).map((job) => ({
        at: Math.floor(Number(job.run_at) / 1000),
        retry: (JSON.parse(job.payload) as { retry?: number }).retry,
      }));
    live.fake.setStatus('maintenance');
    try {
      const failed = await refresh(id, ['transactions']);
      const waits: number[] = [];
      let state = failed.transaction_refresh;
      for (let retry = 1; retry <= 3; retry++) {
        expect(state).toMatchObject({ status: 'failed', error: { code: 'provider_unavailable' } });
        waits.push(state.next_refresh_available_at - Math.floor(live.app.clock.now() / 1000));
        expect(await scheduled()).toEqual([{ at: state.next_refresh_available_at, retry }]);
        live.app.clock.advance(state.next_refresh_available_at - Math.floor(live.app.clock.now() / 1000));
        await runDueJobs(live.app.ctx);
        state = (await call('GET', `/v1/connect/accounts/${id}`)).json().transaction_refresh;
      }
      // Measured from a moment after the job's own clock reading (the test clock runs on): a second or two short.
      [1, 2, 4].forEach((factor, i) => {
        expect(waits[i]).toBeLessThanOrEqual(factor * EXCHANGE_UNAVAILABLE_SECONDS);
        expect(waits[i]).toBeGreaterThanOrEqual(factor * EXCHANGE_UNAVAILABLE_SECONDS - 3);
      });
      // After the third retry the client asks again, after the provider's own wait: nothing more is scheduled.
      expect(state).toMatchObject({ status: 'failed', error: { code: 'provider_unavailable' } });
      expect(state.next_refresh_available_at - Math.floor(live.app.clock.now() / 1000)).toBeGreaterThan(EXCHANGE_UNAVAILABLE_SECONDS - 3);
      expect(state.next_refresh_available_at - Math.floor(live.app.clock.now() / 1000)).toBeLessThanOrEqual(EXCHANGE_UNAVAILABLE_SECONDS);
      expect(await scheduled()).toEqual([]);

      // The client may ask again once the last wait is over; a retry that finds Kraken back then
      // stores the history, without the client asking a third time.
      live.app.clock.advance(state.next_refresh_available_at - Math.floor(live.app.clock.now() / 1000));
      const again = await refresh(id, ['transactions']);
      live.fake.setStatus('online');
      live.app.clock.advance(again.transaction_refresh.next_refresh_available_at - Math.floor(live.app.clock.now() / 1000));
      await runDueJobs(live.app.ctx);
      expect((await call('GET', `/v1/connect/accounts/${id}`)).json().transaction_refresh).toMatchObject({ status: 'succeeded' });
      expect(await allTransactions(id)).toHaveLength(3);
    } finally {
      live.fake.setStatus('online');
    }
  });
});
