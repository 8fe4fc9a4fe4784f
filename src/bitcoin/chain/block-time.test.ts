import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findHeightAtTime, heightAtTimeFromEffectiveTimes, medianTime } from './block-time.js';

/** Timestamps obeying Bitcoin's rule: each above the median of the previous 11. */
const chainTimes = fc.array(fc.integer({ min: -3_000, max: 4_000 }), { minLength: 1, maxLength: 120 }).map((steps) => {
  const times = [1_000_000];
  for (const step of steps) {
    const median = medianTime(times.slice(-11));
    times.push(Math.max(median + 1, (times[times.length - 1] as number) + step));
  }
  return times;
});

function runningMax(times: number[]): number[] {
  let max = -Infinity;
  return times.map((t) => (max = Math.max(max, t)));
}

describe('the balance-at-time cutoff', () => {
  it('is the last block whose running-maximum timestamp is at most t', () => {
    const times = [100, 200, 150, 300];
    const effective = runningMax(times);
    expect([99, 100, 160, 199, 200, 299, 300, 10_000].map((t) => heightAtTimeFromEffectiveTimes(effective, t))).toEqual([
      -1, 0, 0, 0, 2, 2, 3, 3,
    ]);
  });

  it('never counts a block before an earlier one (the cutoff is monotonic in t)', () => {
    fc.assert(
      fc.property(chainTimes, fc.integer({ min: 990_000, max: 1_300_000 }), fc.nat(5_000), (times, t, dt) => {
        const effective = runningMax(times);
        expect(heightAtTimeFromEffectiveTimes(effective, t)).toBeLessThanOrEqual(heightAtTimeFromEffectiveTimes(effective, t + dt));
      }),
    );
  });

  it('gives the same answer block by block (the remote search) as over the whole list', async () => {
    await fc.assert(
      fc.asyncProperty(chainTimes, fc.integer({ min: 990_000, max: 1_300_000 }), async (times, t) => {
        const reader = {
          tipHeight: times.length - 1,
          blockTimes: async (h: number) => ({ time: times[h] as number, medianTime: medianTime(times.slice(Math.max(0, h - 10), h + 1)) }),
        };
        expect(await findHeightAtTime(reader, t)).toBe(heightAtTimeFromEffectiveTimes(runningMax(times), t));
      }),
      { numRuns: 200 },
    );
  });

  it('takes the median of the block and the ten before it', () => {
    expect(medianTime([5, 1, 4, 2, 3])).toBe(3);
    expect(medianTime([7])).toBe(7);
  });
});
