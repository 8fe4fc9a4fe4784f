/**
 * Exchange refresh (issue 14), measured in one run: a transaction refresh of a Kraken account with
 * 50,000 ledger entries, through the real service (hosted-flow connect, the refresh job on the real
 * worker, ccxt unmodified, SQLite) against the local fake Kraken of the tests, and against it the
 * fake's own page-serving rate: the same 1,000 signed Ledgers requests sent straight to it by a
 * bare HTTP client. Peak RSS is sampled during the timed refreshes; an untimed extra refresh with a
 * full GC every 100 ms gives the most heap it keeps alive at once, set against what holding the
 * whole history at once takes (the streaming check).
 */
import { request } from 'node:http';
import { createSessionFor, completeWith, runDueJobs } from '../test/support/connect.js';
import { pointExchangeAt } from '../test/support/exchange-overrides.js';
import { krakenLedger, krakenSignature, startFakeKraken, type FakeKraken } from '../test/support/fake-kraken.js';
import { startTestApp } from '../test/support/test-app.js';
import { median } from './median.js';

const LEDGER_PAGE = 50;

export interface ExchangeRefreshBench {
  entries: number;
  pages: number;
  /** Per round. */
  refreshMs: number[];
  fakeOnlyMs: number[];
  /** Peak RSS of the process during each timed refresh (MiB; includes ccxt, ~140 MiB, and the fake's ledger). */
  peakRssMiB: number[];
  /**
   * An untimed extra round with a full GC every 100 ms: the most heap the refresh kept alive at once,
   * above what the process held before it (MiB). Undefined without `--expose-gc`.
   */
  retainedHeapGrowthMiB: number | undefined;
  /** Heap that holding all entries as our transactions at once takes (MiB): what streaming avoids. */
  wholeHistoryHeapMiB: number;
  stored: number;
}

