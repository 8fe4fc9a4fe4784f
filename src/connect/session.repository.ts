import { Type } from '@sinclair/typebox';
import { ofTenant } from '../platform/db/of-tenant.js';
import type { Db, DbCapabilities } from '../platform/db/database.js';
import { jsonColumn } from '../platform/db/json-column.js';
import { preparedRead } from '../platform/db/prepared-read.js';
import { fetchPage, type PageRequest } from '../platform/http/pagination.js';
import type { Scope } from '../platform/scope.js';
import type { NewSessionRow, SessionRow, SessionUpdate } from './connect.table.js';
import { Permission, type SessionPermission } from './session.schemas.js';

/** The permissions a session asks for: `connect_sessions.permissions`, and `connect_accounts.permissions` (the session's, on each account). */
export const SessionPermissions = Type.Array(Permission);
const SESSION_PERMISSIONS_COLUMN = jsonColumn('connect_sessions', 'permissions', SessionPermissions);

/** The permissions a session asks for. */
export function sessionPermissions(row: Pick<SessionRow, 'id' | 'permissions'>): SessionPermission[] {
  return SESSION_PERMISSIONS_COLUMN.decode(row.permissions, row.id);
}

/** The `permissions` text of a session asking for these permissions. */
export function encodeSessionPermissions(permissions: SessionPermission[]): string {
  return SESSION_PERMISSIONS_COLUMN.encode(permissions);
}

export async function insertSession(db: Db, row: NewSessionRow): Promise<void> {
  await db.insertInto('connect_sessions').values(row).execute();
}

const sessionById = preparedRead((db: Db, clientId: string, mode: Scope['mode'], id: string) =>
  db.selectFrom('connect_sessions').selectAll().$call(ofTenant({ clientId, mode })).where('id', '=', id),
);
const sessionBySecretHash = preparedRead((db: Db, hash: string) =>
  db.selectFrom('connect_sessions').selectAll().where('client_secret_hash', '=', hash),
);

/** Status polling reads this at up to twice a second per session, hence the prepared statement. */
export async function findSession(db: Db, scope: Scope, id: string): Promise<SessionRow | undefined> {
  return sessionById(db, scope.clientId, scope.mode, id);
}

/** By id alone, for background work that carries only the id. */
export async function findSessionById(db: Db, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('connect_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findSessionBySecretHash(db: Db, hash: string): Promise<SessionRow | undefined> {
  return sessionBySecretHash(db, hash);
}

export async function listSessionRows(db: Db, scope: Scope, filter: { accountHolderId?: string }, page: PageRequest) {
  let query = db.selectFrom('connect_sessions').selectAll().$call(ofTenant(scope));
  if (filter.accountHolderId !== undefined) query = query.where('account_holder_id', '=', filter.accountHolderId);
  return fetchPage(query, page);
}

/**
 * Changes an open session and returns it as changed; undefined when it is no longer open (another
 * request closed it first). The status condition makes every transition happen at most once.
 */
export async function updateOpenSession(db: Db, id: string, changes: SessionUpdate): Promise<SessionRow | undefined> {
  return db
    .updateTable('connect_sessions')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', 'open')
    .returningAll()
    .executeTakeFirst();
}

/**
 * Records the disclaimer's acceptance and the browser it happened in, once: undefined when the
 * session was accepted already (or is no longer open), so of two browsers at once one wins.
 */
export async function consentOpenSession(
  db: Db,
  id: string,
  changes: Pick<SessionUpdate, 'consented_at' | 'browser_hash' | 'updated_at'>,
): Promise<SessionRow | undefined> {
  return db
    .updateTable('connect_sessions')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', 'open')
    .where('consented_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Whether the session is open, with its row locked until the transaction ends where the engine has
 * row locks: what Done and a proof finishing at the same moment decide on, in turn.
 */
export async function lockOpenSession(trx: Db, capabilities: Pick<DbCapabilities, 'supportsRowLocks'>, id: string): Promise<boolean> {
  const query = trx.selectFrom('connect_sessions').select('id').where('id', '=', id).where('status', '=', 'open');
  return (await (capabilities.supportsRowLocks ? query.forUpdate() : query).executeTakeFirst()) !== undefined;
}

/** Counts a failed provider login; returns the new count. */
export async function countFailedLogin(db: Db, id: string): Promise<number> {
  const row = await db
    .updateTable('connect_sessions')
    .set((eb) => ({ failed_logins: eb('failed_logins', '+', 1) }))
    .where('id', '=', id)
    .returning('failed_logins')
    .executeTakeFirstOrThrow();
  return row.failed_logins;
}
