import { Type } from '@sinclair/typebox';
import type { Insertable } from 'kysely';
import type { Db, DbCapabilities } from '../../platform/db/database.js';
import { fetchPage, type PageRequest } from '../../platform/http/pagination.js';
import type { Mode, Scope } from '../../platform/scope.js';
import type { ClaimGrantRow, ClaimGrantTable, ClaimRow, ClaimTable } from '../verify.table.js';
import { ofTenant } from '../../platform/db/of-tenant.js';
import { jsonColumn } from '../../platform/db/json-column.js';
import { AccessPermissionSchema, type AccessPermission } from '../access/access-request.schemas.js';
import { ClaimStatement } from './claim.schemas.js';

/** `verify_claims.statement`: everything the receipt signs. */
const CLAIM_STATEMENT = jsonColumn('verify_claims', 'statement', ClaimStatement);
/** `verify_claims.addresses`: a wallet claim's addresses found in use at verification. */
const CLAIM_ADDRESSES = jsonColumn('verify_claims', 'addresses', Type.Array(Type.String()));
/** `verify_claim_grants.permissions`: what the client may see of the claim. */
const GRANT_PERMISSIONS = jsonColumn('verify_claim_grants', 'permissions', Type.Array(AccessPermissionSchema));

/** The `statement` and `addresses` texts of a claim. */
export function encodeClaim(claim: { statement: ClaimStatement; addresses: string[] }): Pick<ClaimRow, 'statement' | 'addresses'> {
  return { statement: CLAIM_STATEMENT.encode(claim.statement), addresses: CLAIM_ADDRESSES.encode(claim.addresses) };
}

/** The claim's statement, as its receipt signs it. */
export function claimStatement(row: Pick<ClaimRow, 'id' | 'statement'>): ClaimStatement {
  return CLAIM_STATEMENT.decode(row.statement, row.id);
}

/** The addresses of the claim found in use when it was verified. */
export function claimAddresses(row: Pick<ClaimRow, 'id' | 'addresses'>): string[] {
  return CLAIM_ADDRESSES.decode(row.addresses, row.id);
}

/** What a grant lets its client see of the claim. */
export function grantPermissions(grant: Pick<ClaimGrantRow, 'seq' | 'permissions'>): AccessPermission[] {
  return GRANT_PERMISSIONS.decode(grant.permissions, `seq ${grant.seq}`);
}

/** The `permissions` text of a grant letting its client see these. */
export function encodeGrantPermissions(permissions: AccessPermission[]): string {
  return GRANT_PERMISSIONS.encode(permissions);
}

/** What the client's grant lets it see of a claim read through {@link findGrantedClaim} and its kin. */
export function grantedPermissions(row: Pick<GrantedClaimRow, 'grant_seq' | 'grant_permissions'>): AccessPermission[] {
  return grantPermissions({ seq: row.grant_seq, permissions: row.grant_permissions });
}

export async function insertClaim(db: Db, row: Insertable<ClaimTable>): Promise<void> {
  await db.insertInto('verify_claims').values(row).execute();
}

