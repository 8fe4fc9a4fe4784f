import { sql } from 'kysely';
import { ofTenant } from '../platform/db/of-tenant.js';
import type { Db, DbCapabilities } from '../platform/db/database.js';
import { jsonColumn } from '../platform/db/json-column.js';
import { fetchPage, type PageRequest } from '../platform/http/pagination.js';
import type { Scope } from '../platform/scope.js';
import type {
  AccountAddressRow,
  AccountBalanceRow,
  AccountRow,
  AccountStatus,
  AccountTransactionRow,
  NewAccountRow,
  NewAccountTransactionRow,
} from './connect.table.js';
import { RefreshState, type RefreshFeature } from './account.schemas.js';
import type { SessionPermission } from './session.schemas.js';
import { SessionPermissions } from './session.repository.js';

/** `connect_accounts.permissions`: those of the session that connected the account. */
const ACCOUNT_PERMISSIONS = jsonColumn('connect_accounts', 'permissions', SessionPermissions);

/** The permissions the session that connected an account granted. */
export function accountPermissions(row: Pick<AccountRow, 'id' | 'permissions'>): SessionPermission[] {
  return ACCOUNT_PERMISSIONS.decode(row.permissions, row.id);
}

/** The account column holding each refresh feature's state. */
export const REFRESH_COLUMN = { balances: 'balance_refresh', transactions: 'transaction_refresh' } as const;

/** `connect_accounts.balance_refresh` and `.transaction_refresh`: each feature's refresh state, as the API shows it. */
const REFRESH_STATE = {
  balances: jsonColumn('connect_accounts', REFRESH_COLUMN.balances, RefreshState),
  transactions: jsonColumn('connect_accounts', REFRESH_COLUMN.transactions, RefreshState),
};

/** A refresh feature's state on an account; none before its first refresh. */
export function refreshState(
  row: Pick<AccountRow, 'id' | 'balance_refresh' | 'transaction_refresh'>,
  feature: RefreshFeature,
): RefreshState {
  const text = row[REFRESH_COLUMN[feature]];
  return text === null ? null : REFRESH_STATE[feature].decode(text, row.id);
}

/** The text of a refresh feature's state, for its column (`REFRESH_COLUMN`). */
export function encodeRefreshState(feature: RefreshFeature, state: RefreshState): string {
  return REFRESH_STATE[feature].encode(state);
}

/**
 * The client's accounts: those of its completed sessions. Accounts of a session still in progress
 * (or abandoned) were never handed over, so the API does not show them.
 */
function delivered(db: Db, scope: Scope) {
  return db
    .selectFrom('connect_accounts')
    .innerJoin('connect_sessions', 'connect_sessions.id', 'connect_accounts.session_id')
    .selectAll('connect_accounts')
    .$call(ofTenant(scope, 'connect_accounts'))
    .where('connect_sessions.status', '=', 'completed');
}

export async function insertAccount(db: Db, row: NewAccountRow): Promise<void> {
  await db.insertInto('connect_accounts').values(row).execute();
}

export async function findAccount(db: Db, scope: Scope, id: string): Promise<AccountRow | undefined> {
  return delivered(db, scope).where('connect_accounts.id', '=', id).executeTakeFirst();
}

/** The account, locked until the transaction ends where the engine has row locks. */
export async function findAccountForUpdate(
  trx: Db,
  capabilities: DbCapabilities,
  scope: Scope,
  id: string,
): Promise<AccountRow | undefined> {
  const query = delivered(trx, scope).where('connect_accounts.id', '=', id);
  return (capabilities.supportsRowLocks ? query.forUpdate('connect_accounts') : query).executeTakeFirst();
}

