import type { AppContext } from '../context.js';
import { newId } from '../crypto/random.js';
import type { Db } from '../db/database.js';
import { resolvePage } from '../http/pagination.js';
import type { Scope } from '../scope.js';
import { findUsageRecord, insertUsageRecordOnce, listUsageRows } from './usage.repository.js';
import type { UsageListQuery, UsageRecord, UsageType } from './usage.schemas.js';
import type { UsageRecordRow } from './usage.table.js';

function toUsageRecord(row: UsageRecordRow): UsageRecord {
  return {
    id: row.id,
    object: 'usage_record',
    type: row.type as UsageType,
    resource_id: row.resource_id,
    quantity: row.quantity,
    created_at: row.created_at,
    livemode: row.mode === 'live',
  };
}

/**
 * Records one use of `type` for `resourceId`, unless one was recorded before: a use is billed once
 * whoever asks and however often, concurrent requests in other processes included. Call it inside
 * the transaction of the change that is billed, so the record exists exactly when the change does.
 * True when this call recorded it.
 */
export async function recordUsageOnce(db: Db, scope: Scope, use: { type: UsageType; resourceId: string; at: number }): Promise<boolean> {
  return insertUsageRecordOnce(db, {
    id: newId('ur'),
    client_id: scope.clientId,
    mode: scope.mode,
    type: use.type,
    resource_id: use.resourceId,
    quantity: 1,
    created_at: use.at,
  });
}

/** This client's usage in this mode, newest first. */
export async function listUsage(deps: Pick<AppContext, 'db'>, scope: Scope, query: UsageListQuery) {
  const page = await resolvePage(query, async (id) => (await findUsageRecord(deps.db, scope, id))?.seq);
  const { rows, hasMore } = await listUsageRows(deps.db, scope, query.type === undefined ? {} : { type: query.type }, page);
  return { data: rows.map(toUsageRecord), has_more: hasMore };
}
