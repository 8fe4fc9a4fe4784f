import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedChain } from '../sim/simulated-chain.js';
import { startEsploraServer, type EsploraServer } from './server.js';

describe('the simulated chain served as Esplora', () => {
  let sim: SimulatedChain;
  let server: EsploraServer;
  let address: string;
  let funding: string;
  let spending: string;

  const get = async (path: string): Promise<Response> => fetch(`${server.url}${path}`);

  beforeAll(async () => {
    sim = new SimulatedChain({ seed: 'server' });
    address = sim.newAddress();
    funding = sim.fund(address, 70_000n);
    spending = sim.spend(address, sim.newAddress('p2tr'), 20_000n, { mempool: true });
    server = await startEsploraServer(sim);
  });

  afterAll(() => server.close());

  it('listens on 127.0.0.1 on a port of its own', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.port).toBeGreaterThan(0);
  });

  it('serves the tip as text', async () => {
    expect(await (await get('/blocks/tip/height')).text()).toBe(String(sim.height));
    expect(await (await get('/blocks/tip/hash')).text()).toBe(sim.block(sim.height)?.hash);
  });

  it('serves raw transactions and blocks that decode to the advertised ids', async () => {
    const txHex = await (await get(`/tx/${funding}/hex`)).text();
    expect(Transaction.fromRaw(hex.decode(txHex), { allowUnknownOutputs: true }).id).toBe(funding);
    const block = sim.block(sim.height) as NonNullable<ReturnType<typeof sim.block>>;
    const raw = new Uint8Array(await (await get(`/block/${block.hash}/raw`)).arrayBuffer());
    expect(hex.encode(raw.subarray(0, 80))).toBe(await (await get(`/block/${block.hash}/header`)).text());
    expect(raw.length).toBe(block.size);
    expect(await (await get(`/block/${block.hash}/txids`)).json()).toEqual(block.txids);
  });

  it('reports which transaction spends an output', async () => {
    const outspends = (await (await get(`/tx/${funding}/outspends`)).json()) as Array<{ spent: boolean; txid?: string }>;
    const toAddress = sim.transaction(funding)?.outputs.findIndex((o) => o.address === address) as number;
    expect(outspends[toAddress]).toMatchObject({ spent: true, txid: spending });
  });

  it('lists mempool transactions before the first chain page on /address/:a/txs', async () => {
    const list = (await (await get(`/address/${address}/txs`)).json()) as Array<{ txid: string; status: { confirmed: boolean } }>;
    expect(list.map((t) => t.txid)).toEqual([spending, funding]);
    expect(list[0]?.status.confirmed).toBe(false);
  });

  it('answers 404 for unknown objects and 400 for invalid addresses, like Esplora', async () => {
    expect((await get(`/tx/${'ab'.repeat(32)}`)).status).toBe(404);
    expect((await get(`/block-height/${sim.height + 1}`)).status).toBe(404);
    expect((await get('/address/not-an-address')).status).toBe(400);
    expect((await get('/address/tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx')).status).toBe(400);
    expect((await get(`/address/${address}/txs/chain/${'cd'.repeat(32)}`)).status).toBe(400);
    expect((await get('/nothing/here')).status).toBe(404);
  });

  it('injects faults for matching paths only, as many times as asked', async () => {
    server.injectFault({ status: 503, retryAfter: '1', match: '/blocks/tip', times: 1 });
    const faulty = await get('/blocks/tip/hash');
    expect(faulty.status).toBe(503);
    expect(faulty.headers.get('retry-after')).toBe('1');
    expect((await get('/blocks/tip/hash')).status).toBe(200);
    expect(server.requestCount('/blocks/tip/hash')).toBeGreaterThanOrEqual(2);
  });
});