export async function findAccountById(db: Db, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('connect_accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listAccountRows(
  db: Db,
  scope: Scope,
  filter: { accountHolderId?: string; sessionId?: string; status?: AccountStatus },
  page: PageRequest,
) {
  let query = delivered(db, scope);
  if (filter.accountHolderId !== undefined) query = query.where('connect_accounts.account_holder_id', '=', filter.accountHolderId);
  if (filter.sessionId !== undefined) query = query.where('connect_accounts.session_id', '=', filter.sessionId);
  if (filter.status !== undefined) query = query.where('connect_accounts.status', '=', filter.status);
  return fetchPage(query, page, 'connect_accounts.seq');
}

/** Account ids of several sessions in one query, each list oldest first. */
export async function accountIdsBySession(db: Db, sessionIds: string[]): Promise<Map<string, string[]>> {
  const ids = new Map<string, string[]>(sessionIds.map((id) => [id, []]));
  if (sessionIds.length === 0) return ids;
  const rows = await db
    .selectFrom('connect_accounts')
    .select(['id', 'session_id'])
    .where('session_id', 'in', sessionIds)
    .orderBy('seq')
    .execute();
  for (const row of rows) ids.get(row.session_id)?.push(row.id);
  return ids;
}

/** Accounts connected in a session, oldest first. */
export async function sessionAccountRows(db: Db, sessionId: string): Promise<AccountRow[]> {
  return db.selectFrom('connect_accounts').selectAll().where('session_id', '=', sessionId).orderBy('seq').execute();
}

export async function updateAccount(db: Db, id: string, changes: Partial<Omit<AccountRow, 'seq' | 'id'>>): Promise<void> {
  await db.updateTable('connect_accounts').set(changes).where('id', '=', id).execute();
}

export async function replaceBalances(db: Db, accountId: string, rows: Omit<AccountBalanceRow, 'seq'>[]): Promise<void> {
  await db.deleteFrom('connect_account_balances').where('account_id', '=', accountId).execute();
  if (rows.length > 0) await db.insertInto('connect_account_balances').values(rows).execute();
}

export async function balanceRows(db: Db, accountId: string): Promise<AccountBalanceRow[]> {
  return db.selectFrom('connect_account_balances').selectAll().where('account_id', '=', accountId).orderBy('asset').execute();
}

/**
 * Inserts new transactions and updates known ones (same provider reference) to what the provider
 * says now: status, hash and fee change as a transfer settles, and a reading corrected since (an
 * exchange's entry read with the wrong sign or type) replaces the old one.
 */
export async function upsertTransactions(db: Db, rows: NewAccountTransactionRow[]): Promise<void> {
  // Batches keep each statement under the engines' bound-parameter limits.
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto('connect_account_transactions')
      .values(rows.slice(i, i + 200))
      .onConflict((oc) =>
        oc.columns(['account_id', 'provider_ref']).doUpdateSet((eb) => ({
          type: eb.ref('excluded.type'),
          asset: eb.ref('excluded.asset'),
          status: eb.ref('excluded.status'),
          tx_hash: eb.ref('excluded.tx_hash'),
          fee: eb.ref('excluded.fee'),
          fee_asset: eb.ref('excluded.fee_asset'),
          amount: eb.ref('excluded.amount'),
          occurred_at: eb.ref('excluded.occurred_at'),
          description: eb.ref('excluded.description'),
        })),
      )
      .execute();
  }
}

export async function findTransaction(db: Db, accountId: string, id: string): Promise<AccountTransactionRow | undefined> {
  return db
    .selectFrom('connect_account_transactions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Transactions newest first by when they happened. Keyset pagination on (occurred_at, seq):
 * a refresh can add older transactions later, so insertion order is not time order.
 */
export async function transactionPage(
  db: Db,
  accountId: string,
  page: { limit: number; after?: AccountTransactionRow; before?: AccountTransactionRow },
): Promise<{ rows: AccountTransactionRow[]; hasMore: boolean }> {
  const base = db.selectFrom('connect_account_transactions').selectAll().where('account_id', '=', accountId);
  if (page.before) {
    const cursor = page.before;
    const rows = await base
      .where(sql<boolean>`(occurred_at, seq) > (${cursor.occurred_at}, ${cursor.seq})`)
      .orderBy('occurred_at', 'asc')
      .orderBy('seq', 'asc')
      .limit(page.limit + 1)
      .execute();
    return { rows: rows.slice(0, page.limit).reverse(), hasMore: rows.length > page.limit };
  }
  const query = page.after ? base.where(sql<boolean>`(occurred_at, seq) < (${page.after.occurred_at}, ${page.after.seq})`) : base;
  const rows = await query
    .orderBy('occurred_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(page.limit + 1)
    .execute();
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

export async function replaceAddresses(db: Db, accountId: string, rows: Omit<AccountAddressRow, 'seq'>[]): Promise<void> {
  await db.deleteFrom('connect_account_addresses').where('account_id', '=', accountId).execute();
  if (rows.length > 0) await db.insertInto('connect_account_addresses').values(rows).execute();
}

export async function addressRows(db: Db, accountId: string): Promise<AccountAddressRow[]> {
  return db.selectFrom('connect_account_addresses').selectAll().where('account_id', '=', accountId).orderBy('seq').execute();
}
