import { randomBytes } from 'node:crypto';
import type { DatabaseHandle, Db } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { withAdvisoryLock } from '../db/locks.js';
import { decrypt, encrypt } from './aes-gcm.js';
import { activatePendingDataKey, insertDataKey, listDataKeys, retireActiveDataKey, rewrapDataKey } from './data-key.repository.js';
import type { DataKeyRow, DataKeyStatus, NewDataKeyRow } from './data-key.table.js';
import { masterKeyId, type MasterKeys } from './master-key.js';
import { newId } from './random.js';

/** What a process seals and opens with: unwrapped keys by id, and the id of the one that seals. */
export interface Keyring {
  /** Data keys (`dk_…`), and the keys of `v1.<master key id>.…` values as `v1_<master key id>`. */
  keys: ReadonlyMap<string, Buffer>;
  activeId: string;
}

/** The process does not hold the master key that wraps a data key: it cannot start. */
export class MasterKeyMismatchError extends Error {
  override name = 'MasterKeyMismatchError';
}

const LEGACY_PREFIX = 'v1_';

/** The data key a `v1.<master key id>.…` value opens with: that master key itself, kept under this id. */
export function legacyKeyId(masterId: string): string {
  return `${LEGACY_PREFIX}${masterId}`;
}

/** Wrapped keys are bound to their row: a wrapped key copied onto another id does not unwrap. */
const wrappingPurpose = (id: string) => `data_keys.wrapped_key:${id}`;

function wrapping(master: Buffer, id: string, key: Buffer, now: number) {
  return { wrapped_key: encrypt(master, key, wrappingPurpose(id)), master_key_id: masterKeyId(master), wrapped_at: now };
}

function newDataKeyRow(master: Buffer, status: DataKeyStatus, now: number): NewDataKeyRow {
  const id = newId('dk');
  return {
    id,
    ...wrapping(master, id, randomBytes(32), now),
    status,
    created_at: now,
    activated_at: status === 'active' ? now : null,
    retired_at: null,
  };
}

/** Unwraps a row with whichever of the process's master keys wrapped it. */
function unwrapper(masters: MasterKeys): (row: DataKeyRow) => Buffer {
  const byId = new Map([[masterKeyId(masters.current), masters.current]]);
  if (masters.previous) byId.set(masterKeyId(masters.previous), masters.previous);
  return (row) => {
    const master = byId.get(row.master_key_id);
    if (!master) {
      const held = `${masterKeyId(masters.current)} (MASTER_KEY)${masters.previous ? ` and ${masterKeyId(masters.previous)} (MASTER_KEY_PREVIOUS)` : ''}`;
      throw new MasterKeyMismatchError(
        `data key ${row.id} is wrapped by master key ${row.master_key_id}, but this process holds master key ${held}: ` +
          'start it with the master key the data keys are wrapped by (after `ownproof keys rotate-master`, the new one; docs/architecture.md, "Secrets at rest")',
      );
    }
    try {
      return decrypt(master, row.wrapped_key, wrappingPurpose(row.id));
    } catch {
      throw new Error(`data key ${row.id} does not unwrap with master key ${row.master_key_id}: its row was altered`);
    }
  };
}

/** The keys of `rows`, unwrapped with whichever of `masters` wrapped each; throws MasterKeyMismatchError for a row neither did. */
export function unwrapDataKeys(rows: readonly DataKeyRow[], masters: MasterKeys): Map<string, Buffer> {
  const unwrap = unwrapper(masters);
  return new Map(rows.map((row) => [row.id, unwrap(row)]));
}

/**
 * Reads and unwraps every data key (keys already in `cached` are not unwrapped again: a data key
 * never changes, only its wrapping). A database without keys gets its first active and pending
 * ones here, wrapped under the current master key. Throws MasterKeyMismatchError when a key is
 * wrapped by a master key the process does not hold, so a misconfigured process stops at start
 * rather than failing on its first secret.
 */
