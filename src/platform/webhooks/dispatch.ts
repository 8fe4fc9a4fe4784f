import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.js';
import { findEventById } from '../events/event.repository.js';

/**
 * Creates one delivery per webhook endpoint subscribed to the event's type.
 * (Endpoints and deliveries arrive with the webhooks module; until then there is nobody to tell.)
 */
export async function dispatchEvent(ctx: AppContext, eventId: string, log: FastifyBaseLogger): Promise<void> {
  const event = await findEventById(ctx.db, eventId);
  if (!event) {
    log.warn({ event_id: eventId }, 'event to dispatch no longer exists');
    return;
  }
}
