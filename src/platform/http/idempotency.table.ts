import type { Generated, Insertable, Selectable } from 'kysely';
import type { Mode } from '../scope.js';

/** One Idempotency-Key of one client and mode: the lock while its first request runs, then the saved response. */
export interface IdempotencyKeyTable {
  seq: Generated<number>;
  client_id: string;
  mode: Mode;
  key: string;
  method: string;
  /** The request path without query string or trailing slash (`/api` alias already removed). */
  path: string;
  /** SHA-256 (hex) of the query string and the canonical JSON body. */
  request_hash: string;
  /** Random token of the request holding the lock; null once the response is saved. */
  lock_token: string | null;
  /** Unix seconds after which a still-locked row counts as abandoned (its process died) and may be taken over. */
  locked_until: number | null;
  response_status: number | null;
  response_content_type: string | null;
  /**
   * The response body exactly as sent, sealed with the master key (secret box): a response may carry
   * a secret shown only once, such as a webhook signing secret or a session's client secret.
   */
  response_body: string | null;
  created_at: number;
  /** Unix seconds; after this the key is free again and the row may be purged. */
  expires_at: number;
}

export type IdempotencyKeyRow = Selectable<IdempotencyKeyTable>;
export type NewIdempotencyKeyRow = Insertable<IdempotencyKeyTable>;

export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeyTable;
}
