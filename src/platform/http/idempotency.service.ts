import type { AppContext } from '../context.js';
import { unixSeconds } from '../clock.js';
import { randomBase62 } from '../crypto/random.js';
import type { Scope } from '../scope.js';
import { ApiError } from './errors.js';
import {
  deleteExpiredIdempotencyKeys,
  deleteLockedIdempotencyKey,
  findIdempotencyKey,
  insertIdempotencyKey,
  reclaimExpiredIdempotencyKey,
  saveIdempotentResponse,
  takeOverIdempotencyLock,
  type SavedResponse,
} from './idempotency.repository.js';

export type { SavedResponse } from './idempotency.repository.js';

/** Saved responses are sealed (`secretBox`): some carry secrets shown only once (webhook secrets, session client secrets). */
export type IdempotencyDeps = Pick<AppContext, 'db' | 'clock' | 'secretBox'>;

/** Associated data binding a sealed response to its row, so it cannot be replayed for another key. */
function sealPurpose(scope: Scope, key: string): string {
  return `idempotency-response:${scope.clientId}:${scope.mode}:${key}`;
}

export interface IdempotencyPolicy {
  /** How long a key is remembered (Stripe: 24 hours). */
  ttlSeconds: number;
  /**
   * How long the first request may hold the key. A row still locked after this is treated as
   * abandoned by a crashed process and taken over by the next request with the key.
   */
  lockSeconds: number;
}

export const DEFAULT_IDEMPOTENCY_POLICY: IdempotencyPolicy = { ttlSeconds: 24 * 3600, lockSeconds: 60 };

/** What identifies "the same request" for a key. */
export interface IdempotentRequest {
  key: string;
  method: string;
  path: string;
  /** Hash of the query string and canonical body (see `requestFingerprint`). */
  requestHash: string;
}

/** The outcome of presenting a key: run the request (holding the lock) or replay the saved response. */
export type IdempotencyClaim = { outcome: 'execute'; lockToken: string } | { outcome: 'replay'; response: SavedResponse };

/** Rounds of insert/read/take-over before giving up on a key other requests keep changing. */
const MAX_ROUNDS = 5;

/**
 * Presents an Idempotency-Key. Inserting the key's row is the lock (unique per client, mode and
 * key), so of any number of concurrent identical requests exactly one gets `execute`. The others get
 * the saved response once there is one, 409 `idempotency_request_in_progress` while the first still
 * runs, and 409 `idempotency_key_reused` when the key came with another endpoint or body.
 */
export async function claimIdempotencyKey(
  deps: IdempotencyDeps,
  scope: Scope,
  request: IdempotentRequest,
  policy: IdempotencyPolicy = DEFAULT_IDEMPOTENCY_POLICY,
): Promise<IdempotencyClaim> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const now = unixSeconds(deps.clock);
    const lockToken = randomBase62(22);
    const lockedUntil = now + policy.lockSeconds;
    const fresh = {
      method: request.method,
      path: request.path,
      request_hash: request.requestHash,
      lock_token: lockToken,
      locked_until: lockedUntil,
      created_at: now,
      expires_at: now + policy.ttlSeconds,
    };
    const inserted = await insertIdempotencyKey(deps.db, { client_id: scope.clientId, mode: scope.mode, key: request.key, ...fresh });
    if (inserted) return { outcome: 'execute', lockToken };

    const row = await findIdempotencyKey(deps.db, scope, request.key);
    if (!row) continue; // released (5xx) or purged between our insert and read: try again.
    if (row.expires_at <= now) {
      if (await reclaimExpiredIdempotencyKey(deps.db, row.seq, now, fresh)) return { outcome: 'execute', lockToken };
      continue;
    }
    if (row.method !== request.method || row.path !== request.path) {
      throw new ApiError('idempotency_key_reused', {
        message: `This Idempotency-Key was already used for another endpoint (${row.method} ${row.path}).`,
      });
    }
    if (row.request_hash !== request.requestHash) {
      throw new ApiError('idempotency_key_reused', {
        message: 'This Idempotency-Key was already used with a different request body.',
      });
    }
    if (row.response_status !== null) {
      const body = deps.secretBox.open(row.response_body ?? '', sealPurpose(scope, request.key));
      return { outcome: 'replay', response: { status: row.response_status, contentType: row.response_content_type, body } };
    }
    if (row.lock_token !== null && row.locked_until !== null && row.locked_until <= now) {
      if (await takeOverIdempotencyLock(deps.db, row.seq, row.lock_token, { lockToken, lockedUntil }))
        return { outcome: 'execute', lockToken };
      continue;
    }
    throw new ApiError('idempotency_request_in_progress');
  }
  throw new ApiError('idempotency_request_in_progress');
}

/**
 * Saves the response of the request holding the key, for replay (the body sealed with the master
 * key, bound to this client, mode and key). Returns false when the lock was
 * taken over meanwhile (this request outlived its lock time); the other request's outcome stands.
 */
export function completeIdempotentRequest(
  deps: IdempotencyDeps,
  scope: Scope,
  key: string,
  lockToken: string,
  response: SavedResponse,
): Promise<boolean> {
  return saveIdempotentResponse(deps.db, scope, key, lockToken, {
    ...response,
    body: deps.secretBox.seal(response.body, sealPurpose(scope, key)),
  });
}

/** Forgets the key (after a 5xx, or a response that cannot be saved) so a retry runs again. */
export function releaseIdempotencyKey(deps: IdempotencyDeps, scope: Scope, key: string, lockToken: string): Promise<void> {
  return deleteLockedIdempotencyKey(deps.db, scope, key, lockToken);
}

/** Deletes up to `limit` expired keys; returns how many. Expired rows are already ignored, so this only reclaims space. */
export function purgeExpiredIdempotencyKeys(deps: IdempotencyDeps, limit = 500): Promise<number> {
  return deleteExpiredIdempotencyKeys(deps.db, unixSeconds(deps.clock), limit);
}
