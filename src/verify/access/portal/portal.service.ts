import { clientDisplayName } from '../../../clients/client.service.js';
import { findAccessRequestById, listRequestsOfHolders } from '../access-request.repository.js';
import { expireIfDue, shareableClaims, type AccessRequestDeps } from '../access-request.service.js';
import { activeGrantsOfClaims, claimsOfController, claimStatement, grantPermissions } from '../../claims/claim.repository.js';
import type { ClaimStatement } from '../../claims/claim.schemas.js';
import type { AccessRequestRow, ClaimRow } from '../../verify.table.js';
import { ownerOf, type PersonHolder, type PortalPerson } from './portal-auth.service.js';

/** A request as the portal shows it: with its requester's name. */
export interface PortalRequest {
  row: AccessRequestRow;
  holder: PersonHolder;
}

/** A client's access to a claim, as the portal lists it. */
export interface PortalShare {
  clientId: string;
  clientName: string;
  permissions: string[];
  since: number;
}

/** A claim the person controls, with whom it is shared. */
export interface PortalClaim {
  row: ClaimRow;
  statement: ClaimStatement;
  /** The client it was proven for, as the person knows it. */
  clientName: string;
  sharedWith: PortalShare[];
}

function holderOf(person: PortalPerson, accountHolderId: string): PersonHolder | undefined {
  return person.holders.find((h) => h.id === accountHolderId);
}

/** Every request to the person, pending first, each brought up to date (a request past its deadline reads `expired`). */
export async function personRequests(deps: AccessRequestDeps, person: PortalPerson): Promise<PortalRequest[]> {
  const rows = await listRequestsOfHolders(
    deps.db,
    person.holders.map((h) => h.id),
  );
  const requests: PortalRequest[] = [];
  for (const row of rows)
    requests.push({ row: await expireIfDue(deps, row), holder: holderOf(person, row.account_holder_id) as PersonHolder });
  return [...requests.filter((r) => r.row.status === 'pending'), ...requests.filter((r) => r.row.status !== 'pending')];
}

/** One request to the person; undefined for anyone else's id, exactly as for a missing one. */
export async function personRequest(deps: AccessRequestDeps, person: PortalPerson, id: string): Promise<PortalRequest | undefined> {
  const row = await findAccessRequestById(deps.db, id);
  const holder = row ? holderOf(person, row.account_holder_id) : undefined;
  if (!row || !holder) return undefined;
  return { row: await expireIfDue(deps, row), holder };
}

/**
 * Claim rows with the names of the clients they were proven for and are shared with. Client
 * names are looked up once each.
 */
async function withSharing(deps: Pick<AccessRequestDeps, 'db'>, claims: ClaimRow[]): Promise<PortalClaim[]> {
  const grants = await activeGrantsOfClaims(
    deps.db,
    claims.map((c) => c.id),
  );
  const names = new Map<string, string>();
  const nameOf = async (clientId: string) => {
    if (!names.has(clientId)) names.set(clientId, (await clientDisplayName(deps, clientId)) ?? 'A client');
    return names.get(clientId) as string;
  };
  const result: PortalClaim[] = [];
  for (const row of claims) {
    const sharedWith: PortalShare[] = [];
    for (const grant of grants.filter((g) => g.claim_id === row.id)) {
      sharedWith.push({
        clientId: grant.client_id,
        clientName: await nameOf(grant.client_id),
        permissions: grantPermissions(grant),
        since: grant.created_at,
      });
    }
    result.push({ row, statement: claimStatement(row), clientName: await nameOf(row.client_id), sharedWith });
  }
  return result;
}

/**
 * The claims the person controls, newest first, with their sharing: those proven under their
 * address, whichever account holder has the address now (docs/verify.md, "Who controls a claim").
 */
export async function personClaims(deps: Pick<AccessRequestDeps, 'db'>, person: PortalPerson): Promise<PortalClaim[]> {
  return withSharing(deps, await claimsOfController(deps.db, person.email, person.modes));
}

/** The claims the person may share in answer to a request (the review page's picker), with their sharing. */
export async function requestClaims(
  deps: Pick<AccessRequestDeps, 'db'>,
  person: PortalPerson,
  request: PortalRequest,
): Promise<PortalClaim[]> {
  return withSharing(deps, await shareableClaims(deps, request.row, ownerOf(person)));
}
