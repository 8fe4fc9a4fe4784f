import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler, RouteOptions } from 'fastify';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { hashSecret } from '../crypto/random.js';
import { ApiError } from './errors.js';
import type { Limiter, RateLimitStore } from './rate-limit-store.js';

/** One limiter's verdict on one request. */
interface Verdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  msBeforeNext: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The verdict the RateLimit headers show, once the client limit was checked. */
    rateLimit: Verdict | null;
  }
  interface FastifyContextConfig {
    /**
     * A status that clients poll (`GET …/{id}`): limited to 2 requests per second per client, mode
     * and `:id` as well, on top of the client's limit (the connect spec's session polling rule).
     */
    pollLimit?: boolean;
    /**
     * A route anyone may call without an API key (a public check that costs CPU): limited per
     * client IP address (an abuse guard, not a quota), across processes as the API's limits are.
     */
    ipRateLimit?: boolean;
  }
}

/** Whole seconds until `ms` has passed, at least 1 (RateLimit-Reset and Retry-After). */
function wholeSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** Ids come from the URL: long ones are hashed so every key fits the store's 255 characters. */
function idKey(id: string): string {
  return id.length <= 64 ? id : hashSecret(id);
}

/** Counts the request against `limiter`; undefined when the store failed (the request is let through). */
function check(limiter: Limiter, key: string, request: FastifyRequest): Promise<Verdict | undefined> {
  return limiter.consume(key).then(
    (res) => ({ allowed: true, limit: limiter.limit, remaining: res.remainingPoints, msBeforeNext: res.msBeforeNext }),
    (reason: unknown) => {
      if (reason instanceof RateLimiterRes) {
        return { allowed: false, limit: limiter.limit, remaining: 0, msBeforeNext: reason.msBeforeNext };
      }
      // Even the in-memory fallback failed: refusing service because of a counter would be worse.
      request.log.error({ err: reason }, 'rate limit check failed; request allowed');
      return undefined;
    },
  );
}

/** Shows `verdict` in the RateLimit headers; a refusal becomes the 429 with Retry-After. */
function apply(request: FastifyRequest, reply: FastifyReply, verdict: Verdict, done: HookHandlerDoneFunction): void {
  request.rateLimit = verdict;
  reply.header('ratelimit-limit', verdict.limit);
  reply.header('ratelimit-remaining', verdict.remaining);
  reply.header('ratelimit-reset', wholeSeconds(verdict.msBeforeNext));
  if (verdict.allowed) return done();
  done(new ApiError('rate_limit_exceeded', { headers: { 'retry-after': String(wholeSeconds(verdict.msBeforeNext)) } }));
}

/**
 * Rate limits for the plugin context it is added to (the `/v1` API), as onRequest hooks after
 * authentication: limits belong to the API key's client and mode, and a request refused with 401
 * never gets here, so it spends nobody's budget. Every request seen gets RateLimit-Limit /
 * -Remaining / -Reset; one over a limit gets 429 `rate_limit_exceeded` with Retry-After.
 * A GET route declared with `config: { pollLimit: true }` is also limited per object id, by a hook
 * attached to that route alone (so no other request pays for the check); its headers then show
 * whichever limit is closer to running out, and a refusal by either.
 */
export function addRateLimitHooks(api: FastifyInstance, store: Pick<RateLimitStore, 'client' | 'poll'>): void {
  api.decorateRequest('rateLimit', null);

  // Callback style: this runs on every API request and must stay cheap (see bench/http.ts).
  api.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    check(store.client, `${request.scope.clientId}:${request.scope.mode}`, request).then((verdict) => {
      if (verdict === undefined) return done();
      apply(request, reply, verdict, done);
    }, done);
  });

  const pollLimit: onRequestHookHandler = (request, reply, done) => {
    const id = (request.params as { id?: unknown }).id;
    if (typeof id !== 'string') return done();
    const key = `${request.scope.clientId}:${request.scope.mode}:${idKey(id)}`;
    check(store.poll, key, request).then((verdict) => {
      const shown = request.rateLimit;
      if (verdict === undefined || (verdict.allowed && shown !== null && shown.remaining < verdict.remaining)) return done();
      apply(request, reply, verdict, done);
    }, done);
  };
  api.addHook('onRoute', (route: RouteOptions) => {
    const methods = [route.method].flat();
    if (!route.config?.pollLimit || !methods.some((m) => m === 'GET' || m === 'HEAD')) return;
    // Route-level onRequest hooks run after the plugin's, so after authentication and the client limit.
    route.onRequest = [...[route.onRequest ?? []].flat(), pollLimit];
  });
}

/**
 * Limits routes declared with `config: { ipRateLimit: true }` per client IP address (the address
 * `TRUST_PROXY` makes `request.ip`), with the same headers and 429 as the API's limits. Add it
 * before the routes are registered: it attaches to them as they are (`onRoute`).
 */
export function addIpRateLimitHooks(app: FastifyInstance, store: Pick<RateLimitStore, 'perIp'>): void {
  const ipLimit: onRequestHookHandler = (request, reply, done) => {
    check(store.perIp, request.ip, request).then(
      (verdict) => (verdict === undefined ? done() : apply(request, reply, verdict, done)),
      done,
    );
  };
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.ipRateLimit) route.onRequest = [...[route.onRequest ?? []].flat(), ipLimit];
  });
}
