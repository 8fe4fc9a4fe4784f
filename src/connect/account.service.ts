import { unixSeconds } from '../platform/clock.js';
import type { AppContext } from '../platform/context.js';
import { newId } from '../platform/crypto/random.js';
import { recordEvent } from '../platform/events/event.service.js';
import { ApiError, notFound, unknownId } from '../platform/http/errors.js';
import { resolveCursors, resolvePage, type PageQueryInput } from '../platform/http/pagination.js';
import { enqueueJob } from '../platform/jobs/enqueue.js';
import type { Scope } from '../platform/scope.js';
import { readableClaimIds } from '../verify/claims/claim.service.js';
import { requireAccountHolderParam } from './account-holder.service.js';
import { revokeSignIn } from './oauth/oauth-grant.service.js';
import {
  accountPermissions,
  addressRows,
  balanceRows,
  findAccount,
  findAccountForUpdate,
  encodeRefreshState,
  findTransaction,
  insertAccount,
  listAccountRows,
  REFRESH_COLUMN,
  refreshState,
  transactionPage,
  updateAccount,
} from './account.repository.js';
import type { Account, AccountAddress, AccountListQuery, Balance, RefreshFeature, RefreshState, Transaction } from './account.schemas.js';
import type { AccountRow, AccountTransactionRow, SessionRow } from './connect.table.js';
import type { ConnectedAccount, Provider } from './providers/provider.js';
import { refreshAccountJob } from './refresh-account.job.js';
import { findSession } from './session.repository.js';
import type { SessionPermission } from './session.schemas.js';
import { erasedConnection, sealConnection } from './stored-connection.js';

export type AccountDeps = Pick<AppContext, 'db' | 'clock' | 'config' | 'secretBox' | 'capabilities' | 'providers'>;

/**
 * An account as shown: to the client through the API, `ownership` names the claim proving the
 * wallet only while the client can read that claim (`claims`: the readable ones, see
 * {@link clientAccounts}) — not before Done, not after the person revoked it; on the person's own
 * pages, as recorded (`'recorded'`).
 */
export function toAccount(row: AccountRow, claims: ReadonlySet<string> | 'recorded'): Account {
  const claim = row.claim_id !== null && (claims === 'recorded' || claims.has(row.claim_id)) ? row.claim_id : null;
  return {
    id: row.id,
    object: 'account',
    account_holder: row.account_holder_id,
    session: row.session_id,
    provider: { type: row.provider_type, id: row.provider_id, name: row.provider_name },
    display_name: row.display_name,
    permissions: accountPermissions(row),
    status: row.status,
    ownership: { status: claim === null ? 'unverified' : 'verified', claim },
    balance_refresh: refreshState(row, 'balances'),
    transaction_refresh: refreshState(row, 'transactions'),
    created_at: row.created_at,
    livemode: row.mode === 'live',
  };
}

/** Accounts as their client sees them, asking the verify module once which of their claims it can read. */
export async function clientAccounts(deps: Pick<AccountDeps, 'db'>, scope: Scope, rows: readonly AccountRow[]): Promise<Account[]> {
  const readable = await readableClaimIds(
    deps,
    scope,
    rows.flatMap((row) => (row.claim_id === null ? [] : [row.claim_id])),
  );
  return rows.map((row) => toAccount(row, readable));
}

/** One account as its client sees it ({@link clientAccounts}). */
export async function clientAccount(deps: Pick<AccountDeps, 'db'>, scope: Scope, row: AccountRow): Promise<Account> {
  return (await clientAccounts(deps, scope, [row]))[0] as Account;
}

/** Stores the accounts a provider login produced in a session (hosted flow). */
export async function saveConnectedAccounts(
  deps: AccountDeps,
  session: SessionRow,
  provider: Provider,
  connected: ConnectedAccount[],
): Promise<Account[]> {
  const now = unixSeconds(deps.clock);
  const rows: AccountRow[] = connected.map((account) => {
    const id = newId('acct');
    return {
      seq: 0,
      id,
      client_id: session.client_id,
      mode: session.mode,
      account_holder_id: session.account_holder_id,
      session_id: session.id,
      provider_type: provider.type,
      provider_id: provider.id,
      provider_name: provider.name,
      display_name: account.displayName,
      // The session's text as it is: written by its column's encode, against the same schema.
      permissions: session.permissions,
      status: 'active',
      connection_sealed: sealConnection(deps.secretBox, id, account.connection),
      balance_refresh: null,
      claim_id: null,
      transaction_refresh: null,
      transaction_cursor: null,
      created_at: now,
      updated_at: now,
    };
  });
  await deps.db.transaction().execute(async (trx) => {
    for (const { seq: _seq, ...row } of rows) await insertAccount(trx, row);
  });
  return rows.map((row) => toAccount(row, 'recorded'));
}

async function scopedAccount(deps: AccountDeps, scope: Scope, id: string): Promise<AccountRow> {
  const row = await findAccount(deps.db, scope, id);
  if (!row) throw notFound('account', id);
  return row;
}

export async function retrieveAccount(deps: AccountDeps, scope: Scope, id: string): Promise<Account> {
  return clientAccount(deps, scope, await scopedAccount(deps, scope, id));
}

export async function listAccounts(deps: AccountDeps, scope: Scope, query: AccountListQuery) {
  if (query.account_holder !== undefined) await requireAccountHolderParam(deps, scope, query.account_holder, 'account_holder');
  if (query.session !== undefined && !(await findSession(deps.db, scope, query.session)))
    throw unknownId('session', 'session', query.session);
  const page = await resolvePage(query, async (cursor) => (await findAccount(deps.db, scope, cursor))?.seq);
  const { rows, hasMore } = await listAccountRows(
    deps.db,
    scope,
    {
      ...(query.account_holder === undefined ? {} : { accountHolderId: query.account_holder }),
      ...(query.session === undefined ? {} : { sessionId: query.session }),
      ...(query.status === undefined ? {} : { status: query.status }),
    },
    page,
  );
  return { data: await clientAccounts(deps, scope, rows), has_more: hasMore };
}

