import { unixSeconds } from '../platform/clock.js';
import type { AppContext } from '../platform/context.js';
import { newId } from '../platform/crypto/random.js';
import { recordEvent } from '../platform/events/event.service.js';
import type { Scope } from '../platform/scope.js';
import { findAccountById, replaceAddresses, replaceBalances, updateAccount, upsertTransactions } from './account.repository.js';
import type { RefreshFeature, RefreshState } from './account.schemas.js';
import { connectionPurpose, parseState, REFRESH_COLUMN, toAccount } from './account.service.js';
import type { AccountRow } from './connect.table.js';
import { ProviderError, type ProviderAddress, type ProviderBalance, type ProviderTransaction } from './providers/provider.js';
import type { SessionPermission } from './session.schemas.js';

interface Fetched {
  balances?: ProviderBalance[];
  addresses?: ProviderAddress[];
  transactions?: ProviderTransaction[];
}

/**
 * The body of the refresh job. Reads from the provider first (no transaction open while waiting on
 * the network), then writes data, refresh states and the `account.refreshed` event in one
 * transaction. Safe to run twice: balances and addresses are replaced, transactions upserted.
 */
export async function refreshAccount(
  ctx: Pick<AppContext, 'db' | 'clock' | 'secretBox' | 'providers'>,
  accountId: string,
  features: RefreshFeature[],
  options: { lastAttempt: boolean; signal?: AbortSignal },
): Promise<void> {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) return;
  const now = unixSeconds(ctx.clock);
  const states: Partial<Record<RefreshFeature, RefreshState>> = {};
  const fetched: Fetched = {};
  let status = account.status;

  const provider = ctx.providers.find(account.mode, account.provider_id);
  const connection = JSON.parse(ctx.secretBox.open(account.connection_sealed, connectionPurpose(account.id))) as Record<string, unknown>;
  const granted = JSON.parse(account.permissions) as SessionPermission[];
  const signal = options.signal ? { signal: options.signal } : {};

  for (const feature of features) {
    try {
      if (account.status !== 'active') {
        throw new ProviderError(
          account.status === 'requires_reauth' ? 'reauthentication_required' : 'provider_error',
          `The account is ${account.status === 'requires_reauth' ? 'waiting for the account holder to log in again' : 'disconnected'}.`,
        );
      }
      if (!provider) throw new ProviderError('provider_unavailable', `Provider ${account.provider_id} is not available in ${account.mode} mode.`);
      if (feature === 'balances') {
        fetched.balances = await provider.fetchBalances(connection, signal);
        // Addresses come along with balances when the account holder granted them.
        if (granted.includes('addresses')) fetched.addresses = await provider.fetchAddresses(connection, signal);
      } else {
        fetched.transactions = await provider.fetchTransactions(connection, signal);
      }
      states[feature] = { status: 'succeeded', last_attempted_at: lastAttempted(account, feature, now), next_refresh_available_at: null, error: null };
    } catch (error) {
      if (!(error instanceof ProviderError) && !options.lastAttempt) throw error; // the job retries
      const failure = error instanceof ProviderError ? error : new ProviderError('provider_error', 'The provider returned an unexpected answer.');
      states[feature] = {
        status: 'failed',
        last_attempted_at: lastAttempted(account, feature, now),
        next_refresh_available_at: failure.retryAfterSeconds === undefined ? null : now + failure.retryAfterSeconds,
        error: { code: failure.code, message: failure.message },
      };
      if (failure.code === 'reauthentication_required' && status === 'active') status = 'requires_reauth';
    }
  }

  const scope: Scope = { clientId: account.client_id, mode: account.mode };
  await ctx.db.transaction().execute(async (trx) => {
    if (fetched.balances) {
      await replaceBalances(trx, account.id, fetched.balances.map((b) => ({ account_id: account.id, asset: b.asset, available: b.available, total: b.total, as_of: now })));
    }
    if (fetched.addresses) {
      const unique = new Map(fetched.addresses.map((a) => [`${a.asset}:${a.address}`, a]));
      await replaceAddresses(trx, account.id, [...unique.values()].map((a) => ({ account_id: account.id, address: a.address, asset: a.asset, network: a.network, kind: a.kind, label: a.label })));
    }
    if (fetched.transactions) {
      await upsertTransactions(
        trx,
        fetched.transactions.map((t) => ({
          id: newId('txn'),
          account_id: account.id,
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
    }
    const changes: Partial<AccountRow> = { status, updated_at: now };
    for (const [feature, state] of Object.entries(states) as [RefreshFeature, RefreshState][]) changes[REFRESH_COLUMN[feature]] = JSON.stringify(state);
    await updateAccount(trx, account.id, changes);
    await recordEvent({ db: trx, clock: ctx.clock }, scope, 'account.refreshed', toAccount({ ...account, ...changes }));
  });
}

function lastAttempted(account: AccountRow, feature: RefreshFeature, now: number): number {
  return parseState(account[REFRESH_COLUMN[feature]])?.last_attempted_at ?? now;
}
