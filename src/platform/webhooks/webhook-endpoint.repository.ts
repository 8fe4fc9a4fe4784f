import { Type } from '@sinclair/typebox';
import { ofTenant } from '../db/of-tenant.js';
import type { Db } from '../db/database.js';
import { jsonColumn } from '../db/json-column.js';
import { fetchPage, type PageRequest } from '../http/pagination.js';
import type { Scope } from '../scope.js';
import type { NewWebhookEndpointRow, WebhookDisabledReason, WebhookEndpointRow, WebhookEndpointUpdate } from './webhook.table.js';

/** `webhook_endpoints.enabled_events`: the event types the endpoint takes, `*` for all. */
const ENABLED_EVENTS = jsonColumn('webhook_endpoints', 'enabled_events', Type.Array(Type.String()));

/** The event types an endpoint takes (`*`: every one). */
export function endpointEventTypes(row: Pick<WebhookEndpointRow, 'id' | 'enabled_events'>): string[] {
  return ENABLED_EVENTS.decode(row.enabled_events, row.id);
}

/** The `enabled_events` text of an endpoint taking these event types. */
export function encodeEndpointEventTypes(types: string[]): string {
  return ENABLED_EVENTS.encode(types);
}

export async function insertWebhookEndpoint(db: Db, row: NewWebhookEndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export async function findWebhookEndpoint(db: Db, scope: Scope, id: string): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().$call(ofTenant(scope)).where('id', '=', id).executeTakeFirst();
}

export async function listWebhookEndpointRows(db: Db, scope: Scope, page: PageRequest) {
  return fetchPage(db.selectFrom('webhook_endpoints').selectAll().$call(ofTenant(scope)), page);
}

/** Enabled endpoints of a client and mode, oldest first: the candidates for an event. */
export async function listEnabledWebhookEndpoints(db: Db, scope: Scope): Promise<WebhookEndpointRow[]> {
  return db.selectFrom('webhook_endpoints').selectAll().$call(ofTenant(scope)).where('status', '=', 'enabled').orderBy('seq').execute();
}

export async function updateWebhookEndpointRow(db: Db, scope: Scope, id: string, changes: WebhookEndpointUpdate): Promise<void> {
  await db.updateTable('webhook_endpoints').set(changes).where('id', '=', id).$call(ofTenant(scope)).execute();
}

/** Deletes the endpoint; its deliveries and their attempts go with it (ON DELETE CASCADE). True when it existed. */
export async function deleteWebhookEndpointRow(db: Db, scope: Scope, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook_endpoints').where('id', '=', id).$call(ofTenant(scope)).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Starts the failure streak at `now` unless one is already running. */
export async function markWebhookEndpointFailing(db: Db, id: string, now: number): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ failing_since: now }).where('id', '=', id).where('failing_since', 'is', null).execute();
}

export async function clearWebhookEndpointFailing(db: Db, id: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: null })
    .where('id', '=', id)
    .where('failing_since', 'is not', null)
    .execute();
}

/**
 * Disables an enabled endpoint; with `failingSinceAtMost`, only if its failure streak started at or
 * before that time. True when this call disabled it (so exactly one caller records the event).
 */
export async function disableWebhookEndpointRow(
  db: Db,
  input: { id: string; reason: WebhookDisabledReason; now: number; failingSinceAtMost?: number },
): Promise<boolean> {
  let query = db
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_reason: input.reason, updated_at: input.now })
    .where('id', '=', input.id)
    .where('status', '=', 'enabled');
  if (input.failingSinceAtMost !== undefined) query = query.where('failing_since', '<=', input.failingSinceAtMost);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
