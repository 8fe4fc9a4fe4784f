import type { Transaction } from 'kysely';
import { unixSeconds } from '../../platform/clock.js';
import type { AppContext } from '../../platform/context.js';
import type { Database } from '../../platform/db/schema.js';
import { recordEvent } from '../../platform/events/event.service.js';
import type { Mode, Scope } from '../../platform/scope.js';
import { ACCESS_PERMISSIONS, type AccessPermission } from './access-request.schemas.js';
import {
  encodeGrantPermissions,
  findClaimById,
  findClaimForUpdate,
  findGrantForUpdate,
  grantPermissions,
  revokeAllGrantRows,
  revokeClaimRow,
  revokeGrantRow,
  upsertGrant,
} from '../claims/claim.repository.js';
import type { Claim } from '../claims/claim.schemas.js';
import { toClaim } from '../claims/claim.service.js';
import type { ClaimGrantRow, ClaimRow } from '../verify.table.js';

export type SharingDeps = Pick<AppContext, 'db' | 'clock' | 'capabilities'>;

/** One client's access to one claim, as the account holder gives it. */
export interface Share {
  scope: Scope;
  claimId: string;
  permissions: readonly string[];
  /** What gave it: `connect_session:sess_…`, `access_request:ar_…`. */
  source: string;
}

/**
 * Shares a claim with a client, in the caller's transaction. One grant per (client, claim): a
 * second share widens an active grant to the union of both (a later, narrower request never takes
 * away what the person already granted); a revoked grant is replaced by the new one. The claim is
 * read locked first and shared only while active, so a revocation racing this share (another tab
 * of the person's) is never undone by it. Returns the claim shared; undefined when it was not.
 */
export async function shareClaim(
  trx: Transaction<Database>,
  deps: Pick<SharingDeps, 'clock' | 'capabilities'>,
  share: Share,
): Promise<ClaimRow | undefined> {
  const claim = await findClaimForUpdate(trx, deps.capabilities, share.claimId);
  if (!claim || claim.status !== 'active' || claim.client_id !== share.scope.clientId || claim.mode !== share.scope.mode) return undefined;
  const existing = await findGrantForUpdate(trx, deps.capabilities, share.scope.clientId, share.claimId);
  const kept = existing && existing.revoked_at === null ? grantPermissions(existing) : [];
  const permissions = ACCESS_PERMISSIONS.filter((p) => kept.includes(p) || share.permissions.includes(p));
  await upsertGrant(trx, {
    client_id: share.scope.clientId,
    mode: share.scope.mode,
    claim_id: share.claimId,
    permissions: encodeGrantPermissions(permissions),
    source: share.source,
    created_at: unixSeconds(deps.clock),
    revoked_at: null,
  });
  return claim;
}

/**
 * What a connect session's client may see of a claim proven in it: `balances` if the session asked
 * for balances, `statements` if it asked for transactions (a statement is a claim's transaction
 * history). docs/verify.md, "Sharing".
 */
function sessionSharePermissions(sessionPermissions: readonly string[]): AccessPermission[] {
  return [
    ...(sessionPermissions.includes('balances') ? (['balances'] as const) : []),
    ...(sessionPermissions.includes('transactions') ? (['statements'] as const) : []),
  ];
}

/**
 * The person chose Done in a connect session: the claims they proved in it are shared with the
 * session's client (`claim.created` to it), in the session's completion transaction. Until then,
 * and for ever when the session is abandoned, the client sees none of them. A claim the person
 * revoked meanwhile, or one that is not of the session's tenancy, is left alone.
 */
export async function shareSessionClaims(
  trx: Transaction<Database>,
  deps: Pick<SharingDeps, 'clock' | 'capabilities'>,
  session: { id: string; scope: Scope; permissions: readonly string[] },
  claimIds: readonly string[],
): Promise<void> {
  const permissions = sessionSharePermissions(session.permissions);
  for (const claimId of claimIds) {
    const shared = await shareClaim(trx, deps, { scope: session.scope, claimId, permissions, source: `connect_session:${session.id}` });
    if (shared) await recordEvent({ db: trx, clock: deps.clock }, session.scope, 'claim.created', toClaim(shared));
  }
}

/** The claim as an event shows a client whose access ended. */
function claimWithAccess(claim: ClaimRow, grant: ClaimGrantRow): Claim {
  return {
    ...toClaim(claim),
    access: { permissions: grantPermissions(grant), granted_at: grant.created_at, revoked_at: grant.revoked_at },
  };
}

/** The identity acting in the portal: it manages the claims it controls, in the modes its sign-in reaches. */
export interface ClaimOwner {
  controller: string;
  modes: readonly Mode[];
}

/** Whether the person acting controls the claim (docs/verify.md, "Who controls a claim"). */
export function controls(owner: ClaimOwner, claim: Pick<ClaimRow, 'controller' | 'mode'>): boolean {
  return claim.controller === owner.controller && owner.modes.includes(claim.mode);
}

/**
 * The person stops sharing one claim with one client (`claim.access_revoked` to that client). At
 * once: the client's next read of the claim is a 404. A claim the person does not control is left
 * alone. Returns the claim as that event shows it when access was revoked now, else undefined.
 */
export async function revokeAccess(deps: SharingDeps, owner: ClaimOwner, clientId: string, claimId: string): Promise<Claim | undefined> {
  const now = unixSeconds(deps.clock);
  return deps.db.transaction().execute(async (trx) => {
    const claim = await findClaimById(trx, claimId);
    if (!claim || !controls(owner, claim)) return undefined;
    const grant = await revokeGrantRow(trx, clientId, claimId, now);
    if (!grant) return undefined;
    const revoked = claimWithAccess(claim, grant);
    await recordEvent({ db: trx, clock: deps.clock }, { clientId, mode: grant.mode }, 'claim.access_revoked', revoked);
    return revoked;
  });
}

/**
 * The person withdraws a claim: it turns `revoked` (the public receipt check says so) and stops
 * being shared with every client, each of which gets `claim.revoked`. Returns whether it was
 * revoked now.
 */
export async function revokeClaim(deps: SharingDeps, owner: ClaimOwner, claimId: string): Promise<boolean> {
  const now = unixSeconds(deps.clock);
  return deps.db.transaction().execute(async (trx) => {
    const existing = await findClaimById(trx, claimId);
    if (!existing || !controls(owner, existing)) return false;
    const claim = await revokeClaimRow(trx, claimId, now);
    if (!claim) return false;
    for (const grant of await revokeAllGrantRows(trx, claimId, now)) {
      await recordEvent(
        { db: trx, clock: deps.clock },
        { clientId: grant.client_id, mode: grant.mode },
        'claim.revoked',
        claimWithAccess(claim, grant),
      );
    }
    return true;
  });
}
