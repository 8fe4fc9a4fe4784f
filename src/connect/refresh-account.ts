import { unixSeconds } from '../platform/clock.js';
import type { AppContext } from '../platform/context.js';
import { newId } from '../platform/crypto/random.js';
import { recordEvent } from '../platform/events/event.service.js';
import type { Scope } from '../platform/scope.js';
import {
  accountPermissions,
  encodeRefreshState,
  findAccountById,
  REFRESH_COLUMN,
  refreshState,
  replaceAddresses,
  replaceBalances,
  updateAccount,
  upsertTransactions,
} from './account.repository.js';
import type { RefreshFeature, RefreshState } from './account.schemas.js';
import { clientAccount } from './account.service.js';
import { openConnection, type StoredConnection } from './stored-connection.js';
import type { AccountRow } from './connect.table.js';
import { usableConnection } from './oauth/oauth-grant.service.js';
import { refreshAccountJob } from './refresh-account.job.js';
import { accountRefreshes } from './refresh.metrics.js';
import { enqueueJob } from '../platform/jobs/enqueue.js';
import { ProviderError, type ProviderAddress, type ProviderBalance, type TransactionPages } from './providers/provider.js';

/** Failures that pass: retried by themselves, MAX_AUTO_RETRIES times, before the client must ask again. */
const TRANSIENT = new Set<ProviderError['code']>(['provider_rate_limited', 'provider_unavailable']);
const MAX_AUTO_RETRIES = 3;

interface Fetched {
  balances?: ProviderBalance[];
  addresses?: ProviderAddress[];
  /** Set once every page of the history was read and stored: where the next refresh resumes. */
  history?: { cursor: string | null };
}

/**
 * The body of the refresh job. No database transaction is open while waiting on the network.
 * Transactions are stored page by page as the provider hands them over (each page upserted in its
 * own transaction: they are the provider's records, true whatever happens next, and a long history
 * is never held whole). Balances, addresses, the refresh states, the history cursor and the
 * `account.refreshed` event are written together at the end: a refresh that fails part way is
 * recorded `failed`, its cursor being the last page's checkpoint if the provider gave one (the
 * next attempt goes on from there), else unchanged (it starts again). Safe to run twice: balances
 * and addresses are replaced, transactions upserted on the provider's id.
 */
