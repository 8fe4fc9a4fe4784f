import type { Db } from '../db/database.js';
import type { EventRow } from '../events/event.table.js';
import { fetchPage, type PageRequest } from '../http/pagination.js';
import type { Scope } from '../scope.js';
import type { NewWebhookDeliveryAttemptRow, WebhookDeliveryAttemptRow, WebhookEndpointRow } from './webhook.table.js';
import { ofTenant } from '../db/of-tenant.js';

/*
 * Deliveries read the events table (read only): the event is what they send. Joining it here saves
 * a round trip per delivery, which is most of what a delivery costs besides its HTTP request.
 */

/** The last recorded attempt of a delivery: its number, and when the next is due (null: settled). */
export interface LastAttempt {
  attempt: number;
  next_attempt_at: number | null;
}

/** The event's columns next to an endpoint's in the joins below (the endpoint's own names stay as they are). */
const EVENT_COLUMNS = ['e.seq as event_seq', 'e.type as event_type', 'e.data as event_data', 'e.created_at as event_created_at'] as const;

interface EventColumns {
  event_seq: number;
  event_type: string;
  event_data: string;
  event_created_at: number;
}

function eventRowOf(columns: EventColumns, id: string, scope: Pick<WebhookEndpointRow, 'client_id' | 'mode'>): EventRow {
  return {
    seq: columns.event_seq,
    id,
    client_id: scope.client_id,
    mode: scope.mode,
    type: columns.event_type,
    data: columns.event_data,
    created_at: columns.event_created_at,
  };
}

export interface DeliveryTarget {
  endpoint: WebhookEndpointRow;
  event: EventRow;
  last: LastAttempt | undefined;
}

/**
 * The endpoint and event of a delivery, and its last attempt, in one query; undefined when the
 * endpoint (or event) is gone or they belong to different scopes.
 */
export async function findDeliveryTarget(
  db: Db,
  input: { deliveryId: string; endpointId: string; eventId: string },
): Promise<DeliveryTarget | undefined> {
  const lastAttempt = db
    .selectFrom('webhook_delivery_attempts')
    .where('delivery_id', '=', input.deliveryId)
    .orderBy('attempt', 'desc')
    .limit(1);
  const row = await db
    .selectFrom('webhook_endpoints as w')
    .innerJoin('events as e', (join) =>
      join.on('e.id', '=', input.eventId).onRef('e.client_id', '=', 'w.client_id').onRef('e.mode', '=', 'w.mode'),
    )
    .selectAll('w')
    .select(EVENT_COLUMNS)
    .select([lastAttempt.select('attempt').as('last_attempt'), lastAttempt.select('next_attempt_at').as('last_next_attempt_at')])
    .where('w.id', '=', input.endpointId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { event_seq, event_type, event_data, event_created_at, last_attempt, last_next_attempt_at, ...endpoint } = row;
  return {
    endpoint,
    event: eventRowOf({ event_seq, event_type, event_data, event_created_at }, input.eventId, endpoint),
    last:
      last_attempt === null || last_attempt === undefined
        ? undefined
        : { attempt: Number(last_attempt), next_attempt_at: last_next_attempt_at ?? null },
  };
}

export interface EventWithEndpoints {
  event: EventRow;
  endpoints: WebhookEndpointRow[];
}

/**
 * An event with the enabled endpoints of its client and mode, in one query; undefined when the
 * event is gone or nobody could receive it.
 */
export async function findEventWithEnabledEndpoints(db: Db, eventId: string): Promise<EventWithEndpoints | undefined> {
  const rows = await db
    .selectFrom('events as e')
    .innerJoin('webhook_endpoints as w', (join) => join.onRef('w.client_id', '=', 'e.client_id').onRef('w.mode', '=', 'e.mode'))
    .selectAll('w')
    .select(EVENT_COLUMNS)
    .where('e.id', '=', eventId)
    .where('w.status', '=', 'enabled')
    .orderBy('w.seq')
    .execute();
  const first = rows[0];
  if (!first) return undefined;
  const event = eventRowOf(first, eventId, first);
  const endpoints = rows.map(({ event_seq: _s, event_type: _t, event_data: _d, event_created_at: _c, ...endpoint }) => endpoint);
  return { event, endpoints };
}

export async function insertWebhookDeliveryAttempt(db: Db, row: NewWebhookDeliveryAttemptRow): Promise<void> {
  await db.insertInto('webhook_delivery_attempts').values(row).execute();
}

function attemptsOf(db: Db, scope: Scope, endpointId: string) {
  return db.selectFrom('webhook_delivery_attempts').selectAll().where('endpoint_id', '=', endpointId).$call(ofTenant(scope));
}

export async function findWebhookDeliveryAttempt(
  db: Db,
  scope: Scope,
  endpointId: string,
  id: string,
): Promise<WebhookDeliveryAttemptRow | undefined> {
  return attemptsOf(db, scope, endpointId).where('id', '=', id).executeTakeFirst();
}

export async function listWebhookDeliveryAttemptRows(
  db: Db,
  scope: Scope,
  endpointId: string,
  filter: { eventId?: string },
  page: PageRequest,
) {
  let query = attemptsOf(db, scope, endpointId);
  if (filter.eventId !== undefined) query = query.where('event_id', '=', filter.eventId);
  return fetchPage(query, page);
}
