import type { Db } from '../platform/db/database.js';
import { preparedRead } from '../platform/db/prepared-read.js';
import type { Mode } from '../platform/scope.js';
import type { ApiKeyRow, ClientRow, NewApiKeyRow, NewClientRow } from './client.table.js';
import { ofTenant } from '../platform/db/of-tenant.js';

export async function insertClient(db: Db, row: NewClientRow): Promise<void> {
  await db.insertInto('clients').values(row).execute();
}

export async function findClient(db: Db, id: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countClients(db: Db): Promise<number> {
  const row = await db
    .selectFrom('clients')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertApiKey(db: Db, row: NewApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

const apiKeyByHash = preparedRead((db: Db, keyHash: string) => db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash));

export async function findApiKeyByHash(db: Db, keyHash: string): Promise<ApiKeyRow | undefined> {
  return apiKeyByHash(db, keyHash);
}

/** Keys of a client and mode that still work at `now` (not revoked, not past a grace expiry). */
export async function findUsableApiKeys(db: Db, clientId: string, mode: Mode, now: number): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .$call(ofTenant({ clientId, mode }))
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
}

export async function expireApiKeys(db: Db, ids: string[], expiresAt: number, revokedAt: number | null): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('api_keys').set({ expires_at: expiresAt, revoked_at: revokedAt }).where('id', 'in', ids).execute();
}
