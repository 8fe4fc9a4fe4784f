import { requireAccountHolderParam } from '../../connect/account-holder.service.js';
import { unixSeconds } from '../../platform/clock.js';
import type { AppContext } from '../../platform/context.js';
import { newId } from '../../platform/crypto/random.js';
import type { EventType } from '../../platform/events/event.schemas.js';
import { recordEvent } from '../../platform/events/event.service.js';
import { ApiError, notFound } from '../../platform/http/errors.js';
import { resolvePage } from '../../platform/http/pagination.js';
import { enqueueJob } from '../../platform/jobs/enqueue.js';
import type { Scope } from '../../platform/scope.js';
import { expireAccessRequestJob, notifyAccessRequestJob } from './access-request.job.js';
import {
  encodeRequestClaimIds,
  encodeRequestPermissions,
  findAccessRequest,
  findAccessRequestById,
  insertAccessRequest,
  listAccessRequestRows,
  requestClaimIds,
  requestPermissions,
  updatePendingRequest,
} from './access-request.repository.js';
import {
  DEFAULT_REQUEST_TTL_SECONDS,
  MAX_REQUEST_TTL_SECONDS,
  MIN_REQUEST_TTL_SECONDS,
  type AccessRequest,
  type AccessRequestListQuery,
  type CreateAccessRequestInput,
} from './access-request.schemas.js';
import { claimsOfController } from '../claims/claim.repository.js';
import { reachableModes } from './portal/portal-auth.service.js';
import { shareClaim, type ClaimOwner } from './sharing.service.js';
import type { AccessRequestRow, ClaimRow } from '../verify.table.js';

export type AccessRequestDeps = Pick<AppContext, 'db' | 'clock' | 'mailer' | 'capabilities'>;

export function toAccessRequest(row: AccessRequestRow): AccessRequest {
  return {
    id: row.id,
    object: 'access_request',
    type: row.type,
    status: row.status,
    account_holder_id: row.account_holder_id,
    permissions: requestPermissions(row),
    claim_ids: requestClaimIds(row),
    message: row.message,
    notification: { status: row.notification_status, last_error: row.notification_error, sent_at: row.notification_sent_at },
    created_at: row.created_at,
    expires_at: row.expires_at,
    responded_at: row.responded_at,
    livemode: row.mode === 'live',
  };
}

/**
 * Creates a sharing request and queues its e-mail and its expiry. Refuses the `statement` type
 * (one-time access is not offered through the API), an account holder of no one's this client and
 * mode, an expiry outside an hour … 90 days, and a request whose e-mail cannot reach the person: in
 * live mode when mail would only reach the development outbox, in any mode when the server sends
 * no mail at all (production without SMTP_URL).
 */
export async function createAccessRequest(deps: AccessRequestDeps, scope: Scope, input: CreateAccessRequestInput): Promise<AccessRequest> {
  if (input.type === 'statement') throw new ApiError('access_request_type_unsupported', { param: 'type' });
  await requireAccountHolderParam(deps, scope, input.account_holder_id, 'account_holder_id');
  const now = unixSeconds(deps.clock);
  const expiresAt = input.expires_at ?? now + DEFAULT_REQUEST_TTL_SECONDS;
  if (expiresAt < now + MIN_REQUEST_TTL_SECONDS || expiresAt > now + MAX_REQUEST_TTL_SECONDS) {
    throw new ApiError('parameter_invalid', {
      param: 'expires_at',
      message: `Invalid value for expires_at: must be between one hour and 90 days from now (${now + MIN_REQUEST_TTL_SECONDS} to ${now + MAX_REQUEST_TTL_SECONDS}).`,
    });
  }
  if (!reachableModes(deps.mailer).includes(scope.mode)) throw new ApiError('mail_unavailable');
  const row: AccessRequestRow = {
    seq: 0,
    id: newId('ar'),
    client_id: scope.clientId,
    mode: scope.mode,
    account_holder_id: input.account_holder_id,
    type: 'sharing',
    permissions: encodeRequestPermissions(input.permissions),
    message: input.message ?? null,
    status: 'pending',
    claim_ids: encodeRequestClaimIds([]),
    notification_status: 'pending',
    notification_error: null,
    notification_sent_at: null,
    created_at: now,
    updated_at: now,
    expires_at: expiresAt,
    responded_at: null,
  };
  const { seq: _seq, ...values } = row;
  await deps.db.transaction().execute(async (trx) => {
    await insertAccessRequest(trx, values);
    await enqueueJob(
      trx,
      deps.clock,
      notifyAccessRequestJob,
      { access_request_id: row.id },
      { dedupeKey: `verify.notify_access_request:${row.id}` },
    );
    await enqueueJob(
      trx,
      deps.clock,
      expireAccessRequestJob,
      { access_request_id: row.id },
      { runAt: expiresAt * 1000, dedupeKey: `verify.expire_access_request:${row.id}` },
    );
  });
  return toAccessRequest(row);
}

