import { afterAll, beforeAll, expect } from 'vitest';
import { formatUnits, parseUnits } from '../../src/connect/amounts.js';
import { createHostedSession } from './browser-session.js';
import { runDueJobs } from './connect.js';
import type { Engine } from './database.js';
import { pointExchangeAt } from './exchange-overrides.js';
import { fakeForTests, type FakeExchangeServer } from './fake-exchange-server.js';
import { FormAgent } from './form-agent.js';
import { startTestApp, type TestApp, type TestClient } from './test-app.js';

/** A transaction as the API lists it (the fields tests read). */
export interface ListedTransaction {
  id: string;
  type: string;
  asset: string;
  amount: string;
  fee: string | null;
  fee_asset: string | null;
  status: string;
  tx_hash: string | null;
}

/** Each asset's balance change over a history: its amounts less the fees charged in it (8 decimals). */
export function netByAsset(transactions: ListedTransaction[]): Record<string, string> {
  const net = new Map<string, bigint>();
  const add = (asset: string, units: bigint) => net.set(asset, (net.get(asset) ?? 0n) + units);
  for (const tx of transactions) {
    add(tx.asset, parseUnits(tx.amount, 8));
    if (tx.fee !== null) add(tx.fee_asset as string, -parseUnits(tx.fee, 8));
  }
  return Object.fromEntries([...net].map(([asset, units]) => [asset, formatUnits(units, 8)]).sort());
}

/**
 * The steps of a live-mode exchange test, through the real HTTP surface: the hosted pages with a
 * form agent, the API with the client's live key, the refresh job with the real worker.
 */
export function liveExchangeSteps(t: () => TestApp, client: () => TestClient) {
  const call = (method: 'GET' | 'POST', url: string, json?: unknown) =>
    t().call(client().liveKey, { method, url, ...(json === undefined ? {} : { json }) });

  /** A live session whose account holder has accepted the disclaimer. */
  async function consented() {
    const { session, path } = await createHostedSession(t(), client(), { mode: 'live' });
    const agent = new FormAgent(t().app, 'connect');
    await agent.get(path);
    expect((await agent.post(`${path}/consent`)).statusCode).toBe(303);
    return { session, path, agent };
  }

  async function session(id: string): Promise<{ status: string; accounts: string[] }> {
    return (await call('GET', `/v1/connect/sessions/${id}`)).json();
  }

  /** Connects with `fields` on the exchange's form and finishes the session; returns the account id. */
  async function connected(exchange: string, fields: Record<string, string>): Promise<string> {
    const { session: created, path, agent } = await consented();
    const res = await agent.post(`${path}/providers/${exchange}`, fields);
    expect(res.statusCode, res.body).toBe(303);
    expect((await agent.post(`${path}/finish`)).statusCode).toBe(200);
    const accounts = (await session(created.id)).accounts;
    expect(accounts).toHaveLength(1);
    return accounts[0] as string;
  }

  /**
   * Asks for a refresh, runs the job (waiting up to `waitMs`, see runDueJobs), and returns the
   * account as the API shows it then. A refresh job that threw (it waits for its retry, so the
   * queue looks idle) fails the test with its error: a provider's refusal is an answer the job
   * records, never a throw.
   */
  async function refresh(id: string, features: string[], waitMs?: number) {
    expect((await call('POST', `/v1/connect/accounts/${id}/refresh`, { features })).statusCode).toBe(200);
    await runDueJobs(t().ctx, waitMs);
    const thrown = await t()
      .ctx.db.selectFrom('jobs')
      .select(['status', 'attempts', 'last_error'])
      .where('type', '=', 'connect.refresh_account')
      .where('payload', 'like', `%"account_id":"${id}"%`)
      .where('status', '!=', 'succeeded')
      .where('last_error', 'is not', null)
      .execute();
    expect(thrown).toEqual([]);
    return (await call('GET', `/v1/connect/accounts/${id}`)).json();
  }

  async function allTransactions(id: string): Promise<ListedTransaction[]> {
    const all: ListedTransaction[] = [];
    let after: string | undefined;
    for (;;) {
      const page = (
        await call('GET', `/v1/connect/accounts/${id}/transactions?limit=100${after ? `&starting_after=${after}` : ''}`)
      ).json();
      all.push(...page.data);
      if (!page.has_more) return all;
      after = page.data.at(-1).id;
    }
  }

  return { call, consented, session, connected, refresh, allTransactions };
}

/**
 * A live-exchange test file's set-up: before its tests, the fake exchange (`startFake`, see
 * fakeForTests), then a test app (`app`: its options) whose ccxt for exchange `id` reaches it (its
 * URL, with ccxt's pacing lifted) and a client; after them, the app closed, then `check` (what must
 * hold over the whole file), then the fake closed. `fake` and `app` are set once the tests run;
 * the steps act on that app.
 */
export function liveExchangeSuite<F extends FakeExchangeServer>(
  engine: Engine,
  id: string,
  startFake: () => Promise<F>,
  options: { app?: Parameters<typeof startTestApp>[1]; check?: (fake: F) => void } = {},
) {
  const live = fakeForTests(startFake, options.check) as { fake: F; app: TestApp; client: TestClient };
  beforeAll(async () => {
    live.app = await startTestApp(engine, {
      ...options.app,
      seams: { ...options.app?.seams, exchangeOverrides: { [id]: pointExchangeAt(id, live.fake.url) } },
    });
    live.client = await live.app.newClient();
  });
  afterAll(async () => {
    await live.app?.close();
  });
  return Object.assign(
    live,
    liveExchangeSteps(
      () => live.app,
      () => live.client,
    ),
  );
}
