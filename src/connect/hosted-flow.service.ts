import type { Transaction } from 'kysely';
import { clientDisplayName } from '../clients/client.service.js';
import { unixSeconds } from '../platform/clock.js';
import { emailIdentity } from '../platform/mail/address.js';
import type { Database } from '../platform/db/schema.js';
import { hashSecret } from '../platform/crypto/random.js';
import type { Mode } from '../platform/scope.js';
import { retrieveAccountHolder } from './account-holder.service.js';
import type { Account } from './account.schemas.js';
import { saveConnectedAccounts, toAccount, type AccountDeps } from './account.service.js';
import { openConnection } from './stored-connection.js';
import { findAccountById, sessionAccountRows, updateAccount } from './account.repository.js';
import type { SessionRow } from './connect.table.js';
import type { OAuthTokens } from './oauth/oauth-client.js';
import type { ConnectOutcome, Provider } from './providers/provider.js';
import { countFailedLogin, findSessionBySecretHash, lockOpenSession, sessionPermissions } from './session.repository.js';
import type { SessionPermission } from './session.schemas.js';
import { abandonSession, completeSession, exitUrl, expireIfDue, recordConsent } from './session.service.js';
import type { FinishOptions, ProofRequest } from '../verify/claims/proof.service.js';

/** What the hosted pages need to render an open session. */
export interface HostedSession {
  state: 'open';
  session: SessionRow;
  mode: Mode;
  clientName: string;
  permissions: SessionPermission[];
  consented: boolean;
  /** Accounts connected so far in this session. */
  accounts: Account[];
  providers: readonly Provider[];
}

/**
 * A session that ended, and only how: whoever holds the link learns its status and nothing else
 * (no client, no account). The person who pressed Done is told they are done; a cancelled or
 * expired session's link has expired.
 */
export interface EndedSession {
  state: 'ended';
  status: Exclude<SessionRow['status'], 'open'>;
}

export type HostedLookup =
  | HostedSession
  | EndedSession
  /** No session has this secret (or the secret is malformed): reveal nothing. */
  | { state: 'not_found' };

/** The hosted flow reads sessions, saves accounts and asks providers: the connect services' parts. */
export type HostedFlowDeps = AccountDeps;

const SECRET_SHAPE = /^cs_(test|live)_[0-9A-Za-z]{32}$/;

/** Resolves the secret in a hosted URL to the session behind it, expiring it first if it is due. */
export async function lookUpHostedSession(deps: HostedFlowDeps, secret: string): Promise<HostedLookup> {
  if (!SECRET_SHAPE.test(secret)) return { state: 'not_found' };
  const found = await findSessionBySecretHash(deps.db, hashSecret(secret));
  return found ? hostedSessionOf(deps, found) : { state: 'not_found' };
}

/** A session row as the hosted pages see it, expiring it first if it is due. */
export async function hostedSessionOf(deps: HostedFlowDeps, found: SessionRow): Promise<HostedSession | EndedSession> {
  const session = await expireIfDue(deps, found);
  if (session.status !== 'open') return { state: 'ended', status: session.status };
  return {
    state: 'open',
    session,
    mode: session.mode,
    clientName: (await clientDisplayName(deps, session.client_id)) ?? 'This service',
    permissions: sessionPermissions(session),
    consented: session.consented_at !== null,
    accounts: (await sessionAccountRows(deps.db, session.id)).map((row) => toAccount(row, 'recorded')),
    providers: deps.providers.list(session.mode),
  };
}

/**
 * Step 1: the account holder read the permissions and chose Continue. The session now belongs to
 * this browser: the token returned goes into its cookie (undefined: accepted before).
 */
export async function acceptDisclaimer(deps: HostedFlowDeps, hosted: HostedSession): Promise<string | undefined> {
  return recordConsent(deps, hosted.session);
}

export type ConnectAttempt =
  | { ok: true; accounts: Account[] }
  | {
      ok: false;
      message: string;
      field?: string;
      reason: 'invalid_credentials' | 'provider_unavailable' | 'invalid_input' | 'too_many_attempts';
    };

/** Failed provider logins a session allows before it refuses more (the page is no password oracle). */
export const MAX_FAILED_LOGINS = 10;

/** Step 3: authenticate with one of the session's providers; on success its accounts join the session. */
export async function connectWithProvider(
  deps: HostedFlowDeps,
  hosted: HostedSession,
  provider: Provider,
  input: Record<string, string>,
): Promise<ConnectAttempt> {
  if (hosted.session.failed_logins >= MAX_FAILED_LOGINS) return tooManyAttempts();
  const outcome = await logIn(provider, input);
  if (!outcome.ok) {
    if (outcome.reason === 'invalid_credentials' && (await countFailedLogin(deps.db, hosted.session.id)) > MAX_FAILED_LOGINS) {
      return tooManyAttempts();
    }
    return { ok: false, reason: outcome.reason, message: outcome.message, ...(outcome.field ? { field: outcome.field } : {}) };
  }
  return { ok: true, accounts: await saveConnectedAccounts(deps, hosted.session, provider, outcome.accounts) };
}

/**
 * Connects the accounts an OAuth sign-in opened (the return leg of "Sign in with …"). No failed
 * login is counted: the person signed in at the provider, not on our page.
 */
