import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.js';
import { findEventWithEnabledEndpoints } from './webhook-delivery.repository.js';
import { queueDeliveries, takesEvent } from './webhook-delivery.service.js';

/**
 * Queues one delivery (its own job and retry schedule) per enabled webhook endpoint subscribed to
 * the event's type. Safe to run again: each delivery job is keyed by (event, endpoint).
 */
export async function dispatchEvent(ctx: Pick<AppContext, 'db' | 'clock'>, eventId: string, log: FastifyBaseLogger): Promise<void> {
  const found = await findEventWithEnabledEndpoints(ctx.db, eventId);
  if (!found) {
    log.debug({ event_id: eventId }, 'no webhook endpoint for this event');
    return;
  }
  const endpoints = found.endpoints.filter((endpoint) => takesEvent(endpoint, found.event.type));
  await queueDeliveries(ctx.db, ctx.clock, found.event, endpoints, { fanOut: true });
}
