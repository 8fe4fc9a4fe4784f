import { Type } from '@sinclair/typebox';
import { defineJob } from '../jobs/catalog.js';
import type * as DispatchModule from './dispatch.js';

// Loaded on the first run, then kept: each `import()` call costs a trip through the loader's hooks.
let dispatchModule: Promise<typeof DispatchModule> | undefined;

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
    const { dispatchEvent } = await (dispatchModule ??= import('./dispatch.js'));
    await dispatchEvent(run.ctx, payload.event_id, run.log);
  },
});
