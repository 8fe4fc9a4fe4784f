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

/**
 * The start of an HTTP-date in any of RFC 9110's three forms (IMF-fixdate `Sun, 06 Nov 1994 …`,
 * RFC 850 `Sunday, 06-Nov-94 …`, asctime `Sun Nov  6 …`), which recipients must all accept; all
 * begin with the day's name. Date.parse alone is too lenient: it reads `-5` as a date in 2001.
 */
const HTTP_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /;

/**
 * Parses a Retry-After header (delta-seconds or an HTTP-date) into milliseconds from `now`;
 * undefined when absent or malformed. Past dates give 0.
 */
export function parseRetryAfter(header: string | null | undefined, now: number): number | undefined {
  if (header == null) return undefined;
  const value = header.trim();
  if (/^[0-9]+$/.test(value)) return Number(value) * 1000;
  if (!HTTP_DATE.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
