import type { AppContext } from '../context.js';
import { unixSeconds } from '../clock.js';
import { newId } from '../crypto/random.js';
import { ApiError, notFound } from '../http/errors.js';
import { resolvePage } from '../http/pagination.js';
import { enqueueJob } from '../jobs/enqueue.js';
import type { Scope } from '../scope.js';
import { webhookDispatchJob } from '../webhooks/dispatch.job.js';
import { encodeEventObject, eventObject, findEvent, insertEvent, listEventRows } from './event.repository.js';
import type { Event, EventListQuery, EventType } from './event.schemas.js';
import type { EventRow } from './event.table.js';

export type EventDeps = Pick<AppContext, 'db' | 'clock'>;

export function toEvent(row: EventRow): Event {
  return {
    id: row.id,
    object: 'event',
    type: row.type as EventType,
    created_at: row.created_at,
    livemode: row.mode === 'live',
    data: { object: eventObject(row) },
  };
}

/**
 * Records that something happened. Call it with the transaction of the change itself: the event,
 * and the job that will deliver it to webhook endpoints, exist exactly when the change does.
 * `dispatch: false` leaves the deliveries to the caller (a ping goes to one endpoint only).
 */
export async function recordEvent(
  deps: EventDeps,
  scope: Scope,
  type: EventType,
  object: { id: string; object: string } & Record<string, unknown>,
  options: { dispatch?: boolean } = {},
): Promise<Event> {
  const row: EventRow = {
    seq: 0,
    id: newId('evt'),
    client_id: scope.clientId,
    mode: scope.mode,
    type,
    data: encodeEventObject(object),
    created_at: unixSeconds(deps.clock),
  };
  const { seq: _seq, ...values } = row;
  await insertEvent(deps.db, values);
  if (options.dispatch === false) return toEvent(row);
  await enqueueJob(deps.db, deps.clock, webhookDispatchJob, { event_id: row.id }, { dedupeKey: `webhooks.dispatch:${row.id}` });
  return toEvent(row);
}

export async function retrieveEvent(deps: EventDeps, scope: Scope, id: string): Promise<Event> {
  const row = await findEvent(deps.db, scope, id);
  if (!row) throw notFound('event', id);
  return toEvent(row);
}

export async function listEvents(deps: EventDeps, scope: Scope, query: EventListQuery) {
  const gte = query['created[gte]'];
  const lte = query['created[lte]'];
  if (gte !== undefined && lte !== undefined && gte > lte) {
    throw new ApiError('parameter_invalid', {
      param: 'created[lte]',
      message: 'Invalid value for created[lte]: must not be before created[gte].',
    });
  }
  const page = await resolvePage(query, async (id) => (await findEvent(deps.db, scope, id))?.seq);
  const filter = {
    ...(query.type?.endsWith('.*') ? { typePrefix: query.type.slice(0, -1) } : query.type ? { type: query.type } : {}),
    ...(gte === undefined ? {} : { createdGte: gte }),
    ...(lte === undefined ? {} : { createdLte: lte }),
  };
  const { rows, hasMore } = await listEventRows(deps.db, scope, filter, page);
  return { data: rows.map(toEvent), has_more: hasMore };
}
