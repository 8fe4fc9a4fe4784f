import { describe, expect, it } from 'vitest';
import { judgeAttempt } from './deliver.js';
import { MAX_DELIVERY_ATTEMPTS, MAX_RETRY_AFTER_SECONDS, parseRetryAfter, retryDelayMs } from './retry-schedule.js';

describe('retryDelayMs', () => {
  it('follows the Standard Webhooks schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, then no more', () => {
    const middle = () => 0.5;
    expect(Array.from({ length: 9 }, (_, i) => retryDelayMs(i + 1, middle)! / 1000)).toEqual([
      5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400,
    ]);
    expect(retryDelayMs(MAX_DELIVERY_ATTEMPTS, middle)).toBeUndefined();
    expect(MAX_DELIVERY_ATTEMPTS).toBe(10);
  });

  it('adds up to ±10 % jitter', () => {
    expect(retryDelayMs(1, () => 0)).toBe(4500);
    expect(retryDelayMs(1, () => 0.999999)).toBe(5500);
    expect(retryDelayMs(9, () => 0)).toBe(77_760_000);
  });
});

describe("a receiver's Retry-After", () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('is honoured as sent (platform/http/retry-after.ts reads it) up to a day', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('99999999', now)).toBe(MAX_RETRY_AFTER_SECONDS * 1000);
  });
});

describe('judgeAttempt', () => {
  const middle = () => 0.5;
  const response = (status: number | null, extra: { retryAfterMs?: number } = {}) => ({ status, durationMs: 5, ...extra });

  it('counts every 2xx as success', () => {
    for (const status of [200, 201, 202, 204, 299]) expect(judgeAttempt(response(status), 1, middle)).toEqual({ kind: 'succeeded' });
  });

  it('treats 410 as the receiver asking us to stop', () => {
    expect(judgeAttempt(response(410), 1, middle)).toEqual({ kind: 'gone' });
  });

  it('retries other statuses and network failures on the schedule, and gives up after the last attempt', () => {
    for (const status of [null, 301, 400, 404, 500, 503])
      expect(judgeAttempt(response(status), 2, middle)).toEqual({ kind: 'retry', delayMs: 300_000 });
    expect(judgeAttempt(response(500), MAX_DELIVERY_ATTEMPTS, middle)).toEqual({ kind: 'given_up' });
  });

  it('waits for Retry-After when it is longer than the schedule, never shorter', () => {
    expect(judgeAttempt(response(429, { retryAfterMs: 120_000 }), 1, middle)).toEqual({ kind: 'retry', delayMs: 120_000 });
    expect(judgeAttempt(response(503, { retryAfterMs: 1_000 }), 1, middle)).toEqual({ kind: 'retry', delayMs: 5_000 });
  });
});
