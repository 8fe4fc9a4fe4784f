import { Type } from '@sinclair/typebox';
import { ofTenant } from '../platform/db/of-tenant.js';
import type { Db, DbCapabilities } from '../platform/db/database.js';
import { jsonColumn } from '../platform/db/json-column.js';
import { emailIdentity } from '../platform/mail/address.js';
import { preparedRead } from '../platform/db/prepared-read.js';
import { fetchPage, type PageRequest } from '../platform/http/pagination.js';
import type { Scope } from '../platform/scope.js';
import type { AccountHolderRow, AccountHolderUpdate, NewAccountHolderRow } from './account-holder.table.js';

/** `account_holders.metadata`: the client's key-value pairs, text both. */
const ACCOUNT_HOLDER_METADATA = jsonColumn('account_holders', 'metadata', Type.Record(Type.String(), Type.String()));

/** An account holder's metadata, a fresh object each call. */
export function accountHolderMetadata(row: Pick<AccountHolderRow, 'id' | 'metadata'>): Record<string, string> {
  return ACCOUNT_HOLDER_METADATA.decode(row.metadata, row.id);
}

/** The `metadata` text of an account holder with these key-value pairs. */
export function encodeAccountHolderMetadata(metadata: Record<string, string>): string {
  return ACCOUNT_HOLDER_METADATA.encode(metadata);
}

export async function insertAccountHolder(db: Db, row: NewAccountHolderRow): Promise<void> {
  await db.insertInto('account_holders').values(row).execute();
}

const accountHolderById = preparedRead((db: Db, clientId: string, mode: Scope['mode'], id: string) =>
  db.selectFrom('account_holders').selectAll().$call(ofTenant({ clientId, mode })).where('id', '=', id),
);

export async function findAccountHolder(db: Db, scope: Scope, id: string): Promise<AccountHolderRow | undefined> {
  return accountHolderById(db, scope.clientId, scope.mode, id);
}

/** The row, locked until the transaction ends where the engine has row locks. */
export async function findAccountHolderForUpdate(
  trx: Db,
  capabilities: DbCapabilities,
  scope: Scope,
  id: string,
): Promise<AccountHolderRow | undefined> {
  const query = trx.selectFrom('account_holders').selectAll().$call(ofTenant(scope)).where('id', '=', id);
  return (capabilities.supportsRowLocks ? query.forUpdate() : query).executeTakeFirst();
}

export async function listAccountHolderRows(db: Db, scope: Scope, page: PageRequest) {
  return fetchPage(db.selectFrom('account_holders').selectAll().$call(ofTenant(scope)), page);
}

export async function updateAccountHolderRow(db: Db, scope: Scope, id: string, changes: AccountHolderUpdate): Promise<void> {
  await db.updateTable('account_holders').set(changes).where('id', '=', id).$call(ofTenant(scope)).execute();
}

/**
 * Account holders of every client with this e-mail address, compared as one identity
 * (`emailIdentity`); the column side is SQL `lower`, as the `account_holders_email` index keys it —
 * the same for the ASCII addresses the API takes.
 */
export async function findAccountHoldersByEmail(db: Db, email: string, modes: readonly Scope['mode'][]): Promise<AccountHolderRow[]> {
  if (modes.length === 0) return [];
  return db
    .selectFrom('account_holders')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', emailIdentity(email)))
    .where('mode', 'in', modes)
    .orderBy('seq')
    .execute();
}