export async function connectSignedIn(
  deps: HostedFlowDeps,
  hosted: HostedSession,
  provider: Provider,
  tokens: OAuthTokens,
): Promise<ConnectAttempt> {
  const oauth = provider.oauth;
  if (!oauth) throw new Error(`${provider.id} has no OAuth sign-in`);
  const outcome = await reach(provider, (signal) => oauth.connectWithTokens(tokens, { signal }));
  if (!outcome.ok) return { ok: false, reason: outcome.reason, message: outcome.message };
  return { ok: true, accounts: await saveConnectedAccounts(deps, hosted.session, provider, outcome.accounts) };
}

/** The provider's answer to a login (what the form sends), nothing stored. */
export function logIn(provider: Provider, input: Record<string, string>): Promise<ConnectOutcome> {
  return reach(provider, (signal) => provider.connect(input, { signal }));
}

/** A provider's connect call, at most 30 s; a provider that throws could not be reached. */
async function reach(provider: Provider, call: (signal: AbortSignal) => Promise<ConnectOutcome>): Promise<ConnectOutcome> {
  try {
    return await call(AbortSignal.timeout(30_000));
  } catch {
    return { ok: false, reason: 'provider_unavailable', message: `${provider.name} could not be reached. Please try again in a moment.` };
  }
}

function tooManyAttempts(): ConnectAttempt {
  return {
    ok: false,
    reason: 'too_many_attempts',
    message: 'Too many failed sign-in attempts in this session. Go back to the app and start again.',
  };
}

/**
 * Step 4, Done: completes the session. Returns where to send the browser (null: show "you can close
 * this tab"), or `{ ok: false }` when nothing was connected yet.
 */
export async function finishSession(
  deps: HostedFlowDeps,
  hosted: HostedSession,
): Promise<{ ok: true; redirectUrl: string | null } | { ok: false }> {
  if (!(await completeSession(deps, hosted.session))) return { ok: false };
  return { ok: true, redirectUrl: exitUrl(hosted.session, 'completed') };
}

/** Cancel / exit, or a failure to start the flow: the session is abandoned. */
export async function exitSession(
  deps: HostedFlowDeps,
  hosted: HostedSession,
  reason: 'cancelled' | 'initialization_failed',
): Promise<string | null> {
  await abandonSession(deps, hosted.session, reason);
  return exitUrl(hosted.session, 'abandoned');
}

/** A wallet account of the session, and what its ownership proof proves: its address, or its descriptor. */
export interface WalletToProve {
  account: Account;
  /** The wallet's descriptor (a one-address wallet's `addr(…)` is proven as that address). */
  subject: string;
  /**
   * Who will control the claim: the account holder's e-mail address as the client has it now,
   * the only identity a session knows the person by (docs/verify.md, "Who controls a claim").
   */
  controller: string;
}

/**
 * The session's account `accountId` if it is a self-custody Bitcoin wallet (the only kind whose
 * ownership can be proven here), with the address or descriptor it was connected with.
 */
export async function walletToProve(deps: HostedFlowDeps, hosted: HostedSession, accountId: string): Promise<WalletToProve | undefined> {
  const account = hosted.accounts.find((a) => a.id === accountId && a.provider.type === 'wallet' && a.provider.id === 'bitcoin');
  if (!account) return undefined;
  const row = await findAccountById(deps.db, accountId);
  if (!row || row.session_id !== hosted.session.id) return undefined;
  const { descriptor } = openConnection(deps.secretBox, row);
  if (!descriptor) return undefined;
  const holder = await retrieveAccountHolder(
    deps,
    { clientId: hosted.session.client_id, mode: hosted.mode },
    hosted.session.account_holder_id,
  );
  return { account, subject: descriptor, controller: emailIdentity(holder.email) };
}

/**
 * Who proves a wallet of the session, for whom, and what its claim does to the session: proven as
 * the session's account holder for the session's client, bound to the holder's address, and
 * recorded on its account (`markAccountProven`). The proof pages and the test helper both start
 * the proof from this.
 */
export function walletProofRequest(deps: Pick<HostedFlowDeps, 'clock' | 'capabilities'>, hosted: HostedSession, wallet: WalletToProve) {
  return {
    scope: { clientId: hosted.session.client_id, mode: hosted.mode },
    accountHolderId: hosted.session.account_holder_id,
    requesterName: hosted.clientName,
    origin: { kind: 'connect_session', session_id: hosted.session.id, account_id: wallet.account.id },
    controller: wallet.controller,
    alsoInTransaction: markAccountProven(deps, { id: wallet.account.id, sessionId: hosted.session.id }),
  } satisfies ProofRequest & FinishOptions;
}

/**
 * Records on the account the claim that proves it, in the claim's own transaction — while the
 * session is open. A proof that ends after Done or Cancel stays the person's own claim, unshared,
 * and no account of the finished session names it.
 */
export function markAccountProven(deps: Pick<HostedFlowDeps, 'clock' | 'capabilities'>, account: { id: string; sessionId: string }) {
  return async (trx: Transaction<Database>, claim: { id: string }) => {
    if (!(await lockOpenSession(trx, deps.capabilities, account.sessionId))) return;
    await updateAccount(trx, account.id, { claim_id: claim.id, updated_at: unixSeconds(deps.clock) });
  };
}
