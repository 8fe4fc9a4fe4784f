import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MIN_CONFIRMATIONS } from './chain-source.js';
import { SimulatedChain } from './sim/simulated-chain.js';

describe('balance at a time or height', () => {
  let sim: SimulatedChain;
  let alice: string;
  let bob: string;
  let t0: number;
  const heights = { first: 0, backwards: 0, spend: 0, recent: 0 };

  beforeAll(() => {
    sim = new SimulatedChain({ seed: 'balance' });
    t0 = sim.startTime;
    alice = sim.newAddress();
    bob = sim.newAddress('p2tr');
    sim.fund(alice, 100_000n, { time: t0 + 1_000 });
    heights.first = sim.height;
    // The next block's timestamp goes backwards (allowed: it is above the median time past).
    sim.fund(alice, 50_000n, { time: t0 + 400 });
    heights.backwards = sim.height;
    sim.spend(alice, bob, 30_000n, { time: t0 + 2_000 });
    heights.spend = sim.height;
    sim.mine({ time: t0 + 3_000, count: 10 });
    sim.fund(alice, 7_000n, { time: t0 + 20_000 });
    heights.recent = sim.height;
    sim.fund(alice, 1_000n, { mempool: true });
  });

  async function aliceAt(at: { time: number } | { height: number }, minConfirmations?: number) {
    const balance = await sim.getBalance([alice], at, minConfirmations === undefined ? {} : { minConfirmations });
    return balance;
  }

  it('counts blocks up to the last one whose timestamp is at most t', async () => {
    expect((await aliceAt({ time: t0 + 999 })).confirmed).toBe(0n);
    expect((await aliceAt({ time: t0 + 1_999 })).cutoffHeight).toBe(heights.spend - 1);
    expect((await aliceAt({ time: t0 + 2_000 })).cutoffHeight).toBe(heights.spend);
  });

  it('places a block with a backwards timestamp at the running maximum, never before its predecessor', async () => {
    const beforeFirst = await aliceAt({ time: t0 + 500 });
    expect(beforeFirst.cutoffHeight).toBe(heights.first - 1);
    expect(beforeFirst.confirmed).toBe(0n);
    const atFirst = await aliceAt({ time: t0 + 1_000 });
    expect(atFirst.cutoffHeight).toBe(heights.backwards);
    expect(atFirst.confirmed).toBe(150_000n);
  });

  it('subtracts spends, fee included, and keeps them apart per address', async () => {
    const balance = await sim.getBalance([alice, bob, alice], { time: t0 + 2_000 });
    const spend = await sim.getTransaction(sim.block(heights.spend)?.txids[1] as string);
    expect(balance.byAddress.get(bob)?.confirmed).toBe(30_000n);
    expect(balance.byAddress.get(alice)?.confirmed).toBe(150_000n - 30_000n - (spend?.fee ?? 0n));
    expect(balance.confirmed).toBe(150_000n - (spend?.fee ?? 0n));
    expect(balance.byAddress.size).toBe(2);
  });

  it(`needs ${DEFAULT_MIN_CONFIRMATIONS} confirmations by default and reports the rest as pending`, async () => {
    const now = await aliceAt({ time: t0 + 1_000_000 });
    expect(now.minConfirmations).toBe(DEFAULT_MIN_CONFIRMATIONS);
    expect(now.cutoffHeight).toBe(sim.height);
    expect(now.pending).toBe(7_000n);
    expect(now.final).toBe(false);
    const oneConfirmation = await aliceAt({ time: t0 + 1_000_000 }, 1);
    expect(oneConfirmation.pending).toBe(0n);
    expect(oneConfirmation.confirmed).toBe(now.confirmed + 7_000n);
    expect(oneConfirmation.final).toBe(true);
  });

  it('never counts unconfirmed transactions', async () => {
    const all = await aliceAt({ time: 4_000_000_000 }, 1);
    const history = (await sim.getAddressHistory([alice])).get(alice) ?? [];
    expect(history[0]?.status.confirmed).toBe(false);
    expect(all.confirmed + all.pending).toBe((await aliceAt({ height: sim.height }, 1)).confirmed);
  });

  it('cuts at a height, clamped to the tip', async () => {
    expect((await aliceAt({ height: heights.first }, 1)).confirmed).toBe(100_000n);
    expect((await aliceAt({ height: heights.first - 1 }, 1)).confirmed).toBe(0n);
    expect((await aliceAt({ height: 10_000_000 }, 1)).cutoffHeight).toBe(sim.height);
    expect((await aliceAt({ height: -5 })).cutoffHeight).toBe(-1);
  });

  it('is final once the cutoff block is deep enough', async () => {
    const settled = await aliceAt({ time: t0 + 2_000 });
    expect(settled.final).toBe(true);
    expect(settled.pending).toBe(0n);
  });

  it('rejects a minimum of confirmations below one and addresses of another network', async () => {
    await expect(aliceAt({ time: t0 }, 0)).rejects.toThrow(RangeError);
    await expect(sim.getBalance(['tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'], { time: t0 })).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });
});
