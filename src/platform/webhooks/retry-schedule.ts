import { parseRetryAfter as parseRetryAfterHeader } from '../http/retry-after.js';

/**
 * When failed deliveries are tried again: the Standard Webhooks recommendation. Attempt 1 goes out
 * at once; after attempt n fails, attempt n+1 follows after RETRY_DELAYS_SECONDS[n - 1] (±10 %
 * jitter, so receivers that fail together are not hit together again). Ten attempts over about
 * 3 days 3.5 hours, then the delivery is given up.
 */
const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 14 * 3600, 20 * 3600, 24 * 3600] as const;
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
const JITTER = 0.1;

/** An endpoint whose attempts have all failed for this long (no success in between) is disabled. */
export const DISABLE_AFTER_FAILING_SECONDS = 5 * 24 * 3600;

/** A receiver's Retry-After is honoured up to this long; beyond, the schedule's own limit applies. */
export const MAX_RETRY_AFTER_SECONDS = 24 * 3600;

/** Milliseconds to wait after attempt `attempt` failed, or undefined when it was the last. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number | undefined {
  const base = RETRY_DELAYS_SECONDS[attempt - 1];
  if (base === undefined) return undefined;
  return Math.round(base * 1000 * (1 - JITTER + 2 * JITTER * random()));
}

/** A receiver's Retry-After in milliseconds from now, capped at MAX_RETRY_AFTER_SECONDS. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  const ms = parseRetryAfterHeader(value, nowMs);
  return ms === undefined ? undefined : Math.min(ms, MAX_RETRY_AFTER_SECONDS * 1000);
}

/**
 * Thrown by a delivery job whose attempt failed and that will be tried again: the job queue
 * schedules the next run after `delayMs` instead of its generic backoff.
 */
export class RetryDelivery extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
    this.name = 'RetryDelivery';
  }
}
