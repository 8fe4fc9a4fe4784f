import type { Insertable } from 'kysely';
import type { Db } from '../platform/db/database.js';
import { fetchPage, type PageRequest } from '../platform/http/pagination.js';
import type { Scope } from '../platform/scope.js';
import type { ClaimGrantTable, ClaimRow, ClaimTable } from './verify.table.js';

export async function insertClaim(db: Db, row: Insertable<ClaimTable>): Promise<void> {
  await db.insertInto('verify_claims').values(row).execute();
}

export async function findClaimById(db: Db, id: string): Promise<ClaimRow | undefined> {
  return db.selectFrom('verify_claims').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A claim as one client may see it: only through a grant of that client and mode that is not revoked. */
export async function findGrantedClaim(db: Db, scope: Scope, id: string) {
  return db
    .selectFrom('verify_claims as c')
    .innerJoin('verify_claim_grants as g', 'g.claim_id', 'c.id')
    .selectAll('c')
    .select(['g.permissions as grant_permissions', 'g.seq as grant_seq'])
    .where('c.id', '=', id)
    .where('g.client_id', '=', scope.clientId)
    .where('g.mode', '=', scope.mode)
    .where('g.revoked_at', 'is', null)
    .executeTakeFirst();
}

export type GrantedClaimRow = NonNullable<Awaited<ReturnType<typeof findGrantedClaim>>>;

/** Claims shared with a client, newest grant first. */
export async function listGrantedClaims(db: Db, scope: Scope, filter: { accountHolderId?: string }, page: PageRequest) {
  let query = db
    .selectFrom('verify_claims as c')
    .innerJoin('verify_claim_grants as g', 'g.claim_id', 'c.id')
    .selectAll('c')
    .select(['g.permissions as grant_permissions', 'g.seq as grant_seq'])
    .where('g.client_id', '=', scope.clientId)
    .where('g.mode', '=', scope.mode)
    .where('g.revoked_at', 'is', null);
  if (filter.accountHolderId !== undefined) query = query.where('c.account_holder_id', '=', filter.accountHolderId);
  const { rows, hasMore } = await fetchPage(query.select('g.seq as seq'), page, 'g.seq');
  return { rows: rows as GrantedClaimRow[], hasMore };
}

/** Shares a claim with a client, or widens what an existing grant allows. */
export async function upsertGrant(db: Db, row: Insertable<ClaimGrantTable>): Promise<void> {
  await db
    .insertInto('verify_claim_grants')
    .values(row)
    .onConflict((oc) => oc.columns(['client_id', 'claim_id']).doUpdateSet({ permissions: row.permissions, source: row.source, revoked_at: null }))
    .execute();
}
