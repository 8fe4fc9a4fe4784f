import type { Db } from '../db/database.js';
import type { DataKeyRow, NewDataKeyRow } from './data-key.table.js';

/** Every data key, oldest first. (Rotations, the writers of existing rows, hold ROTATION_LOCK.) */
export async function listDataKeys(db: Db): Promise<DataKeyRow[]> {
  return db.selectFrom('data_keys').selectAll().orderBy('seq').execute();
}

export async function insertDataKey(db: Db, row: NewDataKeyRow): Promise<void> {
  await db.insertInto('data_keys').values(row).execute();
}

export async function rewrapDataKey(
  db: Db,
  id: string,
  wrapping: { wrapped_key: string; master_key_id: string; wrapped_at: number },
): Promise<void> {
  await db.updateTable('data_keys').set(wrapping).where('id', '=', id).execute();
}

/** Retires the active key; returns its id (none on a database without one). */
export async function retireActiveDataKey(db: Db, now: number): Promise<string | undefined> {
  const rows = await db
    .updateTable('data_keys')
    .set({ status: 'retired', retired_at: now })
    .where('status', '=', 'active')
    .returning('id')
    .execute();
  return rows[0]?.id;
}

/** Makes the pending key the active one; returns its id. */
export async function activatePendingDataKey(db: Db, now: number): Promise<string | undefined> {
  const rows = await db
    .updateTable('data_keys')
    .set({ status: 'active', activated_at: now })
    .where('status', '=', 'pending')
    .returning('id')
    .execute();
  return rows[0]?.id;
}