export async function retrieveAccessRequest(deps: AccessRequestDeps, scope: Scope, id: string): Promise<AccessRequest> {
  const row = await findAccessRequest(deps.db, scope, id);
  if (!row) throw notFound('access_request', id);
  return toAccessRequest(await expireIfDue(deps, row));
}

export async function listAccessRequests(deps: AccessRequestDeps, scope: Scope, query: AccessRequestListQuery) {
  if (query.account_holder_id !== undefined) await requireAccountHolderParam(deps, scope, query.account_holder_id, 'account_holder_id');
  const page = await resolvePage(query, async (id) => (await findAccessRequest(deps.db, scope, id))?.seq);
  const filter = {
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.account_holder_id === undefined ? {} : { accountHolderId: query.account_holder_id }),
  };
  const { rows, hasMore } = await listAccessRequestRows(deps.db, scope, filter, page);
  const data: AccessRequest[] = [];
  for (const row of rows) data.push(toAccessRequest(await expireIfDue(deps, row)));
  return { data, has_more: hasMore };
}

/** Ends a pending request with a new status and its event, in one transaction; undefined when it was no longer pending. */
async function endRequest(
  deps: AccessRequestDeps,
  row: AccessRequestRow,
  status: 'declined' | 'expired' | 'canceled',
): Promise<AccessRequestRow | undefined> {
  const now = unixSeconds(deps.clock);
  return deps.db.transaction().execute(async (trx) => {
    const ended = await updatePendingRequest(trx, row.id, { status, responded_at: now, updated_at: now });
    if (ended)
      await recordEvent(
        { db: trx, clock: deps.clock },
        { clientId: row.client_id, mode: row.mode },
        `access_request.${status}` as EventType,
        toAccessRequest(ended),
      );
    return ended;
  });
}

/** The client withdraws a pending request; 409 once it was answered, expired or canceled. */
export async function cancelAccessRequest(deps: AccessRequestDeps, scope: Scope, id: string): Promise<AccessRequest> {
  const row = await findAccessRequest(deps.db, scope, id);
  if (!row) throw notFound('access_request', id);
  const current = await expireIfDue(deps, row);
  const canceled = current.status === 'pending' ? await endRequest(deps, current, 'canceled') : undefined;
  if (!canceled) throw await notPending(deps, scope, current, 'canceled');
  return toAccessRequest(canceled);
}

/** 409 for a request that is no longer pending (as read now), saying what it is. */
export async function notPending(
  deps: Pick<AccessRequestDeps, 'db'>,
  scope: Scope,
  row: AccessRequestRow,
  only: string,
): Promise<ApiError> {
  const latest = (await findAccessRequest(deps.db, scope, row.id)) ?? row;
  return new ApiError('access_request_not_pending', {
    param: 'id',
    message: `The access request is ${latest.status}; only a pending request can be ${only}.`,
  });
}

/**
 * Pending requests past their deadline expire when anyone looks at them, so reads never show a
 * stale `pending` even when no worker has run the expiry job yet.
 */
