import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { redactSecrets } from '../http/logging.js';
import type { Mode } from '../scope.js';
import type { WebhookNetwork } from './network.js';
import { parseRetryAfter } from './retry-schedule.js';
import { tlsFailure } from './tls-failure.js';
import { checkAddresses, checkIpLiteral, checkUrlShape, UrlRefused, type TargetRules } from './url-policy.js';

export interface WebhookRequest {
  url: string;
  /** The endpoint's mode and what its addresses may be (`targetRules`). */
  rules: TargetRules;
  headers: Record<string, string>;
  body: string;
  /** Aborts the request (job timeout, lost lease, shutdown). */
  signal?: AbortSignal;
}

export interface WebhookResponse {
  /** The receiver's HTTP status; null when no response came (refused, unreachable, timed out). */
  status: number | null;
  durationMs: number;
  /** From Retry-After on a 429 or 503. */
  retryAfterMs?: number;
  /** Why the attempt failed, in plain words that integrators see; undefined on a 2xx. */
  error?: string;
  /**
   * For the log only: the network or TLS error behind `error` in Node's and OpenSSL's words,
   * secrets redacted. Never stored or shown: it carries library internals.
   */
  detail?: string;
}

/** Response bodies are read and dropped (so the connection can be reused) up to this size. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/*
 * Keep-alive agents, one pair per mode: a connection opened for a test-mode endpoint (which may
 * go to loopback) must never be reused for a live-mode one to the same host name. The socket
 * timeout lets Node honour the receiver's `Keep-Alive: timeout=` hint and close idle connections
 * just before the receiver does, instead of reusing one it is closing.
 */
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 256, maxFreeSockets: 256, timeout: 30_000, scheduling: 'lifo' as const };
const AGENTS: Record<Mode, { 'http:': http.Agent; 'https:': https.Agent }> = {
  test: { 'http:': new http.Agent(AGENT_OPTIONS), 'https:': new https.Agent(AGENT_OPTIONS) },
  live: { 'http:': new http.Agent(AGENT_OPTIONS), 'https:': new https.Agent(AGENT_OPTIONS) },
};

/**
 * POSTs one webhook. Never follows redirects, gives up after `network.timeoutMs`, and connects only
 * to an address it has just checked: the host name is resolved once, every address must pass the
 * mode's rules, and the connection goes to that address (with the original Host header and TLS
 * server name). So a name that resolved to a public address when the endpoint was created and to a
 * private one now (DNS rebinding) is refused.
 */
export async function sendWebhook(network: WebhookNetwork, request: WebhookRequest): Promise<WebhookResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = checkUrlShape(request.url, request.rules.mode);
    // Node connects to an IP literal without calling `lookup`, so literals are checked here.
    checkIpLiteral(url, request.rules);
  } catch (error) {
    return { status: null, durationMs: elapsed(), ...describeError(error, network) };
  }
  let outcome = await post(network, url, request);
  // A kept-alive connection the receiver closed just as we reused it: try once on a fresh one.
  if (outcome.resetOnReusedSocket) outcome = await post(network, url, request);
  const { resetOnReusedSocket: _reset, ...response } = outcome;
  return { ...response, durationMs: elapsed() };
}

interface Outcome extends Omit<WebhookResponse, 'durationMs'> {
  resetOnReusedSocket?: boolean;
}

function post(network: WebhookNetwork, url: URL, request: WebhookRequest): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const protocol = url.protocol as 'http:' | 'https:';
    const client = protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      agent: AGENTS[request.rules.mode][protocol],
      lookup: guardedLookup(network, request.rules),
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(request.body)),
        'user-agent': 'ownproof-webhooks/1',
        ...request.headers,
      },
      ...(request.signal ? { signal: request.signal } : {}),
    });
    const timer = setTimeout(() => req.destroy(new DeliveryTimeout(network.timeoutMs)), network.timeoutMs);
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(res.headers['retry-after'], Date.now()) : undefined;
      const outcome: Outcome = {
        status,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        ...(status >= 200 && status < 300 ? {} : { error: statusError(status) }),
      };
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > MAX_RESPONSE_BYTES) {
          res.destroy();
          finish(outcome);
        }
      });
      res.on('end', () => finish(outcome));
      res.on('error', () => finish(outcome));
      res.on('close', () => finish(outcome));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      finish({
        status: null,
        ...describeError(error, network),
        ...(req.reusedSocket && error.code === 'ECONNRESET' ? { resetOnReusedSocket: true } : {}),
      });
    });
    req.end(request.body);
  });
}

/** Resolves once, refuses the lot if any address breaks the mode's rules, and hands Node a checked address. */
function guardedLookup(network: WebhookNetwork, rules: TargetRules): LookupFunction {
  return (hostname, options, callback) => {
    network.resolve(hostname).then(
      (found) => {
        try {
          checkAddresses(hostname, found, rules);
        } catch (error) {
          callback(error as NodeJS.ErrnoException, '', 0);
          return;
        }
        const usable = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        const first = usable[0];
        if (!first) {
          callback(Object.assign(new Error(`host ${hostname} has no usable address`), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        if (options.all)
          callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

class DeliveryTimeout extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms / 1000} s`);
    this.name = 'DeliveryTimeout';
  }
}

function statusError(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed; point the endpoint at the final URL`;
  return `HTTP ${status}`;
}

const ERROR_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the receiver',
  ENOTFOUND: 'host does not resolve',
  EAI_AGAIN: 'host does not resolve (temporary DNS failure)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed by the receiver',
  ABORT_ERR: 'aborted (the worker stopped or the job timed out)',
};

/**
 * One line for the attempt record: what went wrong, never a stack, never a secret, never TLS
 * library text; and for errors raised by Node, its own words for the log.
 */
function describeError(error: unknown, network: WebhookNetwork): Pick<WebhookResponse, 'error' | 'detail'> {
  if (error instanceof UrlRefused) return { error: `refused: ${error.message}` };
  if (error instanceof DeliveryTimeout) return { error: `timed out after ${network.timeoutMs / 1000} s` };
  const e = error as NodeJS.ErrnoException;
  const detail = redactSecrets(`${e.code ? `${e.code}: ` : ''}${e.message ?? String(error)}`).trim();
  const words = tlsFailure(e) ?? (e.code ? ERROR_WORDS[e.code] : undefined);
  return { error: words ?? detail.slice(0, 500), detail };
}
