import { clientDisplayName } from '../../clients/client.service.js';
import { findAccessRequestById, listRequestsOfHolders } from '../access-request.repository.js';
import { expireIfDue, type AccessRequestDeps } from '../access-request.service.js';
import { activeGrantsOfHolders, claimsOfHolders } from '../claim.repository.js';
import type { ClaimStatement } from '../claim.schemas.js';
import type { AccessRequestRow, ClaimRow } from '../verify.table.js';
import type { PersonHolder, PortalPerson } from './portal-auth.service.js';

/** A request as the portal shows it: with its requester's name. */
export interface PortalRequest {
  row: AccessRequestRow;
  holder: PersonHolder;
}

/** A claim of the person, with whom it is shared. */
export interface PortalClaim {
  row: ClaimRow;
  statement: ClaimStatement;
  holder: PersonHolder;
  sharedWith: { clientId: string; clientName: string; permissions: string[]; since: number }[];
}

function holderOf(person: PortalPerson, accountHolderId: string): PersonHolder | undefined {
  return person.holders.find((h) => h.id === accountHolderId);
}

/** Every request to the person, pending first, each brought up to date (a request past its deadline reads `expired`). */
export async function personRequests(deps: AccessRequestDeps, person: PortalPerson): Promise<PortalRequest[]> {
  const rows = await listRequestsOfHolders(deps.db, person.holders.map((h) => h.id));
  const requests: PortalRequest[] = [];
  for (const row of rows) requests.push({ row: await expireIfDue(deps, row), holder: holderOf(person, row.account_holder_id) as PersonHolder });
  return [...requests.filter((r) => r.row.status === 'pending'), ...requests.filter((r) => r.row.status !== 'pending')];
}

/** One request to the person; undefined for anyone else's id, exactly as for a missing one. */
export async function personRequest(deps: AccessRequestDeps, person: PortalPerson, id: string): Promise<PortalRequest | undefined> {
  const row = await findAccessRequestById(deps.db, id);
  const holder = row ? holderOf(person, row.account_holder_id) : undefined;
  if (!row || !holder) return undefined;
  return { row: await expireIfDue(deps, row), holder };
}

/** The person's claims (all of their account holders', or one's), newest first, with their sharing. */
export async function personClaims(deps: Pick<AccessRequestDeps, 'db'>, person: PortalPerson, onlyHolderId?: string): Promise<PortalClaim[]> {
  const holderIds = person.holders.map((h) => h.id).filter((id) => onlyHolderId === undefined || id === onlyHolderId);
  const [claims, grants] = await Promise.all([claimsOfHolders(deps.db, holderIds), activeGrantsOfHolders(deps.db, holderIds)]);
  const names = new Map(person.holders.map((h) => [h.clientId, h.clientName]));
  for (const grant of grants) if (!names.has(grant.client_id)) names.set(grant.client_id, (await clientDisplayName(deps, grant.client_id)) ?? 'A client');
  return claims.map((row) => ({
    row,
    statement: JSON.parse(row.statement) as ClaimStatement,
    holder: holderOf(person, row.account_holder_id) as PersonHolder,
    sharedWith: grants
      .filter((g) => g.claim_id === row.id)
      .map((g) => ({ clientId: g.client_id, clientName: names.get(g.client_id) as string, permissions: JSON.parse(g.permissions) as string[], since: g.created_at })),
  }));
}
