import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter } from './retry-delay.js';

describe('retry delays', () => {
  const policy = { baseDelayMs: 250, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

  it('doubles the ceiling each attempt up to the maximum, with full jitter', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((a) => backoffDelay(a, policy, () => 0.999999))).toEqual([249, 499, 999, 1_999, 3_999, 7_999, 7_999]);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2024-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7_000);
    expect(parseRetryAfter('Mon, 01 Jan 2024 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 31 Dec 2023 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
