import type { FastifyReply, FastifyRequest } from 'fastify';
import { createApiKeyAuthenticator } from '../../clients/api-key-cache.js';
import type { Scope } from '../scope.js';
import type { AppContext } from '../context.js';
import { ApiError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The (client, mode) the API key acts for; set on every authenticated route. */
    scope: Scope;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;

/** onRequest hook for the `/v1` API: resolves the Bearer key or answers 401. */
export function bearerAuth(ctx: AppContext) {
  const authenticateApiKey = createApiKeyAuthenticator(ctx, ctx.config.apiKeyCache);
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') throw new ApiError('api_key_missing');
    const presented = BEARER.exec(header)?.[1];
    if (presented === undefined) throw new ApiError('api_key_malformed');
    const check = await authenticateApiKey(presented);
    if (!check.ok) throw new ApiError(check.code);
    request.scope = check.scope;
  };
}

export function livemode(scope: Scope): boolean {
  return scope.mode === 'live';
}
