import type { Generated, Insertable, Selectable } from 'kysely';

/**
 * A data key of envelope encryption: a random 256-bit key that seals secrets (`v2.<id>.…`), stored
 * only wrapped (AES-256-GCM) under a master key. Rotating the master key re-wraps these rows; the
 * sealed secrets stay as they are.
 */
export interface DataKeyTable {
  seq: Generated<number>;
  /**
   * `dk_…`; or `v1_<master key id>`: a former master key kept as a data key by the first
   * `keys rotate-master`, so values sealed before envelope encryption (`v1.…`) stay readable.
   */
  id: string;
  /** The key wrapped under the master key `master_key_id`: `<iv>.<ciphertext+tag>`, bound to `id`. */
  wrapped_key: string;
  /** Which master key wrapped it (`masterKeyId`: the first characters of its SHA-256). */
  master_key_id: string;
  /**
   * `active`: seals new secrets (one row). `pending`: the next one (one row), already loaded by
   * every running process so that when it becomes active they can open what it seals.
   * `retired`: opens what it sealed, seals nothing.
   */
  status: DataKeyStatus;
  created_at: number;
  activated_at: number | null;
  retired_at: number | null;
  /** When `wrapped_key` was written: at creation, then at each master key rotation. */
  wrapped_at: number;
}

export type DataKeyStatus = 'pending' | 'active' | 'retired';
export type DataKeyRow = Selectable<DataKeyTable>;
export type NewDataKeyRow = Insertable<DataKeyTable>;

export interface DataKeysTables {
  data_keys: DataKeyTable;
}
