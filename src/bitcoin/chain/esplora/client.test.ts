import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainSourceError } from '../chain-source.js';
import { SimulatedChain } from '../sim/simulated-chain.js';
import { EsploraChainSource, type EsploraClientOptions } from './client.js';
import type { EsploraAttempt } from './http.js';
import { startEsploraServer, type EsploraServer } from './server.js';

describe('Esplora client against the simulated chain over HTTP', () => {
  let sim: SimulatedChain;
  let server: EsploraServer;
  let busy: string;
  let quiet: string;
  let spender: string;
  let t0: number;

  const client = (opts: Partial<EsploraClientOptions> = {}): EsploraChainSource =>
    new EsploraChainSource({ baseUrl: server.url, network: 'regtest', ...opts });

  beforeAll(async () => {
    sim = new SimulatedChain({ seed: 'esplora' });
    t0 = sim.startTime;
    busy = sim.newAddress();
    quiet = sim.newAddress('p2sh-p2wpkh');
    spender = sim.newAddress('p2tr');
    sim.fund(spender, 200_000n, { time: t0 + 600 });
    sim.fund(busy, 10_000n, { time: t0 + 1_800 });
    sim.fund(busy, 20_000n, { time: t0 + 1_200 });
    sim.fundMany(busy, 60, 1_000n, { time: t0 + 2_400, perBlock: 20 });
    sim.spend(spender, quiet, 40_000n, { time: t0 + 9_000 });
    sim.spend(spender, busy, 5_000n, { mempool: true });
    server = await startEsploraServer(sim);
  });

  afterAll(async () => {
    await server.close();
  });

  it('reports the same tip, blocks and transactions as the chain itself', async () => {
    const c = client();
    expect(await c.getTip()).toEqual(await sim.getTip());
    for (const h of [0, 1, 150, sim.height]) expect(await c.getBlock(h)).toEqual(await sim.getBlock(h));
    expect(await c.getBlock(sim.height + 1)).toBeUndefined();
    const txid = sim.block(sim.height)?.txids[1] as string;
    expect(await c.getTransaction(txid)).toEqual(await sim.getTransaction(txid));
    expect(await c.getTransaction('00'.repeat(32))).toBeUndefined();
  });

  it('pages through a history longer than 25 transactions, newest first, mempool first', async () => {
    server.clearRequests();
    const history = (await client().getAddressHistory([busy])).get(busy) ?? [];
    expect(history.length).toBe(63);
    expect(history[0]?.status.confirmed).toBe(false);
    expect(isDeepStrictEqual(history, (await sim.getAddressHistory([busy])).get(busy))).toBe(true);
    expect(server.requestCount(`/address/${busy}/txs/chain`)).toBe(3);
    expect(server.requests.filter((p) => p.includes('/txs/chain/')).length).toBe(2);
    const heights = history.flatMap((t) => (t.status.confirmed ? [t.status.blockHeight] : []));
    expect(heights).toEqual([...heights].sort((a, b) => b - a));
  });

  it('answers batched queries for several addresses', async () => {
    const c = client();
    const addresses = [busy, quiet, spender];
    expect(await c.getAddressStats(addresses)).toEqual(await sim.getAddressStats(addresses));
    expect(await c.getUtxos(addresses)).toEqual(await sim.getUtxos(addresses));
    const history = await c.getAddressHistory(addresses, { includeMempool: false });
    expect([...history.keys()]).toEqual(addresses);
    expect(history.get(quiet)?.length).toBe(1);
  });

  it('computes the same balances and time cutoffs as the chain, backwards timestamps included', async () => {
    const c = client();
    for (const time of [t0 - 1, t0 + 600, t0 + 1_199, t0 + 1_200, t0 + 1_800, t0 + 5_000, t0 + 9_000, 4_000_000_000]) {
      expect(await c.getHeightAtTime(time)).toBe(await sim.getHeightAtTime(time));
      for (const minConfirmations of [1, 6]) {
        expect(await c.getBalance([busy, quiet, spender], { time }, { minConfirmations })).toEqual(
          await sim.getBalance([busy, quiet, spender], { time }, { minConfirmations }),
        );
      }
    }
  });

  it('streams an address with thousands of transactions page by page', async () => {
    const local = new SimulatedChain({ seed: 'stream' });
    const address = local.newAddress();
    const txids = local.fundMany(address, 3_000, 546n, { perBlock: 1_000 });
    const localServer = await startEsploraServer(local);
    try {
      const c = new EsploraChainSource({ baseUrl: localServer.url, network: 'regtest', cacheSize: { transactions: 100 } });
      let count = 0;
      let previousHeight = Infinity;
      const seen = new Set<string>();
      for await (const tx of c.streamAddressHistory(address)) {
        count++;
        seen.add(tx.txid);
        const height = tx.status.confirmed ? tx.status.blockHeight : Infinity;
        expect(height).toBeLessThanOrEqual(previousHeight);
        previousHeight = height;
      }
      expect(count).toBe(3_000);
      expect(txids.every((t) => seen.has(t))).toBe(true);
      expect(localServer.requestCount(`/address/${address}/txs/chain`)).toBe(121);
      const balance = await c.getBalance([address], { height: local.height }, { minConfirmations: 1 });
      expect(balance.confirmed).toBe(3_000n * 546n);
    } finally {
      await localServer.close();
    }
  });

  it('retries a 429 after the delay its Retry-After asks for', async () => {
    const delays: number[] = [];
    const attempts: EsploraAttempt[] = [];
    server.injectFault({ status: 429, retryAfter: '2', match: '/blocks/tip/hash', times: 2 });
    const c = client({ sleep: async (ms) => void delays.push(ms), onAttempt: (a) => attempts.push(a) });
    expect((await c.getTip()).height).toBe(sim.height);
    expect(delays).toEqual([2_000, 2_000]);
    expect(attempts.slice(0, 3).map((a) => a.status)).toEqual([429, 429, 200]);
  });

  it('retries 5xx answers with exponential backoff and jitter', async () => {
    const delays: number[] = [];
    server.injectFault({ status: 500, match: '/blocks/tip/hash', times: 2 });
    server.injectFault({ status: 503, match: '/blocks/tip/hash', times: 1 });
    const c = client({ sleep: async (ms) => void delays.push(ms), random: () => 0.5, backoff: { baseDelayMs: 100 } });
    expect((await c.getTip()).height).toBe(sim.height);
    expect(delays).toEqual([50, 100, 200]);
  });

  it('gives up after the last attempt with a typed error', async () => {
    server.injectFault({ status: 502, match: '/blocks/tip/hash', times: 3 });
    const c = client({ sleep: async () => undefined, maxAttempts: 3 });
    await expect(c.getTip()).rejects.toMatchObject({
      name: 'ChainSourceError',
      code: 'http_status',
      details: { status: 502, attempts: 3 },
    });
  });

  it('does not wait for a Retry-After longer than it is willing to', async () => {
    server.injectFault({ status: 429, retryAfter: '3600', match: '/blocks/tip/hash' });
    const c = client({ sleep: async () => undefined });
    await expect(c.getTip()).rejects.toMatchObject({ code: 'http_status', details: { status: 429, attempts: 1 } });
  });

  it('retries an attempt that times out', async () => {
    server.injectFault({ delayMs: 3_000, match: '/blocks/tip/hash' });
    const errors: string[] = [];
    const c = client({ timeoutMs: 300, sleep: async () => undefined, onAttempt: (a) => a.error && errors.push(a.error) });
    expect((await c.getTip()).height).toBe(sim.height);
    expect(errors[0]).toMatch(/within 300 ms/);
  });

  it('reports a network failure once attempts run out', async () => {
    const c = new EsploraChainSource({ baseUrl: 'http://127.0.0.1:1', network: 'regtest', maxAttempts: 2, sleep: async () => undefined });
    await expect(c.getTip()).rejects.toMatchObject({ code: 'network', details: { attempts: 2 } });
  });

  it('does not retry a request the server rejects as invalid', async () => {
    server.clearRequests();
    const c = client({ sleep: async () => undefined });
    const other = 'bcrt1q' + 'q'.repeat(38);
    await expect(c.getAddressStats([other])).rejects.toMatchObject({ code: 'invalid_request', details: { status: 400, attempts: 1 } });
    expect(server.requestCount('/address/')).toBe(1);
    await expect(c.getAddressStats(['../../blocks'])).rejects.toBeInstanceOf(ChainSourceError);
    expect(server.requestCount('/address/')).toBe(1);
  });

  it('fetches a confirmed transaction once, then serves it from cache', async () => {
    const c = client();
    const txid = sim.block(sim.height)?.txids[1] as string;
    server.clearRequests();
    await c.getTransaction(txid);
    await c.getTransaction(txid);
    expect(server.requestCount(`/tx/${txid}`)).toBe(1);
    await c.getAddressHistory([quiet]);
    const fromHistory = (await sim.getAddressHistory([quiet])).get(quiet)?.[0]?.txid as string;
    server.clearRequests();
    await c.getTransaction(fromHistory);
    expect(server.requestCount('/tx/')).toBe(0);
  });

  it('does not cache unconfirmed transactions, whose status will change', async () => {
    const c = client();
    const pending = sim.mempoolTxids[0] as string;
    server.clearRequests();
    await c.getTransaction(pending);
    await c.getTransaction(pending);
    expect(server.requestCount(`/tx/${pending}`)).toBe(2);
  });

  it('caches blocks deeper than the reorg safety depth, so a repeated time lookup only asks about the tip', async () => {
    const c = client();
    await c.getHeightAtTime(t0 + 1_000);
    const first = server.requests.length;
    server.clearRequests();
    await c.getHeightAtTime(t0 + 1_000);
    const pages = server.requests.flatMap((p) => (/^\/blocks\/[0-9]+$/.test(p) ? [Number(p.split('/')[2])] : []));
    expect(pages.every((h) => h > sim.height - 6)).toBe(true);
    expect(server.requests.length).toBeLessThan(first);
  });

  it('keeps no more requests in flight than its concurrency limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const countingFetch: typeof fetch = async (input, init) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      try {
        return await fetch(input, init);
      } finally {
        inFlight--;
      }
    };
    const c = client({ concurrency: 2, fetch: countingFetch });
    const addresses = Array.from({ length: 12 }, () => sim.newAddress());
    await c.getAddressStats(addresses);
    expect(peak).toBe(2);
  });

  it('rejects a malformed answer instead of trusting it', async () => {
    const liar: typeof fetch = async () => new Response(JSON.stringify([{ txid: 'nope' }]), { status: 200 });
    const c = new EsploraChainSource({ baseUrl: 'http://127.0.0.1:9', network: 'regtest', fetch: liar });
    await expect(c.getAddressHistory([busy])).rejects.toMatchObject({ code: 'bad_response' });
    const huge: typeof fetch = async () => new Response('7'.repeat(2_000), { status: 200 });
    const small = new EsploraChainSource({ baseUrl: 'http://127.0.0.1:9', network: 'regtest', fetch: huge, maxResponseBytes: 1_000 });
    await expect(small.getTip()).rejects.toMatchObject({ code: 'bad_response' });
  });
});
