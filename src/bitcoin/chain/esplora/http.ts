/**
 * The HTTP layer of the Esplora client: per-attempt timeouts, a concurrency limit, retries with
 * full-jitter exponential backoff on 429/5xx/network errors (honouring Retry-After), a response
 * size limit, no redirects, and a hook that sees every attempt.
 */
import { ChainSourceError } from '../chain-source.js';
import { ConcurrencyLimit } from '../concurrency-limit.js';
import { parseRetryAfter } from '../../../platform/http/retry-after.js';
import { backoffDelay, type BackoffPolicy } from './retry-delay.js';

/** What the hook learns about each HTTP attempt. */
export interface EsploraAttempt {
  url: string;
  attempt: number;
  status?: number;
  error?: string;
  durationMs: number;
  /** Delay before the next attempt, when there is one. */
  retryInMs?: number;
}

/** Transport settings; every field has a default. */
export interface EsploraHttpOptions {
  /** Per-attempt timeout. Default 10 s. */
  timeoutMs?: number;
  /** Attempts per request, first one included. Default 5. */
  maxAttempts?: number;
  backoff?: Partial<BackoffPolicy>;
  /** Requests in flight at once. Default 4. */
  concurrency?: number;
  /** Largest response body accepted. Default 16 MiB. */
  maxResponseBytes?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
  onAttempt?: (attempt: EsploraAttempt) => void;
}

const DEFAULT_BACKOFF: BackoffPolicy = { baseDelayMs: 250, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

type Outcome = { kind: 'response'; status: number; body: string; retryAfter: string | null } | { kind: 'error'; error: unknown };

async function readBody(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    throw new ChainSourceError('bad_response', `response of ${declared} bytes exceeds the ${limit}-byte limit`);
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.length;
    if (total > limit) throw new ChainSourceError('bad_response', `response exceeds the ${limit}-byte limit`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** GET requests against one Esplora base URL. */
export class EsploraHttp {
  private readonly limit: ConcurrencyLimit;
  private readonly backoff: BackoffPolicy;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly maxResponseBytes: number;
  private readonly fetchFn: typeof fetch;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly onAttempt: ((attempt: EsploraAttempt) => void) | undefined;
  readonly baseUrl: string;

  constructor(baseUrl: string, opts: EsploraHttpOptions = {}) {
    let parsed: URL;
    try {
      parsed = new URL(baseUrl);
    } catch {
      throw new TypeError(`Esplora base URL is not a URL: ${baseUrl}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`Esplora base URL must be http(s): ${baseUrl}`);
    this.baseUrl = parsed.toString().replace(/\/+$/, '');
    this.limit = new ConcurrencyLimit(opts.concurrency ?? 4);
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.maxAttempts = Math.max(1, opts.maxAttempts ?? 5);
    this.maxResponseBytes = opts.maxResponseBytes ?? 16 * 1024 * 1024;
    this.fetchFn = opts.fetch ?? globalThis.fetch;
    this.sleep = opts.sleep ?? abortableSleep;
    this.random = opts.random ?? Math.random;
    this.now = opts.now ?? Date.now;
    this.onAttempt = opts.onAttempt;
  }

  private async attempt(url: string, signal: AbortSignal | undefined): Promise<Outcome> {
    return this.limit.run(async () => {
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      try {
        const response = await this.fetchFn(url, {
          signal: combined,
          redirect: 'error',
          headers: { accept: 'application/json, text/plain' },
        });
        const body = await readBody(response, this.maxResponseBytes);
        return { kind: 'response', status: response.status, body, retryAfter: response.headers.get('retry-after') };
      } catch (error) {
        return { kind: 'error', error };
      }
    });
  }

  /**
   * GETs `path` (which starts with "/") and returns the body; with `allowNotFound`, a 404 returns
   * undefined. Rejects with ChainSourceError once attempts are exhausted or on a non-retryable
   * status.
   */
  async get(path: string, opts: { signal?: AbortSignal; allowNotFound?: boolean } = {}): Promise<string | undefined> {
    const url = `${this.baseUrl}${path}`;
    for (let attempt = 1; ; attempt++) {
      const started = this.now();
      const outcome = await this.attempt(url, opts.signal);
      const durationMs = this.now() - started;
      let failure: ChainSourceError;
      let retryAfterMs: number | undefined;
      if (outcome.kind === 'error') {
        const error = outcome.error;
        if (error instanceof ChainSourceError) {
          failure = error;
        } else if (opts.signal?.aborted) {
          this.onAttempt?.({ url, attempt, error: 'aborted', durationMs });
          throw new ChainSourceError('aborted', `request to ${url} was aborted`, { url, attempts: attempt, cause: error });
        } else if ((error as Error)?.name === 'TimeoutError') {
          failure = new ChainSourceError('timeout', `no response from ${url} within ${this.timeoutMs} ms`, { url, attempts: attempt });
        } else {
          failure = new ChainSourceError('network', `could not reach ${url}: ${(error as Error)?.message ?? String(error)}`, {
            url,
            attempts: attempt,
            cause: error,
          });
        }
        if (failure.code === 'bad_response') {
          this.onAttempt?.({ url, attempt, error: failure.message, durationMs });
          throw failure;
        }
      } else {
        const { status } = outcome;
        if (status >= 200 && status < 300) {
          this.onAttempt?.({ url, attempt, status, durationMs });
          return outcome.body;
        }
        if (status === 404 && opts.allowNotFound) {
          this.onAttempt?.({ url, attempt, status, durationMs });
          return undefined;
        }
        const snippet = outcome.body.slice(0, 200);
        if (!isRetryableStatus(status)) {
          this.onAttempt?.({ url, attempt, status, durationMs });
          throw new ChainSourceError(status === 400 ? 'invalid_request' : 'http_status', `${url} answered ${status}: ${snippet}`, {
            url,
            status,
            attempts: attempt,
          });
        }
        failure = new ChainSourceError('http_status', `${url} answered ${status}: ${snippet}`, { url, status, attempts: attempt });
        retryAfterMs = parseRetryAfter(outcome.retryAfter, this.now());
      }
      const tooLong = retryAfterMs !== undefined && retryAfterMs > this.backoff.maxRetryAfterMs;
      if (attempt >= this.maxAttempts || tooLong) {
        this.onAttempt?.({
          url,
          attempt,
          error: failure.message,
          durationMs,
          ...(failure.details.status ? { status: failure.details.status } : {}),
        });
        throw failure;
      }
      const delay = retryAfterMs ?? backoffDelay(attempt, this.backoff, this.random);
      this.onAttempt?.({
        url,
        attempt,
        error: failure.message,
        durationMs,
        retryInMs: delay,
        ...(failure.details.status ? { status: failure.details.status } : {}),
      });
      try {
        await this.sleep(delay, opts.signal);
      } catch (cause) {
        throw new ChainSourceError('aborted', `request to ${url} was aborted`, { url, attempts: attempt, cause });
      }
    }
  }
}
