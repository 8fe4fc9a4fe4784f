import { retrieveAccountHolder } from '../../connect/account-holder.service.js';
import { ApiError, notFound } from '../../platform/http/errors.js';
import { requireTestMode } from '../../platform/http/test-helpers.js';
import { emailIdentity } from '../../platform/mail/address.js';
import type { Scope } from '../../platform/scope.js';
import { findAccessRequest } from './access-request.repository.js';
import type { AccessRequest } from './access-request.schemas.js';
import {
  declineAccessRequest,
  grantAccessRequest,
  notPending,
  shareableClaims,
  toAccessRequest,
  type AccessRequestDeps,
  type AnswerOutcome,
} from './access-request.service.js';
import type { ApproveAccessRequestInput } from './access-test-helpers.schemas.js';
import { findGrantedClaim } from '../claims/claim.repository.js';
import type { Claim } from '../claims/claim.schemas.js';
import { revokeAccess, type ClaimOwner } from './sharing.service.js';
import type { AccessRequestRow } from '../verify.table.js';

/*
 * Test helpers (docs/sandbox.md): the account holder's answers in the portal, given through the
 * API in test mode, by the portal's own services. What the portal refuses, they refuse.
 */

/** The client's request named in the path (404), in test mode (403). */
async function requestInTestMode(deps: Pick<AccessRequestDeps, 'db'>, scope: Scope, id: string): Promise<AccessRequestRow> {
  const row = await findAccessRequest(deps.db, scope, id);
  if (!row) throw notFound('access_request', id);
  requireTestMode(scope);
  return row;
}

/**
 * Who answers the request in the portal: whoever signs in with the account holder's address now,
 * the address its e-mail went to. They may share only the claims that address controls, proven as
 * this account holder (`shareableClaims`).
 */
async function answeringPerson(deps: Pick<AccessRequestDeps, 'db'>, scope: Scope, row: AccessRequestRow): Promise<ClaimOwner> {
  const holder = await retrieveAccountHolder(deps, scope, row.account_holder_id);
  return { controller: emailIdentity(holder.email), modes: [row.mode] };
}

/**
 * Approve and share, as the person would: the claims picked (or every claim the picker would
 * offer), each shared with the request's permissions, `access_request.granted`.
 */
export async function approveAccessRequestAsHolder(
  deps: AccessRequestDeps,
  scope: Scope,
  id: string,
  input: ApproveAccessRequestInput,
): Promise<AccessRequest> {
  const row = await requestInTestMode(deps, scope, id);
  const person = await answeringPerson(deps, scope, row);
  const picked = input.claim_ids ?? (await shareableClaims(deps, row, person)).map((claim) => claim.id);
  return answered(deps, scope, row, await grantAccessRequest(deps, row, person, picked), picked);
}

/** Decline, as the person would (`access_request.declined`). */
export async function declineAccessRequestAsHolder(deps: AccessRequestDeps, scope: Scope, id: string): Promise<AccessRequest> {
  const row = await requestInTestMode(deps, scope, id);
  return answered(deps, scope, row, await declineAccessRequest(deps, row), []);
}

/** The request as answered, or the API error for why the portal would have refused the answer. */
async function answered(
  deps: AccessRequestDeps,
  scope: Scope,
  row: AccessRequestRow,
  outcome: AnswerOutcome,
  picked: readonly string[],
): Promise<AccessRequest> {
  if (outcome.ok) return toAccessRequest(outcome.request);
  if (outcome.reason === 'claim_not_yours') {
    // One answer whatever the claim is (another holder's, another client's, revoked, unknown): it tells nothing of them.
    const index = picked.indexOf(outcome.claimId);
    const param = index === -1 ? 'claim_ids' : `claim_ids[${index}]`;
    throw new ApiError('parameter_invalid', {
      param,
      message: `Invalid value for ${param}: '${outcome.claimId}' is not a claim the account holder can share with this request.`,
    });
  }
  throw outcome.reason === 'no_claims' ? new ApiError('no_shareable_claims') : await notPending(deps, scope, row, 'approved or declined');
}

/**
 * The person stops sharing one claim with this client (the portal's Shared access → Revoke):
 * `claim.access_revoked`, and the claim is a 404 to the client at once. Acts as the identity that
 * controls the claim, who alone can revoke it in the portal. A claim not shared with the client now
 * is a 404.
 */
export async function revokeClaimAccessAsHolder(deps: AccessRequestDeps, scope: Scope, claimId: string): Promise<Claim> {
  const claim = await findGrantedClaim(deps.db, scope, claimId);
  if (!claim) throw notFound('claim', claimId);
  requireTestMode(scope);
  const revoked = await revokeAccess(deps, { controller: claim.controller, modes: [claim.mode] }, scope.clientId, claimId);
  // Revoked by another request in between: no longer shared, like any claim not shared.
  if (!revoked) throw notFound('claim', claimId);
  return revoked;
}