export async function findClaimById(db: Db, id: string): Promise<ClaimRow | undefined> {
  return db.selectFrom('verify_claims').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The claim, locked until the transaction ends where the engine has row locks (a share or a revocation decides on it). */
export async function findClaimForUpdate(
  trx: Db,
  capabilities: Pick<DbCapabilities, 'supportsRowLocks'>,
  id: string,
): Promise<ClaimRow | undefined> {
  const query = trx.selectFrom('verify_claims').selectAll().where('id', '=', id);
  return (capabilities.supportsRowLocks ? query.forUpdate() : query).executeTakeFirst();
}

/**
 * Claims as one client may see them: only through a grant of that client and mode that is not
 * revoked, of a claim that is not revoked (revoking a claim ends its grants in the same
 * transaction; this holds even if a grant were left).
 */
function grantedClaims(db: Db, scope: Scope) {
  return db
    .selectFrom('verify_claims as c')
    .innerJoin('verify_claim_grants as g', 'g.claim_id', 'c.id')
    .selectAll('c')
    .select(['g.permissions as grant_permissions', 'g.seq as grant_seq', 'g.created_at as grant_created_at'])
    .$call(ofTenant(scope, 'g'))
    .where('g.revoked_at', 'is', null)
    .where('c.status', '=', 'active');
}

/** A claim as one client may see it (see {@link grantedClaims}). */
export async function findGrantedClaim(db: Db, scope: Scope, id: string) {
  return grantedClaims(db, scope).where('c.id', '=', id).executeTakeFirst();
}

export type GrantedClaimRow = NonNullable<Awaited<ReturnType<typeof findGrantedClaim>>>;

/**
 * Several claims as one client may see them, in one query, by id; an id it cannot see is absent.
 * (A client has at most one grant per claim, so each id has at most one row.)
 */
export async function findGrantedClaims(db: Db, scope: Scope, ids: readonly string[]): Promise<Map<string, GrantedClaimRow>> {
  if (ids.length === 0) return new Map();
  const rows = await grantedClaims(db, scope).where('c.id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** Claims shared with a client, newest grant first. */
export async function listGrantedClaims(db: Db, scope: Scope, filter: { accountHolderId?: string }, page: PageRequest) {
  let query = grantedClaims(db, scope);
  if (filter.accountHolderId !== undefined) query = query.where('c.account_holder_id', '=', filter.accountHolderId);
  const { rows, hasMore } = await fetchPage(query.select('g.seq as seq'), page, 'g.seq');
  return { rows: rows as GrantedClaimRow[], hasMore };
}

/** The grant of a claim to a client, locked until the transaction ends where the engine has row locks. */
export async function findGrantForUpdate(
  trx: Db,
  capabilities: Pick<DbCapabilities, 'supportsRowLocks'>,
  clientId: string,
  claimId: string,
) {
  const query = trx.selectFrom('verify_claim_grants').selectAll().where('client_id', '=', clientId).where('claim_id', '=', claimId);
  return (capabilities.supportsRowLocks ? query.forUpdate() : query).executeTakeFirst();
}

/** Writes a grant as given: a new one, or the (client, claim) grant replaced (`revoked_at: null` restores a revoked one). */
export async function upsertGrant(db: Db, row: Insertable<ClaimGrantTable>): Promise<void> {
  await db
    .insertInto('verify_claim_grants')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['client_id', 'claim_id'])
        .doUpdateSet({ permissions: row.permissions, source: row.source, created_at: row.created_at, revoked_at: null }),
    )
    .execute();
}

/** Ends a client's access to a claim; returns the grant as it was, or undefined when there was no active one. */
export async function revokeGrantRow(db: Db, clientId: string, claimId: string, now: number) {
  return db
    .updateTable('verify_claim_grants')
    .set({ revoked_at: now })
    .where('client_id', '=', clientId)
    .where('claim_id', '=', claimId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Ends every client's access to a claim; returns the grants that were active. */
export async function revokeAllGrantRows(db: Db, claimId: string, now: number) {
  return db
    .updateTable('verify_claim_grants')
    .set({ revoked_at: now })
    .where('claim_id', '=', claimId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .execute();
}

/** Marks an active claim revoked; returns it as changed, or undefined when it was not active. */
export async function revokeClaimRow(db: Db, claimId: string, now: number): Promise<ClaimRow | undefined> {
  return db
    .updateTable('verify_claims')
    .set({ status: 'revoked', revoked_at: now, updated_at: now })
    .where('id', '=', claimId)
    .where('status', '=', 'active')
    .returningAll()
    .executeTakeFirst();
}

/** Claims of these account holders, newest first (a statement document's claims). */
export async function claimsOfHolders(db: Db, accountHolderIds: readonly string[]): Promise<ClaimRow[]> {
  if (accountHolderIds.length === 0) return [];
  return db.selectFrom('verify_claims').selectAll().where('account_holder_id', 'in', accountHolderIds).orderBy('seq', 'desc').execute();
}

/** Claims an identity controls in these modes, newest first (the portal's wallets, shared access and claim picker). */
export async function claimsOfController(db: Db, controller: string, modes: readonly Mode[]): Promise<ClaimRow[]> {
  if (modes.length === 0) return [];
  return db
    .selectFrom('verify_claims')
    .selectAll()
    .where('controller', '=', controller)
    .where('mode', 'in', modes)
    .orderBy('seq', 'desc')
    .execute();
}

/** Whether an identity controls any claim in these modes (it may then sign in to the portal). */
export async function controlsAnyClaim(db: Db, controller: string, modes: readonly Mode[]): Promise<boolean> {
  if (modes.length === 0) return false;
  return (
    (await db
      .selectFrom('verify_claims')
      .select('id')
      .where('controller', '=', controller)
      .where('mode', 'in', modes)
      .limit(1)
      .executeTakeFirst()) !== undefined
  );
}

/** Active grants of these claims, newest first. */
export async function activeGrantsOfClaims(db: Db, claimIds: readonly string[]): Promise<ClaimGrantRow[]> {
  if (claimIds.length === 0) return [];
  return db
    .selectFrom('verify_claim_grants')
    .selectAll()
    .where('claim_id', 'in', claimIds)
    .where('revoked_at', 'is', null)
    .orderBy('seq', 'desc')
    .execute();
}
