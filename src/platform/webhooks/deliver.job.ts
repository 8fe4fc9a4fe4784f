import { Type } from '@sinclair/typebox';
import { declareJob } from '../jobs/catalog.js';
import { DELIVERY_TIMEOUT_MS } from './network.js';
import { MAX_DELIVERY_ATTEMPTS, retryDelayMs, RetryDelivery } from './retry-schedule.js';

/**
 * One delivery: an event to one endpoint (one per endpoint at fan-out, one per resend). This job's
 * row is the delivery's live state; its attempts are recorded in webhook_delivery_attempts under
 * `delivery_id`. A failed attempt throws RetryDelivery and the queue runs the job again after the
 * webhook retry schedule (or the receiver's Retry-After); the last scheduled attempt settles the
 * delivery itself, so the job only dies on errors of our own — a few runs beyond the schedule
 * absorb those. Run by `platform.module.ts`.
 */
export const webhookDeliverJob = declareJob({
  type: 'webhooks.deliver',
  payload: Type.Object({ delivery_id: Type.String(), event_id: Type.String(), endpoint_id: Type.String() }),
  maxAttempts: MAX_DELIVERY_ATTEMPTS + 2,
  timeoutMs: DELIVERY_TIMEOUT_MS + 15_000,
  retryDelayMs: (attempt, error) => (error instanceof RetryDelivery ? error.delayMs : (retryDelayMs(attempt) ?? 60_000)),
});
