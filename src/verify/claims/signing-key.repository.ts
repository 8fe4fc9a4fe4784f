import type { Db } from '../../platform/db/database.js';
import type { SigningKeyRow, SigningKeyTable } from '../verify.table.js';
import type { Insertable } from 'kysely';

export async function findActiveSigningKey(db: Db): Promise<SigningKeyRow | undefined> {
  return db.selectFrom('verify_signing_keys').selectAll().where('status', '=', 'active').executeTakeFirst();
}

/** Every key, newest first: the active one and those kept so old receipts still verify. */
export async function listSigningKeys(db: Db): Promise<SigningKeyRow[]> {
  return db.selectFrom('verify_signing_keys').selectAll().orderBy('seq', 'desc').execute();
}

export async function insertSigningKey(db: Db, row: Insertable<SigningKeyTable>): Promise<void> {
  await db.insertInto('verify_signing_keys').values(row).execute();
}

export async function retireSigningKeys(db: Db, now: number): Promise<string[]> {
  const rows = await db
    .updateTable('verify_signing_keys')
    .set({ status: 'retired', retired_at: now })
    .where('status', '=', 'active')
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}
