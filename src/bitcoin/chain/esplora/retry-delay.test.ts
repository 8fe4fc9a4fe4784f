import { describe, expect, it } from 'vitest';
import { backoffDelay } from './retry-delay.js';

describe('retry delays', () => {
  const policy = { baseDelayMs: 250, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

  it('doubles the ceiling each attempt up to the maximum, with full jitter', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((a) => backoffDelay(a, policy, () => 0.999999))).toEqual([249, 499, 999, 1_999, 3_999, 7_999, 7_999]);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
  });
});
