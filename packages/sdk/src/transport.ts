import { OwnproofApiError, OwnproofConnectionError, type ApiErrorBody } from './errors.js';
import { sleep } from './sleep.js';

export interface TransportOptions {
  /** A secret API key (`sk_test_…` or `sk_live_…`); its mode decides which data you reach. */
  apiKey: string;
  /** Where your ownproof server answers, e.g. `https://ownproof.example.com` (no `/v1`). */
  baseUrl: string;
  /** Retries after a 429, a 5xx, a timeout or a network failure (default 2; 0 turns retrying off). */
  maxRetries?: number;
  /** Per attempt, in milliseconds (default 60 000). */
  timeoutMs?: number;
  /** The longest `Retry-After` the SDK waits for on its own, in seconds (default 60); longer ones are thrown to you. */
  maxRetryAfterSeconds?: number;
  /** A `fetch` of your own (a proxy agent, a test double); default: the runtime's. */
  fetch?: typeof fetch;
}

/** Per-call settings, the last argument of every method. */
export interface RequestOptions {
  /** For a POST: the `Idempotency-Key` to send. Default: a new random key per call, kept across its retries. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  maxRetries?: number;
  timeoutMs?: number;
}

export interface ApiRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  body?: unknown;
  /** The raw body instead of JSON (a PDF), with its content type. */
  raw?: { bytes: Uint8Array; contentType: string } | undefined;
  accept?: string;
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/** The HTTP layer every resource goes through: authentication, idempotency keys, retries, errors. */
export class Transport {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly fetch: typeof fetch;

  constructor(options: TransportOptions) {
    if (!options.apiKey) throw new TypeError('ownproof: apiKey is required');
    if (!options.baseUrl) throw new TypeError('ownproof: baseUrl is required (your ownproof server, e.g. http://127.0.0.1:8080)');
    this.apiKey = options.apiKey;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.maxRetries = options.maxRetries ?? 2;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxRetryAfterMs = (options.maxRetryAfterSeconds ?? 60) * 1000;
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** A JSON request; resolves to the parsed body of a 2xx answer. */
  async json<T>(request: ApiRequest, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(request, options);
    return (await response.json()) as T;
  }

  /** A request whose answer is bytes (a PDF). */
  async bytes(request: ApiRequest, options: RequestOptions = {}): Promise<Uint8Array> {
    const response = await this.send(request, options);
    return new Uint8Array(await response.arrayBuffer());
  }

  /**
   * Sends with retries. A POST carries one Idempotency-Key for all its attempts, so a retry after
   * a lost answer never does the work twice. Retried: 429 (after `Retry-After`), 500/502/503/504,
   * 409 `idempotency_request_in_progress`, timeouts and network failures; never an abort of yours.
   */
  async send(request: ApiRequest, options: RequestOptions = {}): Promise<Response> {
    const url = new URL(`${this.baseUrl}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, accept: request.accept ?? 'application/json' };
    let body: RequestInit['body'];
    if (request.raw) {
      headers['content-type'] = request.raw.contentType;
      body = request.raw.bytes as RequestInit['body'];
    } else if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.body);
    }
    if (request.method === 'POST') headers['idempotency-key'] = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;

    for (let attempt = 0; ; attempt++) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      let response: Response;
      try {
        response = await this.fetch(url, { method: request.method, headers, body: body ?? null, signal });
      } catch (error) {
        if (options.signal?.aborted) throw error;
        if (attempt < maxRetries) {
          await sleep(backoff(attempt), options.signal);
          continue;
        }
        const what = timeout.aborted ? `timed out after ${timeoutMs} ms` : 'failed';
        throw new OwnproofConnectionError(`${request.method} ${request.path} ${what} (${attempt + 1} attempt${attempt === 0 ? '' : 's'})`, {
          cause: error,
        });
      }
      if (response.ok) return response;
      const failure = await apiError(response);
      const retryable = RETRYABLE_STATUS.has(response.status) || failure.code === 'idempotency_request_in_progress';
      if (!retryable || attempt >= maxRetries) throw failure;
      const wait = failure.retryAfter === undefined ? backoff(attempt) : failure.retryAfter * 1000;
      if (wait > this.maxRetryAfterMs) throw failure;
      await response.body?.cancel().catch(() => undefined);
      await sleep(wait, options.signal);
    }
  }
}

/** Exponential, with jitter so that many clients throttled together do not come back together. */
function backoff(attempt: number): number {
  const ceiling = Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS * 2 ** attempt);
  return ceiling * (0.5 + Math.random() / 2);
}

/** `Retry-After` in seconds: a number of seconds or an HTTP date. */
function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

async function apiError(response: Response): Promise<OwnproofApiError> {
  const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
  const requestId = response.headers.get('request-id') ?? '';
  let parsed: unknown;
  try {
    parsed = await response.json();
  } catch {
    parsed = undefined;
  }
  const error = (parsed as { error?: ApiErrorBody } | undefined)?.error;
  if (error && typeof error.code === 'string' && typeof error.message === 'string')
    return new OwnproofApiError(response.status, error, retryAfter);
  // Not our error shape (a proxy in front of the server answered): keep the status, say so.
  const body = {
    type: 'api_error',
    code: 'api_error',
    message: `HTTP ${response.status} without an ownproof error body`,
    request_id: requestId,
  } as ApiErrorBody;
  return new OwnproofApiError(response.status, body, retryAfter);
}