export async function loadKeyring(
  db: Db,
  masters: MasterKeys,
  now: number,
  cached: ReadonlyMap<string, Buffer> = new Map(),
): Promise<Keyring> {
  let rows = await listDataKeys(db);
  const missing = (['active', 'pending'] as const).filter((status) => !rows.some((row) => row.status === status));
  if (missing.length > 0) {
    try {
      await db.transaction().execute(async (trx) => {
        for (const status of missing) await insertDataKey(trx, newDataKeyRow(masters.current, status, now));
      });
    } catch (error) {
      // Another process created them at the same moment (one-active/one-pending indexes): use its keys.
      if (!isUniqueViolation(error)) throw error;
    }
    rows = await listDataKeys(db);
  }
  const keys = new Map<string, Buffer>();
  // Values sealed before envelope encryption name the master key they were sealed under.
  for (const master of [masters.current, masters.previous]) if (master) keys.set(legacyKeyId(masterKeyId(master)), master);
  for (const [id, key] of cached) keys.set(id, key);
  for (const [id, key] of unwrapDataKeys(
    rows.filter((row) => !cached.has(row.id)),
    masters,
  ))
    keys.set(id, key);
  const active = rows.find((row) => row.status === 'active');
  if (!active) throw new Error('the database has no active data key');
  return { keys, activeId: active.id };
}

/** Rotations of two operators at once run one after the other (PostgreSQL advisory lock; SQLite writers are serialised anyway). */
const ROTATION_LOCK = 'ownproof:data_keys';

export interface MasterKeyRotation {
  masterKeyId: string;
  previousMasterKeyId: string | undefined;
  /** Data keys now wrapped by the new master key instead of the previous one. */
  rewrapped: string[];
  /** Data keys the new master key wrapped already (a second run changes nothing). */
  unchanged: string[];
  /** `v1_<previous master key id>`, when this rotation kept the previous master key as a data key. */
  legacyKey: string | undefined;
}

/**
 * Re-wraps every data key under `masters.current`, unwrapping with `masters.previous`, in one
 * transaction: all keys move or none does. The data keys themselves do not change, so no sealed
 * value is rewritten and processes holding the unwrapped keys keep working.
 *
 * The first rotation also keeps the previous master key as the data key `v1_<its id>` (wrapped
 * under the new one): values sealed directly under it before envelope encryption stay readable
 * without rewriting them, and without the old master key.
 */
export async function rotateMasterKey(handle: DatabaseHandle, masters: MasterKeys, now: number): Promise<MasterKeyRotation> {
  const currentId = masterKeyId(masters.current);
  const previous = masters.previous && !masters.previous.equals(masters.current) ? masters.previous : undefined;
  return withAdvisoryLock(handle, ROTATION_LOCK, () =>
    handle.db.transaction().execute(async (trx) => {
      const rows = await listDataKeys(trx);
      const unwrap = unwrapper({ current: masters.current, previous });
      const rotation: MasterKeyRotation = {
        masterKeyId: currentId,
        previousMasterKeyId: previous ? masterKeyId(previous) : undefined,
        rewrapped: [],
        unchanged: [],
        legacyKey: undefined,
      };
      for (const row of rows) {
        // Unwrapping first also proves the keys already under the new master key are intact.
        const key = unwrap(row);
        if (row.master_key_id === currentId) {
          rotation.unchanged.push(row.id);
          continue;
        }
        await rewrapDataKey(trx, row.id, wrapping(masters.current, row.id, key, now));
        rotation.rewrapped.push(row.id);
      }
      if (previous && !rows.some((row) => row.id.startsWith(LEGACY_PREFIX))) {
        const id = legacyKeyId(masterKeyId(previous));
        await insertDataKey(trx, {
          id,
          ...wrapping(masters.current, id, previous, now),
          status: 'retired',
          created_at: now,
          activated_at: null,
          retired_at: now,
        });
        rotation.legacyKey = id;
      }
      return rotation;
    }),
  );
}

export interface DataKeyRotation {
  /** The key that seals from now on (the one that was pending, which every running process holds). */
  active: string;
  /** The key that sealed until now; it still opens what it sealed. */
  retired: string | undefined;
  /** The new pending key, wrapped under the current master key. */
  next: string;
}

/**
 * Starts a new data key for new seals: the pending key becomes active and a new pending key is
 * made. Running processes loaded the pending key when they started, so they open what it seals;
 * they themselves keep sealing with the key they loaded (still readable everywhere) until they
 * reload their keys — on meeting a key id they do not hold, or when they restart.
 */
export async function rotateDataKey(handle: DatabaseHandle, master: Buffer, now: number): Promise<DataKeyRotation> {
  return withAdvisoryLock(handle, ROTATION_LOCK, () =>
    handle.db.transaction().execute(async (trx) => {
      const retired = await retireActiveDataKey(trx, now);
      let active = await activatePendingDataKey(trx, now);
      if (active === undefined) {
        const row = newDataKeyRow(master, 'active', now);
        await insertDataKey(trx, row);
        active = row.id;
      }
      const next = newDataKeyRow(master, 'pending', now);
      await insertDataKey(trx, next);
      return { active, retired, next: next.id };
    }),
  );
}