export async function refreshAccount(
  ctx: Pick<AppContext, 'db' | 'clock' | 'config' | 'secretBox' | 'providers' | 'metrics'>,
  accountId: string,
  requested: RefreshFeature[],
  options: { lastAttempt: boolean; signal?: AbortSignal; historyBudgetMs?: number; retry?: number },
): Promise<void> {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) return;
  const retry = options.retry ?? 0;
  // An automatic retry redoes only what still stands failed (a refresh the client asked for may have run since).
  const wanted = retry === 0 ? requested : requested.filter((feature) => refreshState(account, feature)?.status === 'failed');
  if (wanted.length === 0) return;
  const now = unixSeconds(ctx.clock);
  const states: Partial<Record<RefreshFeature, RefreshState>> = {};
  const fetched: Fetched = {};
  let status = account.status;

  const provider = ctx.providers.find(account.mode, account.provider_id);
  const stored = openConnection(ctx.secretBox, account);
  // Renewed once, before the first call that needs it (an OAuth sign-in's access token).
  let connection: Promise<StoredConnection> | undefined;
  const granted = accountPermissions(account);
  const signal = options.signal ? { signal: options.signal } : {};
  let continueHistory = false;
  /** The features that failed transiently in this run, and when they are retried automatically (Unix seconds). */
  const retrying: RefreshFeature[] = [];
  let retryAt: number | undefined;
  const finished = ctx.metrics.counter(accountRefreshes);
  const labels = { mode: account.mode, provider: account.provider_id };

  for (const feature of wanted) {
    try {
      if (account.status !== 'active') {
        throw new ProviderError(
          account.status === 'requires_reauth' ? 'reauthentication_required' : 'provider_error',
          `The account is ${account.status === 'requires_reauth' ? 'waiting for the account holder to log in again' : 'disconnected'}.`,
        );
      }
      if (!provider)
        throw new ProviderError('provider_unavailable', `Provider ${account.provider_id} is not available in ${account.mode} mode.`);
      const usable = await (connection ??= usableConnection(ctx, account, provider, stored));
      if (feature === 'balances') {
        fetched.balances = await provider.fetchBalances(usable, signal);
        // Addresses come along with balances when the account holder granted them.
        if (granted.includes('addresses'))
          fetched.addresses = await provider.fetchAddresses(usable, { ...signal, balances: fetched.balances });
      } else {
        const pages = provider.fetchTransactions(usable, {
          ...signal,
          cursor: account.transaction_cursor,
          ...(fetched.balances ? { balances: fetched.balances } : {}),
        });
        const deadline = options.historyBudgetMs === undefined ? Infinity : performance.now() + options.historyBudgetMs;
        const walked = await storeHistory(ctx.db, account.id, pages, { deadline, from: account.transaction_cursor });
        // Out of time with a checkpoint stored: the walk goes on in a new job, the refresh stays pending.
        if (!walked.done) {
          continueHistory = true;
          continue;
        }
        fetched.history = { cursor: walked.cursor };
      }
      states[feature] = {
        status: 'succeeded',
        last_attempted_at: lastAttempted(account, feature, now),
        next_refresh_available_at: null,
        error: null,
      };
      finished.inc({ ...labels, feature, outcome: 'succeeded' });
    } catch (error) {
      if (!(error instanceof ProviderError) && !options.lastAttempt) throw error; // the job retries
      const failure =
        error instanceof ProviderError ? error : new ProviderError('provider_error', 'The provider returned an unexpected answer.');
      // Transient: tried again by itself, the provider's wait doubled at each retry. Once the
      // retries are spent the client may ask after the provider's own wait.
      const base = failure.retryAfterSeconds;
      const again = base !== undefined && TRANSIENT.has(failure.code) && retry < MAX_AUTO_RETRIES;
      const wait = base === undefined ? undefined : again ? base * 2 ** retry : base;
      if (again && wait !== undefined) {
        retryAt = Math.max(retryAt ?? 0, now + wait);
        retrying.push(feature);
      }
      states[feature] = {
        status: 'failed',
        last_attempted_at: lastAttempted(account, feature, now),
        next_refresh_available_at: wait === undefined ? null : now + wait,
        error: { code: failure.code, message: failure.message },
      };
      finished.inc({ ...labels, feature, outcome: 'failed', error_code: failure.code });
      if (failure.code === 'reauthentication_required' && status === 'active') status = 'requires_reauth';
    }
  }

  const scope: Scope = { clientId: account.client_id, mode: account.mode };
  await ctx.db.transaction().execute(async (trx) => {
    if (fetched.balances) {
      await replaceBalances(
        trx,
        account.id,
        fetched.balances.map((b) => ({ account_id: account.id, asset: b.asset, available: b.available, total: b.total, as_of: now })),
      );
    }
    if (fetched.addresses) {
      const unique = new Map(fetched.addresses.map((a) => [`${a.asset}:${a.address}`, a]));
      await replaceAddresses(
        trx,
        account.id,
        [...unique.values()].map((a) => ({
          account_id: account.id,
          address: a.address,
          asset: a.asset,
          network: a.network,
          kind: a.kind,
          label: a.label,
        })),
      );
    }
    if (continueHistory) await enqueueJob(trx, ctx.clock, refreshAccountJob, { account_id: account.id, features: ['transactions'] });
    if (retryAt !== undefined)
      await enqueueJob(
        trx,
        ctx.clock,
        refreshAccountJob,
        { account_id: account.id, features: retrying, retry: retry + 1 },
        { runAt: retryAt * 1000 },
      );
    // Nothing finished in this run (only a history walk that goes on): no state to record yet.
    if (Object.keys(states).length === 0) return;
    const changes: Partial<AccountRow> = {
      status,
      updated_at: now,
      ...(fetched.history ? { transaction_cursor: fetched.history.cursor } : {}),
    };
    for (const [feature, state] of Object.entries(states) as [RefreshFeature, RefreshState][])
      changes[REFRESH_COLUMN[feature]] = encodeRefreshState(feature, state);
    await updateAccount(trx, account.id, changes);
    await recordEvent(
      { db: trx, clock: ctx.clock },
      scope,
      'account.refreshed',
      await clientAccount({ db: trx }, scope, { ...account, ...changes }),
    );
  });
}

function lastAttempted(account: AccountRow, feature: RefreshFeature, now: number): number {
  return refreshState(account, feature)?.last_attempted_at ?? now;
}

/**
 * Stores each page of a provider's history as it arrives, with its checkpoint (if any) as the
 * account's cursor in the same transaction. Returns the cursor the provider ends with; or, past
 * `deadline` (performance.now()) right after a page whose checkpoint was stored and differs from
 * the one the walk resumed `from`, stops the walk there (`done: false`): a later run resumes from
 * that checkpoint. (A resumed walk re-reads its boundary first: stopping on the same checkpoint
 * would resume there for ever.)
 */
async function storeHistory(
  db: AppContext['db'],
  accountId: string,
  pages: TransactionPages,
  budget: { deadline: number; from: string | null },
): Promise<{ done: true; cursor: string | null } | { done: false }> {
  for (;;) {
    const next = await pages.next();
    if (next.done) return { done: true, cursor: next.value };
    const { transactions, checkpoint } = next.value;
    // One row per provider id, also within a page (one upsert may not touch a row twice).
    const unique = new Map(transactions.map((t) => [t.ref, t]));
    if (unique.size === 0 && checkpoint === undefined) continue;
    await db.transaction().execute(async (trx) => {
      if (checkpoint !== undefined) await updateAccount(trx, accountId, { transaction_cursor: checkpoint });
      if (unique.size === 0) return;
      await upsertTransactions(
        trx,
        [...unique.values()].map((t) => ({
          id: newId('txn'),
          account_id: accountId,
          provider_ref: t.ref,
          type: t.type,
          asset: t.asset,
          amount: t.amount,
          fee: t.fee,
          fee_asset: t.feeAsset,
          occurred_at: t.occurredAt,
          status: t.status,
          tx_hash: t.txHash,
          description: t.description,
        })),
      );
    });
    if (checkpoint !== undefined && checkpoint !== budget.from && performance.now() > budget.deadline) {
      await pages.return(null);
      return { done: false };
    }
  }
}
