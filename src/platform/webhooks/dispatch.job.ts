import { Type } from '@sinclair/typebox';
import { defineJob, lazyModule } from '../jobs/catalog.js';

const dispatchModule = lazyModule(() => import('./dispatch.js'));

/**
 * Fans one event out to the webhook endpoints subscribed to its type: one delivery (with its own
 * job and retry schedule) per endpoint. Enqueued by recordEvent in the event's transaction.
 */
export const webhookDispatchJob = defineJob({
  type: 'webhooks.dispatch',
  payload: Type.Object({ event_id: Type.String() }),
  maxAttempts: 10,
  timeoutMs: 30_000,
  async run(payload, run) {
    const { dispatchEvent } = await dispatchModule();
    await dispatchEvent(run.ctx, payload.event_id, run.log);
  },
});
