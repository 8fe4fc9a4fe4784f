import { unixSeconds } from '../platform/clock.js';
import type { AppContext } from '../platform/context.js';
import { hashSecret, newId, newSecret } from '../platform/crypto/random.js';
import { recordEvent } from '../platform/events/event.service.js';
import { ApiError, notFound } from '../platform/http/errors.js';
import { resolvePage } from '../platform/http/pagination.js';
import { enqueueJob } from '../platform/jobs/enqueue.js';
import type { Scope } from '../platform/scope.js';
import { requireAccountHolderParam } from './account-holder.service.js';
import { accountIdsBySession, sessionAccountRows, updateAccount } from './account.repository.js';
import { erasedConnection } from './stored-connection.js';
import type { SessionRow } from './connect.table.js';
import { returnUrlProblem, returnUrlWith } from './return-url.js';
import {
  consentOpenSession,
  encodeSessionPermissions,
  findSession,
  findSessionById,
  insertSession,
  listSessionRows,
  lockOpenSession,
  sessionPermissions,
  updateOpenSession,
} from './session.repository.js';
import type { CreateSessionInput, Session, SessionListQuery } from './session.schemas.js';
import { expireSessionJob } from './expire-session.job.js';
import { shareSessionClaims } from '../verify/access/sharing.service.js';

export type ConnectDeps = Pick<AppContext, 'db' | 'clock' | 'config' | 'secretBox' | 'capabilities'>;

const SECRET_PURPOSE = 'connect_session.client_secret';

/** The session's client secret: the last path segment of its hosted pages. */
export function sessionSecret(deps: Pick<ConnectDeps, 'secretBox'>, row: SessionRow): string {
  return deps.secretBox.open(row.client_secret_sealed, `${SECRET_PURPOSE}:${row.id}`);
}

/** The hosted pages of a session: the account holder is sent there. */
function hostedUrl(deps: Pick<ConnectDeps, 'config'>, secret: string): string {
  return `${deps.config.connectBaseUrl}/${secret}`;
}

/**
 * The session as the API shows it after its creation: without its secret (`client_secret` and
 * `hosted_url` are null), so retrieve, list, events and webhook bodies never carry it. Only the
 * create response (and its idempotent replay, saved sealed) has them. Account ids appear once the
 * session is completed; pass them when already known (lists fetch them for a whole page at once).
 */
export async function toSession(deps: ConnectDeps, row: SessionRow, accountIds?: string[]): Promise<Session> {
  const accounts = row.status !== 'completed' ? [] : (accountIds ?? (await accountIdsBySession(deps.db, [row.id])).get(row.id) ?? []);
  return {
    id: row.id,
    object: 'session',
    account_holder: row.account_holder_id,
    client_secret: null,
    hosted_url: null,
    status: row.status,
    permissions: sessionPermissions(row),
    accounts,
    account_ids: accounts,
    return_url: row.return_url,
    expires_at: row.expires_at,
    created_at: row.created_at,
    livemode: row.mode === 'live',
  };
}

/** Starts a hosted connection flow for one of the client's account holders. */
export async function createSession(deps: ConnectDeps, scope: Scope, input: CreateSessionInput): Promise<Session> {
  await requireAccountHolderParam(deps, scope, input.account_holder, 'account_holder');
  if (input.return_url !== undefined) {
    const problem = returnUrlProblem(input.return_url, scope.mode);
    if (problem) throw new ApiError('parameter_invalid', { param: 'return_url', message: `Invalid value for return_url: ${problem}.` });
  }
  const now = unixSeconds(deps.clock);
  const id = newId('sess');
  const secret = newSecret(`cs_${scope.mode}`);
  const row: SessionRow = {
    seq: 0,
    id,
    client_id: scope.clientId,
    mode: scope.mode,
    account_holder_id: input.account_holder,
    client_secret_hash: hashSecret(secret),
    client_secret_sealed: deps.secretBox.seal(secret, `${SECRET_PURPOSE}:${id}`),
    status: 'open',
    permissions: encodeSessionPermissions(input.permissions),
    return_url: input.return_url ?? null,
    consented_at: null,
    browser_hash: null,
    expires_at: now + deps.config.sessionTtlSeconds,
    abandon_reason: null,
    failed_logins: 0,
    created_at: now,
    updated_at: now,
  };
  const { seq: _seq, ...values } = row;
  await deps.db.transaction().execute(async (trx) => {
    await insertSession(trx, values);
    // Expiry is a job at the deadline, so the abandoned event fires even if nobody looks again.
    await enqueueJob(
      trx,
      deps.clock,
      expireSessionJob,
      { session_id: id },
      { runAt: row.expires_at * 1000, dedupeKey: `connect.expire_session:${id}` },
    );
  });
  // Shown this once, as a Stripe client secret or a Plaid link token is: whoever reads sessions
  // later (a log of API responses, a webhook consumer) cannot open the hosted pages.
  return { ...(await toSession(deps, row)), client_secret: secret, hosted_url: hostedUrl(deps, secret) };
}

export async function retrieveSession(deps: ConnectDeps, scope: Scope, id: string): Promise<Session> {
  let row = await findSession(deps.db, scope, id);
  if (!row) throw notFound('session', id);
  row = await expireIfDue(deps, row);
  return toSession(deps, row);
}

