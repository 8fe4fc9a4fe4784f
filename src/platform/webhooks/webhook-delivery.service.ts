import type { Clock } from '../clock.js';
import type { Event } from '../events/event.schemas.js';
import { recordEvent } from '../events/event.service.js';
import { requireTestMode } from '../http/test-helpers.js';
import { newId } from '../crypto/random.js';
import type { Db } from '../db/database.js';
import { findEvent } from '../events/event.repository.js';
import type { EventRow } from '../events/event.table.js';
import { ApiError, notFound, unknownId } from '../http/errors.js';
import { resolvePage } from '../http/pagination.js';
import { enqueueJob } from '../jobs/enqueue.js';
import type { Scope } from '../scope.js';
import { webhookDeliverJob } from './deliver.job.js';
import { findWebhookDeliveryAttempt, listWebhookDeliveryAttemptRows } from './webhook-delivery.repository.js';
import { endpointEventTypes, findWebhookEndpoint, listEnabledWebhookEndpoints } from './webhook-endpoint.repository.js';
import { requireEndpoint, toWebhookEndpoint, type WebhookDeps } from './webhook-endpoint.service.js';
import type { DeliveryListQuery, EventResend, ResendEventInput, WebhookDeliveryAttempt } from './webhook.schemas.js';
import type { WebhookDeliveryAttemptRow, WebhookEndpointRow } from './webhook.table.js';

function toWebhookDeliveryAttempt(row: WebhookDeliveryAttemptRow): WebhookDeliveryAttempt {
  return {
    id: row.id,
    object: 'webhook_delivery_attempt',
    endpoint: row.endpoint_id,
    event: row.event_id,
    delivery: row.delivery_id,
    attempt: row.attempt,
    status: row.status,
    response_status: row.response_status,
    duration_ms: row.duration_ms,
    error: row.error,
    next_attempt_at: row.next_attempt_at,
    livemode: row.mode === 'live',
    created_at: row.created_at,
  };
}

/** Whether an endpoint takes events of this type. */
export function takesEvent(endpoint: WebhookEndpointRow, type: string): boolean {
  const types = endpointEventTypes(endpoint);
  return types.includes('*') || types.includes(type);
}

/**
 * Queues one delivery (a `webhooks.deliver` job, first attempt at once) of the event per endpoint.
 * With `fanOut`, each job is keyed by (event, endpoint), so running the fan-out again queues none
 * twice and no transaction is needed; resends are never keyed. Returns the endpoints queued for.
 */
export async function queueDeliveries(
  db: Db,
  clock: Clock,
  event: Pick<EventRow, 'id'>,
  endpoints: readonly Pick<WebhookEndpointRow, 'id'>[],
  options: { fanOut: boolean },
): Promise<string[]> {
  const queued: string[] = [];
  for (const endpoint of endpoints) {
    const payload = { delivery_id: newId('whd'), event_id: event.id, endpoint_id: endpoint.id };
    const jobId = await enqueueJob(
      db,
      clock,
      webhookDeliverJob,
      payload,
      options.fanOut ? { dedupeKey: fanOutKey(event.id, endpoint.id) } : {},
    );
    if (jobId !== undefined) queued.push(endpoint.id);
  }
  return queued;
}

/** The dedupe key of the fan-out delivery of an event to an endpoint. */
function fanOutKey(eventId: string, endpointId: string): string {
  return `webhooks.deliver:${eventId}:${endpointId}`;
}

/** Attempts to deliver to one endpoint, newest first, optionally for one event. */
export async function listWebhookDeliveryAttempts(deps: WebhookDeps, scope: Scope, endpointId: string, query: DeliveryListQuery) {
  await requireEndpoint(deps, scope, endpointId);
  if (query.event !== undefined && !(await findEvent(deps.db, scope, query.event))) throw unknownId('event', 'event', query.event);
  const page = await resolvePage(query, async (id) => (await findWebhookDeliveryAttempt(deps.db, scope, endpointId, id))?.seq);
  const filter = query.event === undefined ? {} : { eventId: query.event };
  const { rows, hasMore } = await listWebhookDeliveryAttemptRows(deps.db, scope, endpointId, filter, page);
  return { data: rows.map(toWebhookDeliveryAttempt), has_more: hasMore };
}

/**
 * Sends an event again: to one endpoint when named (even one not subscribed to the type, since
 * you asked for it; it must be enabled), else to every enabled endpoint that takes the type. Each
 * gets a new delivery with the full retry schedule; `webhook-id` stays the event id.
 */
export async function resendEvent(deps: WebhookDeps, scope: Scope, eventId: string, input: ResendEventInput): Promise<EventResend> {
  const event = await findEvent(deps.db, scope, eventId);
  if (!event) throw notFound('event', eventId);
  let endpoints: WebhookEndpointRow[];
  if (input.endpoint !== undefined) {
    const endpoint = await findWebhookEndpoint(deps.db, scope, input.endpoint);
    if (!endpoint) throw unknownId('endpoint', 'webhook_endpoint', input.endpoint);
    if (endpoint.status !== 'enabled') {
      throw new ApiError('parameter_invalid', {
        param: 'endpoint',
        message: `Invalid value for endpoint: ${endpoint.id} is disabled; enable it first (POST /v1/webhook_endpoints/${endpoint.id} with "disabled": false).`,
      });
    }
    endpoints = [endpoint];
  } else {
    endpoints = (await listEnabledWebhookEndpoints(deps.db, scope)).filter((endpoint) => takesEvent(endpoint, event.type));
  }
  // All or none, so a failed request can simply be repeated.
  const created =
    endpoints.length === 0
      ? []
      : await deps.db.transaction().execute((trx) => queueDeliveries(trx, deps.clock, event, endpoints, { fanOut: false }));
  return { object: 'event_resend', event: event.id, endpoints: created };
}

/**
 * A test helper: sends `webhook_endpoint.ping` (the endpoint, without its secret) to this test-mode
 * endpoint alone, whatever events it takes, through the pipeline every event goes through (signed,
 * each attempt recorded, retried on the schedule). It is an event like any other, listed and
 * resendable. A disabled endpoint would receive nothing: 409.
 */
export async function pingWebhookEndpoint(deps: WebhookDeps, scope: Scope, id: string): Promise<Event> {
  const endpoint = await requireEndpoint(deps, scope, id);
  requireTestMode(scope);
  if (endpoint.status !== 'enabled') throw new ApiError('webhook_endpoint_disabled', { param: 'id' });
  return deps.db.transaction().execute(async (trx) => {
    const event = await recordEvent({ db: trx, clock: deps.clock }, scope, 'webhook_endpoint.ping', toWebhookEndpoint(endpoint), {
      dispatch: false,
    });
    await queueDeliveries(trx, deps.clock, event, [endpoint], { fanOut: false });
    return event;
  });
}
