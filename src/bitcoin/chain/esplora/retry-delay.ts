/** Backoff policy for the Esplora client. */

/** Delays of the exponential backoff, in milliseconds. */
export interface BackoffPolicy {
  /** First delay before jitter. */
  baseDelayMs: number;
  /** Upper bound of any computed delay. */
  maxDelayMs: number;
  /** Upper bound honoured for a server's Retry-After; longer requests give up instead. */
  maxRetryAfterMs: number;
}

/**
 * Full-jitter exponential backoff: a uniform delay in [0, min(max, base·2^(attempt-1))], so
 * clients that failed together do not retry together. `attempt` counts from 1.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}
