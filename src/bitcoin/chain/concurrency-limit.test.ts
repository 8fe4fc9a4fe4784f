import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from './concurrency-limit.js';

describe('ConcurrencyLimit', () => {
  it('runs at most `limit` tasks at once, in arrival order, and survives failures', async () => {
    const limit = new ConcurrencyLimit(3);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (i: number) => async () => {
      started.push(i);
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      if (i % 4 === 0) throw new Error(`task ${i}`);
      return i;
    };
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => limit.run(task(i))));
    expect(peak).toBe(3);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(results.filter((r) => r.status === 'rejected').length).toBe(3);
    expect(await limit.run(async () => 'still usable')).toBe('still usable');
  });
});
