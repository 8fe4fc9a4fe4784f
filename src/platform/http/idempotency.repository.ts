import type { Db } from '../db/database.js';
import type { Scope } from '../scope.js';
import type { IdempotencyKeyRow, NewIdempotencyKeyRow } from './idempotency.table.js';
import { ofTenant } from '../db/of-tenant.js';

/** The response saved for replay (the service seals `body` before it gets here). */
export interface SavedResponse {
  status: number;
  contentType: string | null;
  body: string;
}

/**
 * Inserts the key's row unless the scope already has that key; true when this call inserted it.
 * The unique constraint decides between concurrent requests: exactly one insert wins.
 */
export async function insertIdempotencyKey(db: Db, row: NewIdempotencyKeyRow): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['client_id', 'mode', 'key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findIdempotencyKey(db: Db, scope: Scope, key: string): Promise<IdempotencyKeyRow | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().$call(ofTenant(scope)).where('key', '=', key).executeTakeFirst();
}

/**
 * Reuses the row of an expired key for a new request. The `expires_at <= now` condition makes it
 * atomic: of two requests reclaiming at once, the second finds the row no longer expired.
 */
export async function reclaimExpiredIdempotencyKey(
  db: Db,
  seq: number,
  now: number,
  values: Pick<NewIdempotencyKeyRow, 'method' | 'path' | 'request_hash' | 'lock_token' | 'locked_until' | 'created_at' | 'expires_at'>,
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ ...values, response_status: null, response_content_type: null, response_body: null })
    .where('seq', '=', seq)
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Takes over the lock of a row whose request ran past its lock time (its process died) — only if
 * that lock is still the one seen, so two requests cannot both take it over.
 */
export async function takeOverIdempotencyLock(
  db: Db,
  seq: number,
  staleToken: string,
  lock: { lockToken: string; lockedUntil: number },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ lock_token: lock.lockToken, locked_until: lock.lockedUntil })
    .where('seq', '=', seq)
    .where('lock_token', '=', staleToken)
    .where('response_status', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Saves the response and drops the lock; false when the lock was lost (taken over) meanwhile. */
export async function saveIdempotentResponse(
  db: Db,
  scope: Scope,
  key: string,
  lockToken: string,
  response: SavedResponse,
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({
      response_status: response.status,
      response_content_type: response.contentType,
      response_body: response.body,
      lock_token: null,
      locked_until: null,
    })
    .$call(ofTenant(scope))
    .where('key', '=', key)
    .where('lock_token', '=', lockToken)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes the key's row if this request still holds its lock, so a retry runs afresh. */
export async function deleteLockedIdempotencyKey(db: Db, scope: Scope, key: string, lockToken: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').$call(ofTenant(scope)).where('key', '=', key).where('lock_token', '=', lockToken).execute();
}

/** Deletes up to `limit` expired keys of any client (bounded, so one purge stays a short write). */
export async function deleteExpiredIdempotencyKeys(db: Db, now: number, limit: number): Promise<number> {
  const expired = db.selectFrom('idempotency_keys').select('seq').where('expires_at', '<=', now).limit(limit);
  const result = await db.deleteFrom('idempotency_keys').where('seq', 'in', expired).executeTakeFirst();
  return Number(result.numDeletedRows);
}
