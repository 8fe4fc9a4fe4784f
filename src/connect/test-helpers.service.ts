import { sandboxWallet } from '../bitcoin/sandbox/sandbox-wallet.js';
import type { AppContext } from '../platform/context.js';
import { ApiError, notFound } from '../platform/http/errors.js';
import { requireTestMode } from '../platform/http/test-helpers.js';
import type { Scope } from '../platform/scope.js';
import { startSignatureChallenge } from '../verify/claims/proof.service.js';
import { proveWithSandboxWallet, sandboxCanProve } from '../verify/claims/sandbox-proof.service.js';
import { accountPermissions, findAccount } from './account.repository.js';
import { REFRESH_FEATURES, type Account } from './account.schemas.js';
import { retrieveAccount, saveConnectedAccounts } from './account.service.js';
import type { SessionRow } from './connect.table.js';
import {
  acceptDisclaimer,
  exitSession,
  finishSession,
  hostedSessionOf,
  logIn,
  walletProofRequest,
  walletToProve,
  type HostedSession,
} from './hosted-flow.service.js';
import type { ConnectedAccount, Provider } from './providers/provider.js';
import { ProviderError } from './providers/provider.js';
import type { ProviderRegistry } from './providers/registry.js';
import { SANDBOX_PASSWORD } from './providers/sandbox-exchange.js';
import { refreshAccount } from './refresh-account.js';
import { findSession } from './session.repository.js';
import type { Session } from './session.schemas.js';
import { retrieveSession } from './session.service.js';
import type { CompleteSessionInput } from './test-helpers.schemas.js';

/*
 * Test helpers (docs/sandbox.md): what the account holder does on the hosted pages, asked for
 * through the API in test mode, done by the hosted flow's own services — the same consent, the
 * same Done, the same events and webhooks, and the same refusals.
 */

export type ConnectTestHelperDeps = Pick<
  AppContext,
  'db' | 'clock' | 'config' | 'secretBox' | 'capabilities' | 'providers' | 'chains' | 'depositWallets' | 'metrics'
>;

/**
 * The client's session named in the path (404), in test mode (403), open (409), and not taken by
 * a browser: once the person chose Continue on the disclaimer, the session belongs to that
 * browser, and nobody else presses Done or Cancel for them (docs/connect.md) — a helper neither.
 */
async function sessionToActIn(deps: ConnectTestHelperDeps, scope: Scope, id: string): Promise<HostedSession> {
  const row = await findSession(deps.db, scope, id);
  if (!row) throw notFound('session', id);
  requireTestMode(scope);
  const hosted = await hostedSessionOf(deps, row);
  if (hosted.state !== 'open') throw notOpen(hosted.status);
  if (hosted.consented) throw new ApiError('session_opened_in_browser', { param: 'id' });
  return hosted;
}

function notOpen(status: SessionRow['status']): ApiError {
  return new ApiError('session_not_open', {
    param: 'id',
    message: `The session is ${status}; only an open session can be completed or abandoned.`,
  });
}

/** One login as the person types it on a provider's form, and where the request named it. */
interface Login {
  param: string;
  providerId: string;
  values: Record<string, string>;
  prove: boolean;
}

/**
 * The person connects accounts and finishes: Continue on the disclaimer (consent recorded as the
 * page records it), each login, each ownership proof with the sandbox wallet, then Done — which
 * shares the accounts and proven wallets with the client (`claim.created`, `session.completed`).
 * Every login is tried, and every proof checked possible, before anything is written, so a
 * refused request leaves the session as it was.
 */
export async function completeSessionAsHolder(
  deps: ConnectTestHelperDeps,
  scope: Scope,
  id: string,
  input: CompleteSessionInput,
): Promise<Session> {
  const hosted = await sessionToActIn(deps, scope, id);
  const logins: Login[] = [
    ...(input.exchange_logins ?? []).map((login, i) => ({
      param: `exchange_logins[${i}]`,
      providerId: 'sandbox',
      values: { username: login.username, password: login.password ?? SANDBOX_PASSWORD },
      prove: false,
    })),
    ...(input.wallets ?? []).map((wallet, i) => ({
      param: `wallets[${i}]`,
      providerId: 'bitcoin',
      values: { wallet: wallet.wallet ?? sandboxWallet().descriptor },
      prove: wallet.prove_ownership === true,
    })),
  ];
  if (logins.length === 0) {
    throw new ApiError('parameter_missing', {
      param: 'exchange_logins',
      message: 'Missing required parameter: exchange_logins or wallets (the person connects at least one account before Done).',
    });
  }
  const connections: { provider: Provider; accounts: ConnectedAccount[]; prove: boolean }[] = [];
  for (const login of logins) connections.push(await tryLogin(hosted, login));

  // Accepted in a browser since it was read: that browser's now, as above.
  if ((await acceptDisclaimer(deps, hosted)) === undefined) throw new ApiError('session_opened_in_browser', { param: 'id' });
  const toProve: string[] = [];
  for (const { provider, accounts, prove } of connections) {
    const saved = await saveConnectedAccounts(deps, hosted.session, provider, accounts);
    if (prove) toProve.push(...saved.map((account) => account.id));
  }
  const connected = await hostedSessionOf(deps, hosted.session);
  if (connected.state !== 'open') throw notOpen(connected.status);
  for (const accountId of toProve) await proveWithSandbox(deps, connected, accountId);
  if (!(await finishSession(deps, connected)).ok) throw notOpen((await findSession(deps.db, scope, id))?.status ?? 'abandoned');
  return retrieveSession(deps, scope, id);
}

