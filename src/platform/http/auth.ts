import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Scope } from '../scope.js';
import type { AppContext } from '../context.js';
import { ApiError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The (client, mode) the API key acts for; set on every authenticated route. */
    scope: Scope;
  }
}

/** The answer to "which client and mode does this key act for?" */
export type KeyCheck =
  | { ok: true; scope: Scope; keyId: string; /** Unix seconds when a rolled key stops working. */ expiresAt: number | null }
  | { ok: false; code: 'api_key_malformed' | 'api_key_invalid' | 'api_key_revoked' };

/**
 * What the API's bearer authentication needs from whoever owns API keys (the clients module
 * provides it as `ctx.apiKeys`).
 */
export interface ApiKeyAuthenticator {
  (presented: string): Promise<KeyCheck>;
  /** The remembered answer for a key, without any I/O; undefined when the database must be asked. */
  cached(presented: string): Extract<KeyCheck, { ok: true }> | undefined;
}

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * onRequest hook for the `/v1` API: resolves the Bearer key or answers 401. Callback style, and
 * synchronous when the key's lookup is remembered: it runs on every API request.
 */
export function bearerAuth(ctx: Pick<AppContext, 'apiKeys'>) {
  const authenticateApiKey = ctx.apiKeys;
  return function authenticate(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') return done(new ApiError('api_key_missing'));
    const presented = BEARER.exec(header)?.[1];
    if (presented === undefined) return done(new ApiError('api_key_malformed'));
    const remembered = authenticateApiKey.cached(presented);
    if (remembered) {
      request.scope = remembered.scope;
      return done();
    }
    authenticateApiKey(presented).then((check) => {
      if (!check.ok) return done(new ApiError(check.code));
      request.scope = check.scope;
      done();
    }, done);
  };
}
