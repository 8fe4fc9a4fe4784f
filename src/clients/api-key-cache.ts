import type { ApiKeyAuthenticator, KeyCheck } from '../platform/http/auth.js';
import { authenticateApiKey, type ClientDeps } from './client.service.js';

export interface ApiKeyCacheOptions {
  /** How long a successful lookup is trusted. A key revoked elsewhere stops working within this. */
  ttlMs: number;
  /** Most keys remembered at once (the oldest entries go first). */
  maxEntries: number;
}

interface Entry {
  check: Extract<KeyCheck, { ok: true }>;
  validUntil: number;
}

/**
 * Authenticates API keys, remembering successful lookups for a moment. Clients send the same key
 * on every request, and the database lookup costs as much as the request it guards. Only keys that
 * worked are remembered, never past their own grace expiry, so an unknown or revoked key always
 * reaches the database.
 */
export function createApiKeyAuthenticator(deps: ClientDeps, options: ApiKeyCacheOptions): ApiKeyAuthenticator {
  const cache = new Map<string, Entry>();
  const cached = (presented: string) => {
    const hit = cache.get(presented);
    if (hit && hit.validUntil > deps.clock.now()) return hit.check;
    return undefined;
  };
  const authenticate = async (presented: string): Promise<KeyCheck> => {
    const now = deps.clock.now();
    const hit = cached(presented);
    if (hit) return hit;
    cache.delete(presented);
    const check = await authenticateApiKey(deps, presented);
    if (check.ok && options.ttlMs > 0) {
      const keyExpiry = check.expiresAt === null ? Infinity : check.expiresAt * 1000;
      cache.set(presented, { check, validUntil: Math.min(now + options.ttlMs, keyExpiry) });
      if (cache.size > options.maxEntries) cache.delete(cache.keys().next().value as string);
    }
    return check;
  };
  return Object.assign(authenticate, { cached });
}
