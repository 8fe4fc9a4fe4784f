import type { Db } from '../db/database.js';
import { fetchPage, type PageRequest } from '../http/pagination.js';
import type { Scope } from '../scope.js';
import type { NewUsageRecordRow, UsageRecordRow } from './usage.table.js';
import { ofTenant } from '../db/of-tenant.js';

/**
 * Inserts the record unless one of its type already exists for its object (the unique index on
 * client, mode, type and resource decides, also between processes and concurrent transactions);
 * true when this call inserted it.
 */
export async function insertUsageRecordOnce(db: Db, row: NewUsageRecordRow): Promise<boolean> {
  const inserted = await db
    .insertInto('usage_records')
    .values(row)
    .onConflict((conflict) => conflict.columns(['client_id', 'mode', 'type', 'resource_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function findUsageRecord(db: Db, scope: Scope, id: string): Promise<UsageRecordRow | undefined> {
  return db.selectFrom('usage_records').selectAll().where('id', '=', id).$call(ofTenant(scope)).executeTakeFirst();
}

export async function listUsageRows(db: Db, scope: Scope, filter: { type?: string }, page: PageRequest) {
  let query = db.selectFrom('usage_records').selectAll().$call(ofTenant(scope));
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  return fetchPage(query, page);
}