/** The provider's answer to a login, and whether the sandbox wallet can prove what it connects; refused as a parameter. */
async function tryLogin(
  hosted: HostedSession,
  login: Login,
): Promise<{ provider: Provider; accounts: ConnectedAccount[]; prove: boolean }> {
  const provider = hosted.providers.find((p) => p.id === login.providerId);
  if (!provider) throw new Error(`test mode offers no ${login.providerId} provider`);
  const outcome = await logIn(provider, login.values);
  if (!outcome.ok) throw invalid(outcome.field === undefined ? login.param : `${login.param}[${outcome.field}]`, outcome.message);
  if (login.prove) {
    for (const account of outcome.accounts) {
      const possible = sandboxCanProve(String(account.connection.descriptor));
      if (!possible.ok) throw invalid(`${login.param}[prove_ownership]`, possible.message);
    }
  }
  return { provider, accounts: outcome.accounts, prove: login.prove };
}

function invalid(param: string, message: string): ApiError {
  return new ApiError('parameter_invalid', { param, message: `Invalid value for ${param}: ${message}` });
}

/** "Prove you control it", then "Sign with the sandbox wallet", on a wallet account of the session. */
async function proveWithSandbox(deps: ConnectTestHelperDeps, hosted: HostedSession, accountId: string): Promise<void> {
  const wallet = await walletToProve(deps, hosted, accountId);
  if (!wallet) throw new Error(`account ${accountId} is no wallet of session ${hosted.session.id}`);
  const request = walletProofRequest(deps, hosted, wallet);
  const started = await startSignatureChallenge(deps, request, wallet.subject);
  if (!started.ok) throw new Error(`the proof did not start: ${started.message}`);
  const proven = await proveWithSandboxWallet(deps, started.challenge, { alsoInTransaction: request.alsoInTransaction });
  if (!proven.ok) throw new Error(`the sandbox wallet's proof failed: ${proven.reason}`);
}

/** Cancel, as on any page of the flow: the session is abandoned (`session.abandoned`) and nothing is shared. */
export async function abandonSessionAsHolder(deps: ConnectTestHelperDeps, scope: Scope, id: string): Promise<Session> {
  await exitSession(deps, await sessionToActIn(deps, scope, id), 'cancelled');
  return retrieveSession(deps, scope, id);
}

/**
 * The account's provider login expires, and the refresh code records it as it records a provider
 * saying so (as the sandbox's `user_reauth` does on every refresh): each refresh the account's
 * permissions allow `failed` with `reauthentication_required`, the account `requires_reauth`,
 * `account.refreshed`. From then on a refresh is 409 `account_requires_reauth`.
 */
export async function expireProviderLogin(deps: ConnectTestHelperDeps, scope: Scope, id: string): Promise<Account> {
  const row = await findAccount(deps.db, scope, id);
  if (!row) throw notFound('account', id);
  requireTestMode(scope);
  if (row.status === 'disconnected') throw new ApiError('account_disconnected', { param: 'id' });
  if (row.status === 'active') {
    const granted = accountPermissions(row);
    const features = REFRESH_FEATURES.filter((feature) => granted.includes(feature));
    // An account with neither permission is never refreshed; its balances refresh records the expiry.
    await refreshAccount({ ...deps, providers: withExpiredLogin(deps.providers) }, row.id, features.length > 0 ? features : ['balances'], {
      lastAttempt: true,
    });
  }
  return retrieveAccount(deps, scope, id);
}

/** The providers as they answer once a login expired: every data call says so. */
function withExpiredLogin(providers: ProviderRegistry): ProviderRegistry {
  return {
    list: (mode) => providers.list(mode),
    find(mode, id) {
      const provider = providers.find(mode, id);
      if (!provider) return undefined;
      const expired = (): never => {
        throw new ProviderError(
          'reauthentication_required',
          `The ${provider.name} login has expired; the account holder must connect again.`,
        );
      };
      // Without its OAuth sign-in: a token renewal would call the provider.
      const { oauth: _oauth, ...offline } = provider;
      return { ...offline, fetchBalances: expired, fetchTransactions: expired, fetchAddresses: expired };
    },
  };
}
