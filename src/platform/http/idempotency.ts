import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from './errors.js';
import {
  claimIdempotencyKey,
  completeIdempotentRequest,
  purgeExpiredIdempotencyKeys,
  releaseIdempotencyKey,
} from './idempotency.service.js';

/** The request's hold on its Idempotency-Key, from the preHandler to onSend. */
interface HeldKey {
  key: string;
  lockToken: string;
  /** Set once the response was saved or the key released, so it happens once. */
  settled: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request runs under an Idempotency-Key it holds. */
    idempotency: HeldKey | null;
  }
}

const IDEMPOTENCY_HEADER = 'idempotency-key';
const REPLAYED_HEADER = 'idempotent-replayed';

/** 1–255 printable ASCII characters (space included; HTTP already trims the ends). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/**
 * The Idempotency-Key header's value, or the 400 to answer when it is anything but 1–255 printable
 * ASCII characters (an empty value, control or non-ASCII characters).
 */
function parseIdempotencyKey(value: string | string[]): string | ApiError {
  if (typeof value === 'string' && KEY_PATTERN.test(value)) return value;
  return new ApiError('parameter_invalid', {
    param: 'Idempotency-Key',
    message: 'Invalid value for Idempotency-Key: must be 1 to 255 printable ASCII characters.',
  });
}

/** JSON with object keys sorted at every level: two bodies that differ only in key order are one request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return value === undefined ? '' : JSON.stringify(value);
}

/** SHA-256 (hex) of the query string and the canonical body: what "the same request" compares. */
export function requestFingerprint(query: string, body: unknown): string {
  return createHash('sha256').update(query).update('\n').update(canonicalJson(body)).digest('hex');
}

/** The path (without query string or trailing slash) and the raw query string of a request URL. */
function splitUrl(url: string): { path: string; query: string } {
  const at = url.indexOf('?');
  const path = (at === -1 ? url : url.slice(0, at)).replace(/\/+$/, '') || '/';
  return { path, query: at === -1 ? '' : url.slice(at + 1) };
}

/** The body as stored for replay: text exactly as sent, or undefined when it cannot be kept byte for byte. */
function storableBody(payload: unknown): string | undefined {
  if (payload === undefined || payload === null) return '';
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) {
    const text = payload.toString('utf8');
    return Buffer.from(text, 'utf8').equals(payload) ? text : undefined;
  }
  return undefined; // a stream
}

/** Purge expired keys after one keyed request in this many (the first one included). */
const PURGE_EVERY = 100;

/**
 * Idempotency-Key support for every POST route of the plugin context it is added to (the `/v1`
 * API, after authentication, since keys belong to the API key's client and mode). The hooks are
 * attached to each POST route as it is declared (onRoute), so other requests never run them:
 * - preHandler (after validation, so a rejected request never takes a key): claims the key, or
 *   replays the saved response with `Idempotent-Replayed: true`, or answers 409;
 * - onSend: saves the response (status, content type, body as sent) — or, for a 5xx, releases the
 *   key so a retry runs again;
 * - onResponse: releases a key still held (a response that never went through onSend) and now and
 *   then purges expired keys, after the response has gone out.
 */
export function addIdempotencyHooks(api: FastifyInstance, ctx: Pick<AppContext, 'db' | 'clock' | 'secretBox'>): void {
  let keyedRequests = 0;

  api.decorateRequest('idempotency', null);

  // Callback style: a POST without a key passes straight through, without allocating a promise.
  const preHandler = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (header === undefined) return done();
    const key = parseIdempotencyKey(header);
    if (key instanceof ApiError) return done(key);
    const { path, query } = splitUrl(request.url);
    const presented = { key, method: request.method, path, requestHash: requestFingerprint(query, request.body) };
    claimIdempotencyKey(ctx, request.scope, presented).then(
      (claim) => {
        if (claim.outcome === 'execute') {
          request.idempotency = { key, lockToken: claim.lockToken, settled: false };
          return done();
        }
        const { response } = claim;
        reply.code(response.status).header(REPLAYED_HEADER, 'true');
        if (response.contentType !== null) reply.header('content-type', response.contentType);
        reply.send(response.body);
      },
      (error: Error) => done(error),
    );
  };

  const onSend = (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (error: Error | null, payload?: unknown) => void,
  ) => {
    const held = request.idempotency;
    if (held === null || held.settled) return done(null, payload);
    held.settled = true;
    const body = storableBody(payload);
    const finish = () => done(null, payload);
    // A 5xx is not an answer to keep: the key is released so the client's retry runs again.
    if (reply.statusCode >= 500 || body === undefined) {
      if (body === undefined) request.log.warn('response body cannot be saved for Idempotency-Key replay; key released');
      releaseIdempotencyKey(ctx, request.scope, held.key, held.lockToken)
        .catch((error: unknown) => request.log.error({ err: error }, 'could not release Idempotency-Key'))
        .finally(finish);
      return;
    }
    const contentType = reply.getHeader('content-type');
    completeIdempotentRequest(ctx, request.scope, held.key, held.lockToken, {
      status: reply.statusCode,
      contentType: contentType === undefined ? null : String(contentType),
      body,
    })
      .then((saved) => {
        if (!saved) request.log.warn('Idempotency-Key lock was taken over before the response was saved');
      })
      .catch(async (error: unknown) => {
        // The work is done and its response goes out regardless; without a saved response the key
        // is released rather than left locked until its lock time runs out.
        request.log.error({ err: error }, 'could not save the Idempotency-Key response');
        await releaseIdempotencyKey(ctx, request.scope, held.key, held.lockToken).catch(() => undefined);
      })
      .finally(finish);
  };

  const onResponse = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const held = request.idempotency;
    if (held === null) return done();
    const tasks: Promise<unknown>[] = [];
    if (!held.settled) {
      held.settled = true;
      tasks.push(releaseIdempotencyKey(ctx, request.scope, held.key, held.lockToken));
    }
    // Expired keys are ignored when read, so purging is only housekeeping: do it off the request
    // path, on a sample of keyed requests, a bounded batch at a time.
    if (keyedRequests++ % PURGE_EVERY === 0) tasks.push(purgeExpiredIdempotencyKeys(ctx));
    Promise.all(tasks)
      .catch((error: unknown) => request.log.warn({ err: error }, 'Idempotency-Key housekeeping failed'))
      .finally(() => done());
  };

  api.addHook('onRoute', (route: RouteOptions) => {
    if (![route.method].flat().includes('POST')) return;
    // Route-level hooks run after the plugin's own (authentication, rate limits, validation).
    route.preHandler = [...[route.preHandler ?? []].flat(), preHandler];
    route.onSend = [...[route.onSend ?? []].flat(), onSend];
    route.onResponse = [...[route.onResponse ?? []].flat(), onResponse];
  });
}
