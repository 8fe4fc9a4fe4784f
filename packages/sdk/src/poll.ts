import { OwnproofApiError, OwnproofConnectionError } from './errors.js';
import { sleep } from './sleep.js';

/** How a poll waits: between request starts, and in all. */
export interface PollOptions {
  /** Milliseconds from one answer to the next request (default 1 000; never under 500, so at most 2 requests per second). */
  intervalMs?: number;
  /** Give up after this many milliseconds (default 15 minutes). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const MIN_INTERVAL_MS = 500;

/**
 * Reads with `read` until `done` says so. Each read is one request (no retries of its own): a 429,
 * a 5xx or a network failure only delays the next read (by `Retry-After` when given), so the poll
 * never exceeds two requests a second, whatever happens.
 */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, options: PollOptions = {}): Promise<T> {
  const interval = Math.max(MIN_INTERVAL_MS, options.intervalMs ?? 1_000);
  const deadline = performance.now() + (options.timeoutMs ?? 15 * 60_000);
  for (;;) {
    let wait = interval;
    try {
      const value = await read();
      if (done(value)) return value;
    } catch (error) {
      const transient =
        error instanceof OwnproofConnectionError || (error instanceof OwnproofApiError && (error.status === 429 || error.status >= 500));
      if (!transient) throw error;
      if (error instanceof OwnproofApiError && error.retryAfter !== undefined) wait = Math.max(wait, error.retryAfter * 1000);
    }
    // Counted from the answer, not from the request: however long a request takes, the next
    // leaves at least `wait` after this one did.
    if (performance.now() + wait > deadline)
      throw new OwnproofConnectionError(`gave up polling after ${options.timeoutMs ?? 15 * 60_000} ms`);
    await sleep(wait, options.signal);
  }
}