export async function listSessions(deps: ConnectDeps, scope: Scope, query: SessionListQuery) {
  if (query.account_holder !== undefined) await requireAccountHolderParam(deps, scope, query.account_holder, 'account_holder');
  const page = await resolvePage(query, async (cursor) => (await findSession(deps.db, scope, cursor))?.seq);
  const filter = query.account_holder === undefined ? {} : { accountHolderId: query.account_holder };
  const { rows, hasMore } = await listSessionRows(deps.db, scope, filter, page);
  const current = [];
  for (const row of rows) current.push(await expireIfDue(deps, row));
  const accountIds = await accountIdsBySession(
    deps.db,
    current.filter((row) => row.status === 'completed').map((row) => row.id),
  );
  const data = [];
  for (const row of current) data.push(await toSession(deps, row, accountIds.get(row.id)));
  return { data, has_more: hasMore };
}

/**
 * Open sessions past their deadline are abandoned when anyone looks at them, so reads never show a
 * stale `open` even when no worker has run the expiry job yet.
 */
export async function expireIfDue(deps: ConnectDeps, row: SessionRow): Promise<SessionRow> {
  if (row.status !== 'open' || unixSeconds(deps.clock) < row.expires_at) return row;
  return (await abandonSession(deps, row, 'expired')) ?? (await findSessionById(deps.db, row.id)) ?? row;
}

/** Where the browser goes after the flow ends: the return URL with the outcome, or nowhere. */
export function exitUrl(row: Pick<SessionRow, 'id' | 'return_url'>, status: 'completed' | 'abandoned'): string | null {
  return row.return_url ? returnUrlWith(row.return_url, { session_id: row.id, status }) : null;
}

/**
 * The account holder accepted the disclaimer (first step of the hosted flow) in this browser,
 * which the session now belongs to. Returns the token for that browser's cookie; undefined when
 * the session was accepted before (by this browser, which has its token, or by another).
 */
export async function recordConsent(deps: ConnectDeps, row: SessionRow): Promise<string | undefined> {
  const now = unixSeconds(deps.clock);
  const token = newSecret('cb');
  const consented = await consentOpenSession(deps.db, row.id, { consented_at: now, browser_hash: hashSecret(token), updated_at: now });
  return consented ? token : undefined;
}

/**
 * Whether a request comes from the browser the session belongs to: any before the disclaimer was
 * accepted (or for a session accepted before browsers were recorded), afterwards only the one
 * that accepted it, by the token in its cookie.
 */
export function isSessionBrowser(row: Pick<SessionRow, 'browser_hash'>, token: string | undefined): boolean {
  return row.browser_hash === null || (token !== undefined && hashSecret(token) === row.browser_hash);
}

/**
 * The account holder finished: the session completes with the accounts connected in it, and the
 * wallets proven in it are shared with the client (the disclaimer's "only when you choose Done").
 * Refused (false) when nothing was connected — the flow offers Cancel then — or the session
 * already ended.
 */
export async function completeSession(deps: ConnectDeps, row: SessionRow): Promise<boolean> {
  const now = unixSeconds(deps.clock);
  const scope: Scope = { clientId: row.client_id, mode: row.mode };
  return deps.db.transaction().execute(async (trx) => {
    // Locked first, so a proof finishing at this moment either lands before (and is shared) or
    // finds the session ended (markAccountProven).
    if (!(await lockOpenSession(trx, deps.capabilities, row.id))) return false;
    const accounts = await sessionAccountRows(trx, row.id);
    if (accounts.length === 0) return false;
    const completed = await updateOpenSession(trx, row.id, { status: 'completed', updated_at: now });
    if (!completed) return false;
    const claimIds = accounts.flatMap((a) => (a.claim_id === null ? [] : [a.claim_id]));
    await shareSessionClaims(trx, deps, { id: row.id, scope, permissions: sessionPermissions(row) }, claimIds);
    await recordEvent(
      { db: trx, clock: deps.clock },
      scope,
      'session.completed',
      await toSession(
        { ...deps, db: trx },
        completed,
        accounts.map((a) => a.id),
      ),
    );
    return true;
  });
}

/**
 * Ends the session without a result (cancelled, expired, or the flow could not start). Accounts
 * connected in it so far are disconnected and their credentials erased: the account holder did
 * not finish, so the client never receives them, nor any claim proven in it (the claim stays the
 * person's own, unshared, in the portal). Returns the abandoned session, or undefined when it had
 * already ended.
 */
export async function abandonSession(
  deps: ConnectDeps,
  row: SessionRow,
  reason: 'cancelled' | 'expired' | 'initialization_failed',
): Promise<SessionRow | undefined> {
  const now = unixSeconds(deps.clock);
  const scope: Scope = { clientId: row.client_id, mode: row.mode };
  return deps.db.transaction().execute(async (trx) => {
    const abandoned = await updateOpenSession(trx, row.id, { status: 'abandoned', abandon_reason: reason, updated_at: now });
    if (!abandoned) return undefined;
    for (const account of await sessionAccountRows(trx, row.id)) {
      await updateAccount(trx, account.id, {
        status: 'disconnected',
        connection_sealed: erasedConnection(deps.secretBox, account.id),
        updated_at: now,
      });
    }
    await recordEvent({ db: trx, clock: deps.clock }, scope, 'session.abandoned', await toSession({ ...deps, db: trx }, abandoned));
    return abandoned;
  });
}
