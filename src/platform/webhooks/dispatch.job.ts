import { Type } from '@sinclair/typebox';
import { declareJob } from '../jobs/catalog.js';

/**
 * Fans one event out to the webhook endpoints subscribed to its type: one delivery (with its own
 * job and retry schedule) per endpoint. Enqueued by recordEvent in the event's transaction; run by
 * `platform.module.ts`.
 */
export const webhookDispatchJob = declareJob({
  type: 'webhooks.dispatch',
  payload: Type.Object({ event_id: Type.String() }),
  maxAttempts: 10,
  timeoutMs: 30_000,
});