/** Ends the connection: credentials are erased and refreshes refused; stored data stays readable. */
export async function disconnectAccount(deps: AccountDeps, scope: Scope, id: string): Promise<Account> {
  const row = await scopedAccount(deps, scope, id);
  if (row.status === 'disconnected') return clientAccount(deps, scope, row);
  const now = unixSeconds(deps.clock);
  const updated: AccountRow = {
    ...row,
    status: 'disconnected',
    connection_sealed: erasedConnection(deps.secretBox, row.id),
    updated_at: now,
  };
  const account = await clientAccount(deps, scope, updated);
  await deps.db.transaction().execute(async (trx) => {
    await updateAccount(trx, row.id, { status: updated.status, connection_sealed: updated.connection_sealed, updated_at: now });
    await recordEvent({ db: trx, clock: deps.clock }, scope, 'account.disconnected', account);
  });
  // After the erase is stored (from the row read before it): an OAuth grant also ends at the provider.
  await revokeSignIn(deps, deps.providers.find(row.mode, row.provider_id), row);
  return account;
}

function requirePermission(row: AccountRow, permission: SessionPermission): void {
  const granted = accountPermissions(row);
  if (!granted.includes(permission)) {
    throw new ApiError('permission_missing', {
      param: permission,
      message: `The session that connected this account did not ask for the "${permission}" permission.`,
    });
  }
}

export async function listBalances(deps: AccountDeps, scope: Scope, id: string): Promise<Balance[]> {
  const row = await scopedAccount(deps, scope, id);
  requirePermission(row, 'balances');
  return (await balanceRows(deps.db, row.id)).map((b) => ({
    object: 'balance',
    asset: b.asset,
    available: b.available,
    total: b.total,
    as_of: b.as_of,
  }));
}

export async function listAddresses(deps: AccountDeps, scope: Scope, id: string): Promise<AccountAddress[]> {
  const row = await scopedAccount(deps, scope, id);
  requirePermission(row, 'addresses');
  return (await addressRows(deps.db, row.id)).map((a) => ({
    object: 'address',
    address: a.address,
    asset: a.asset,
    network: a.network,
    kind: a.kind,
    label: a.label,
  }));
}

function toTransaction(row: AccountTransactionRow): Transaction {
  return {
    id: row.id,
    object: 'transaction',
    account: row.account_id,
    type: row.type,
    asset: row.asset,
    amount: row.amount,
    fee: row.fee,
    fee_asset: row.fee_asset,
    occurred_at: row.occurred_at,
    status: row.status,
    tx_hash: row.tx_hash,
    description: row.description,
  };
}

export async function listTransactions(deps: AccountDeps, scope: Scope, id: string, query: PageQueryInput) {
  const row = await scopedAccount(deps, scope, id);
  requirePermission(row, 'transactions');
  const { limit, after, before } = await resolveCursors(query, (cursor) => findTransaction(deps.db, row.id, cursor), 'transaction');
  const { rows, hasMore } = await transactionPage(deps.db, row.id, { limit, ...(after ? { after } : {}), ...(before ? { before } : {}) });
  return { data: rows.map(toTransaction), has_more: hasMore };
}

/**
 * Starts a refresh of balances and/or transactions as a background job and returns the account
 * with those refreshes `pending`. A feature already pending is not started twice — also when two
 * requests race: the account row is read locked, in the transaction that marks it pending. A
 * feature the provider is throttling answers 429 with the time it will allow the next one.
 */
export async function requestRefresh(deps: AccountDeps, scope: Scope, id: string, features: RefreshFeature[]): Promise<Account> {
  const now = unixSeconds(deps.clock);
  return deps.db.transaction().execute(async (trx) => {
    const row = await findAccountForUpdate(trx, deps.capabilities, scope, id);
    if (!row) throw notFound('account', id);
    for (const feature of features) requirePermission(row, feature);
    if (row.status === 'disconnected') throw new ApiError('account_disconnected');
    if (row.status === 'requires_reauth') throw new ApiError('account_requires_reauth');
    // Each stored state decoded once (a parse and a schema check).
    const states = new Map(features.map((feature) => [feature, refreshState(row, feature)]));
    for (const [feature, state] of states) {
      const availableAt = state?.next_refresh_available_at;
      if (availableAt != null && availableAt > now && state?.status !== 'pending') {
        throw new ApiError('refresh_throttled', {
          param: 'features',
          message: `The provider allows the next ${feature} refresh at ${new Date(availableAt * 1000).toISOString()} (next_refresh_available_at).`,
          headers: { 'Retry-After': String(availableAt - now) },
        });
      }
    }
    const starting = features.filter((feature) => states.get(feature)?.status !== 'pending');
    if (starting.length === 0) return clientAccount({ db: trx }, scope, row);
    const changes: Partial<AccountRow> = { updated_at: now };
    for (const feature of starting) {
      const previous = states.get(feature);
      const pending: RefreshState = {
        status: 'pending',
        last_attempted_at: now,
        next_refresh_available_at: previous?.next_refresh_available_at ?? null,
        error: null,
      };
      changes[REFRESH_COLUMN[feature]] = encodeRefreshState(feature, pending);
    }
    await updateAccount(trx, id, changes);
    await enqueueJob(trx, deps.clock, refreshAccountJob, { account_id: id, features: starting });
    return clientAccount({ db: trx }, scope, { ...row, ...changes });
  });
}