export async function expireIfDue(deps: AccessRequestDeps, row: AccessRequestRow): Promise<AccessRequestRow> {
  if (row.status !== 'pending' || unixSeconds(deps.clock) < row.expires_at) return row;
  return (await endRequest(deps, row, 'expired')) ?? (await findAccessRequestById(deps.db, row.id)) ?? row;
}

export type AnswerOutcome =
  | { ok: true; request: AccessRequestRow }
  | { ok: false; reason: 'not_pending' | 'no_claims' }
  /** `claimId`: the first picked claim that cannot be shared. */
  | { ok: false; reason: 'claim_not_yours'; claimId: string };

/**
 * The active claims the person acting may share in answer to a request: those they control,
 * proven as the request's own account holder (a claim proven for another client stays with that
 * client). The portal's picker shows exactly these.
 */
export async function shareableClaims(deps: Pick<AccessRequestDeps, 'db'>, row: AccessRequestRow, owner: ClaimOwner): Promise<ClaimRow[]> {
  return (await claimsOfController(deps.db, owner.controller, owner.modes)).filter(
    (c) => c.status === 'active' && c.mode === row.mode && c.account_holder_id === row.account_holder_id,
  );
}

/**
 * The person shares the claims they picked: each gets a grant to the requesting client with the
 * request's permissions, and the request turns `granted` with `access_request.granted` (the
 * spec's "access granted" webhook), all in one transaction. Only {@link shareableClaims} can be
 * shared: whoever now reads the holder's address cannot give away what another address proved.
 */
export async function grantAccessRequest(
  deps: AccessRequestDeps,
  row: AccessRequestRow,
  owner: ClaimOwner,
  claimIds: readonly string[],
): Promise<AnswerOutcome> {
  const current = await expireIfDue(deps, row);
  if (current.status !== 'pending') return { ok: false, reason: 'not_pending' };
  const picked = [...new Set(claimIds)];
  if (picked.length === 0) return { ok: false, reason: 'no_claims' };
  const own = new Set((await shareableClaims(deps, row, owner)).map((c) => c.id));
  const foreign = picked.find((id) => !own.has(id));
  if (foreign !== undefined) return { ok: false, reason: 'claim_not_yours', claimId: foreign };
  const now = unixSeconds(deps.clock);
  const scope: Scope = { clientId: row.client_id, mode: row.mode };
  const permissions = requestPermissions(row);
  try {
    const granted = await deps.db.transaction().execute(async (trx) => {
      const ended = await updatePendingRequest(trx, row.id, {
        status: 'granted',
        claim_ids: encodeRequestClaimIds(picked),
        responded_at: now,
        updated_at: now,
      });
      if (!ended) return undefined;
      for (const claimId of picked) {
        // Revoked in another tab since the check above: nothing of this approval stands.
        if (!(await shareClaim(trx, deps, { scope, claimId, permissions, source: `access_request:${row.id}` })))
          throw new ClaimNoLongerShareable(claimId);
      }
      await recordEvent({ db: trx, clock: deps.clock }, scope, 'access_request.granted', toAccessRequest(ended));
      return ended;
    });
    return granted ? { ok: true, request: granted } : { ok: false, reason: 'not_pending' };
  } catch (error) {
    if (error instanceof ClaimNoLongerShareable) return { ok: false, reason: 'claim_not_yours', claimId: error.claimId };
    throw error;
  }
}

/** Rolls an approval back when a picked claim stopped being shareable while it ran. */
class ClaimNoLongerShareable extends Error {
  constructor(readonly claimId: string) {
    super('a picked claim is no longer active');
  }
}

/** The person says no (`access_request.declined`). */
export async function declineAccessRequest(deps: AccessRequestDeps, row: AccessRequestRow): Promise<AnswerOutcome> {
  const current = await expireIfDue(deps, row);
  if (current.status !== 'pending') return { ok: false, reason: 'not_pending' };
  const declined = await endRequest(deps, current, 'declined');
  return declined ? { ok: true, request: declined } : { ok: false, reason: 'not_pending' };
}