/** Sends the same signed Ledgers requests ccxt sends, one after the other, and reads every answer. */
async function fakeOnly(kraken: FakeKraken, key: string, secret: string, pages: number): Promise<number> {
  const { hostname, port } = new URL(kraken.url);
  let nonce = Date.now();
  const started = performance.now();
  for (let page = 0; page < pages; page++) {
    const body = `nonce=${++nonce}&ofs=${page * LEDGER_PAGE}`;
    const path = '/0/private/Ledgers';
    await new Promise<void>((resolve, reject) => {
      const req = request(
        {
          hostname,
          port,
          path,
          method: 'POST',
          headers: {
            'API-Key': key,
            'API-Sign': krakenSignature(secret, path, String(nonce), body),
            'content-type': 'application/x-www-form-urlencoded',
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error: string[] };
            if (answer.error.length > 0) reject(new Error(answer.error.join(', ')));
            else resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
  return performance.now() - started;
}

/** Samples RSS and heap until stopped (with `collect`, after a full GC: live data only); returns the peaks. */
function sampleMemory(collect?: () => void): () => { rss: number; heap: number } {
  let rss = 0;
  let heap = 0;
  const take = () => {
    collect?.();
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  };
  take();
  const timer = setInterval(take, collect ? 100 : 20);
  return () => {
    clearInterval(timer);
    take();
    return { rss, heap };
  };
}

const MiB = 1024 * 1024;

export async function runExchangeRefreshBench(options: { entries?: number; rounds?: number } = {}): Promise<ExchangeRefreshBench> {
  const entries = options.entries ?? 50_000;
  const rounds = options.rounds ?? 3;
  const pages = Math.ceil(entries / LEDGER_PAGE);
  const kraken = await startFakeKraken();
  // ccxt's own pacing off: with it, Kraken's Ledgers call costs 6 × 1 s, and the bench would
  // measure the pacing (docs/exchanges.md, "Pacing"), not the pipeline.
  const t = await startTestApp('sqlite', {
    seams: { exchangeOverrides: { kraken: { ...pointExchangeAt('kraken', kraken.url), enableRateLimit: false } } },
  });
  const result: ExchangeRefreshBench = {
    entries,
    pages,
    refreshMs: [],
    fakeOnlyMs: [],
    peakRssMiB: [],
    retainedHeapGrowthMiB: undefined,
    wholeHistoryHeapMiB: 0,
    stored: 0,
  };
  try {
    const client = await t.newClient();
    const ledger = krakenLedger(entries);
    /** A new account (so the refresh reads the whole history: no cursor yet) with its refresh requested. */
    const requestRefresh = async () => {
      const account = kraken.addAccount({ ledger });
      const { session } = await createSessionFor(t, client.liveKey, { permissions: ['transactions'] });
      const [id] = await completeWith(t.ctx, session.client_secret, 'kraken', { apiKey: account.key, secret: account.secret });
      const res = await t.call(client.liveKey, {
        method: 'POST',
        url: `/v1/connect/accounts/${id}/refresh`,
        json: { features: ['transactions'] },
      });
      if (res.statusCode !== 200) throw new Error(`refresh: ${res.statusCode} ${res.body}`);
      return id as string;
    };
    for (let round = 0; round < rounds; round++) {
      const id = await requestRefresh();

      // Fake alone and our refresh, in turn (order alternating by round). The bare client has a key
      // of its own: Kraken's nonces are per key, and two clients on one key trip each other.
      const bare = kraken.addAccount({ ledger });
      const fakeFirst = round % 2 === 1;
      if (fakeFirst) result.fakeOnlyMs.push(await fakeOnly(kraken, bare.key, bare.secret, pages));
      const stop = sampleMemory();
      const started = performance.now();
      await runDueJobs(t.ctx, 600_000);
      result.refreshMs.push(performance.now() - started);
      result.peakRssMiB.push(stop().rss / MiB);
      if (!fakeFirst) result.fakeOnlyMs.push(await fakeOnly(kraken, bare.key, bare.secret, pages));

      const state = (await t.call(client.liveKey, { method: 'GET', url: `/v1/connect/accounts/${id}` })).json().transaction_refresh;
      if (state?.status !== 'succeeded') throw new Error(`refresh did not succeed: ${JSON.stringify(state)}`);
      const count = await t.ctx.db
        .selectFrom('connect_account_transactions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', id)
        .executeTakeFirstOrThrow();
      result.stored = Number(count.n);
    }
    const gc = globalThis.gc;
    if (gc) {
      await requestRefresh();
      gc();
      const before = process.memoryUsage().heapUsed;
      // gc() without options collects at once; its type also covers the asynchronous form.
      const stop = sampleMemory(() => void gc());
      await runDueJobs(t.ctx, 600_000);
      result.retainedHeapGrowthMiB = (stop().heap - before) / MiB;
    }
    // What holding the whole history would take: the same entries as our transactions, all at once.
    gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const held = ledger.map((e) => ({
      ref: `ledger:${e.id}`,
      type: 'trade',
      asset: e.asset,
      amount: e.amount,
      fee: e.fee,
      feeAsset: e.asset,
      occurredAt: Math.floor(e.time),
      status: 'completed',
      txHash: null,
      description: `Kraken ledger: ${e.type} (${e.refid})`,
    }));
    result.wholeHistoryHeapMiB = (process.memoryUsage().heapUsed - heapBefore) / MiB;
    if (held.length !== entries) throw new Error('unreachable');
  } finally {
    await t.close();
    await kraken.close();
  }
  return result;
}

export function formatExchangeRefreshBench(bench: ExchangeRefreshBench): string {
  const f = (values: number[], digits = 0) => values.map((v) => v.toFixed(digits)).join(' · ');
  const ratios = bench.refreshMs.map((ms, i) => ms / (bench.fakeOnlyMs[i] as number));
  return [
    `Kraken ledger of ${bench.entries.toLocaleString('en')} entries, ${bench.pages} pages of ${LEDGER_PAGE}; stored ${bench.stored.toLocaleString('en')} transactions.`,
    '',
    '| | per round | median |',
    '|---|---|---|',
    `| refresh (ccxt + our job + SQLite), ms | ${f(bench.refreshMs)} | ${median(bench.refreshMs).toFixed(0)} |`,
    `| refresh, pages/s | ${f(bench.refreshMs.map((ms) => (bench.pages / ms) * 1000))} | ${((bench.pages / median(bench.refreshMs)) * 1000).toFixed(0)} |`,
    `| fake Kraken alone (bare signed client), ms | ${f(bench.fakeOnlyMs)} | ${median(bench.fakeOnlyMs).toFixed(0)} |`,
    `| fake alone, pages/s | ${f(bench.fakeOnlyMs.map((ms) => (bench.pages / ms) * 1000))} | ${((bench.pages / median(bench.fakeOnlyMs)) * 1000).toFixed(0)} |`,
    `| refresh ÷ fake alone (time) | ${f(ratios, 2)} | ${median(ratios).toFixed(2)} |`,
    `| peak RSS of the process, MiB | ${f(bench.peakRssMiB)} | ${median(bench.peakRssMiB).toFixed(0)} |`,
    `| most heap the refresh kept alive at once (GC every 100 ms), MiB | | ${bench.retainedHeapGrowthMiB === undefined ? 'run node with --expose-gc' : bench.retainedHeapGrowthMiB.toFixed(1)} |`,
    `| the whole history held at once as transactions (heap), MiB | | ${bench.wholeHistoryHeapMiB.toFixed(1)} |`,
  ].join('\n');
}
