import { Type } from '@sinclair/typebox';
import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { fetchPage, type PageRequest } from '../../platform/http/pagination.js';
import type { Scope } from '../../platform/scope.js';
import type { AccessRequestRow, AccessRequestStatus, AccessRequestTable } from '../verify.table.js';
import { ofTenant } from '../../platform/db/of-tenant.js';
import { jsonColumn } from '../../platform/db/json-column.js';
import { AccessPermissionSchema, type AccessPermission } from './access-request.schemas.js';

/** `verify_access_requests.permissions`: what the client asks of the claims. */
const REQUEST_PERMISSIONS = jsonColumn('verify_access_requests', 'permissions', Type.Array(AccessPermissionSchema));
/** `verify_access_requests.claim_ids`: the claims shared, once granted. */
const REQUEST_CLAIM_IDS = jsonColumn('verify_access_requests', 'claim_ids', Type.Array(Type.String()));

/** What a request asks of the claims. */
export function requestPermissions(row: Pick<AccessRequestRow, 'id' | 'permissions'>): AccessPermission[] {
  return REQUEST_PERMISSIONS.decode(row.permissions, row.id);
}

/** The claims a granted request shared (none before). */
export function requestClaimIds(row: Pick<AccessRequestRow, 'id' | 'claim_ids'>): string[] {
  return REQUEST_CLAIM_IDS.decode(row.claim_ids, row.id);
}

/** The `permissions` text of a request asking for these permissions. */
export function encodeRequestPermissions(permissions: AccessPermission[]): string {
  return REQUEST_PERMISSIONS.encode(permissions);
}

/** The `claim_ids` text of a request sharing these claims. */
export function encodeRequestClaimIds(claimIds: string[]): string {
  return REQUEST_CLAIM_IDS.encode(claimIds);
}

export async function insertAccessRequest(db: Db, row: Insertable<AccessRequestTable>): Promise<void> {
  await db.insertInto('verify_access_requests').values(row).execute();
}

/** A request of this client and mode; undefined for another tenant's id, exactly as for a missing one. */
export async function findAccessRequest(db: Db, scope: Scope, id: string): Promise<AccessRequestRow | undefined> {
  return db.selectFrom('verify_access_requests').selectAll().where('id', '=', id).$call(ofTenant(scope)).executeTakeFirst();
}

/** Any request by id (jobs and the portal, which check who may see it themselves). */
export async function findAccessRequestById(db: Db, id: string): Promise<AccessRequestRow | undefined> {
  return db.selectFrom('verify_access_requests').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listAccessRequestRows(
  db: Db,
  scope: Scope,
  filter: { status?: AccessRequestStatus; accountHolderId?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('verify_access_requests').selectAll().$call(ofTenant(scope));
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.accountHolderId !== undefined) query = query.where('account_holder_id', '=', filter.accountHolderId);
  return fetchPage(query, page);
}

/** Requests to any of these account holders, newest first (the portal's notifications). */
export async function listRequestsOfHolders(db: Db, accountHolderIds: readonly string[]): Promise<AccessRequestRow[]> {
  if (accountHolderIds.length === 0) return [];
  return db
    .selectFrom('verify_access_requests')
    .selectAll()
    .where('account_holder_id', 'in', accountHolderIds)
    .orderBy('seq', 'desc')
    .limit(200)
    .execute();
}

/**
 * Changes a request that is still pending and returns it as changed; undefined when it was not
 * (answered, expired or canceled meanwhile), so a request ends at most once however requests race.
 */
export async function updatePendingRequest(
  db: Db,
  id: string,
  changes: Updateable<AccessRequestTable>,
): Promise<AccessRequestRow | undefined> {
  return db
    .updateTable('verify_access_requests')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/** Records how sending the request's e-mail went; returns the request as changed. */
export async function updateNotification(
  db: Db,
  id: string,
  changes: Pick<Updateable<AccessRequestTable>, 'notification_status' | 'notification_error' | 'notification_sent_at' | 'updated_at'>,
) {
  return db.updateTable('verify_access_requests').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}
