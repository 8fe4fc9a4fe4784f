import type { Static } from '@sinclair/typebox';
import { unixSeconds } from '../clock.js';
import type { AppContext } from '../context.js';
import { newId } from '../crypto/random.js';
import { recordEvent, toEvent } from '../events/event.service.js';
import type { webhookDeliverJob } from './deliver.job.js';
import type { JobRun } from '../jobs/catalog.js';
import { networkOf } from './network.js';
import { DISABLE_AFTER_FAILING_SECONDS, retryDelayMs, RetryDelivery } from './retry-schedule.js';
import { sendWebhook, type WebhookResponse } from './send.js';
import { signatureHeader } from './signature.js';
import { targetRules } from './url-policy.js';
import { findDeliveryTarget, insertWebhookDeliveryAttempt } from './webhook-delivery.repository.js';
import { responseClass, webhookAttemptDuration } from './webhook.metrics.js';
import { clearWebhookEndpointFailing, disableWebhookEndpointRow, markWebhookEndpointFailing } from './webhook-endpoint.repository.js';
import { signingSecrets, toWebhookEndpoint } from './webhook-endpoint.service.js';
import type { WebhookDisabledReason, WebhookEndpointRow } from './webhook.table.js';

type DeliverContext = Pick<AppContext, 'db' | 'clock' | 'config' | 'secretBox' | 'webhookNetwork' | 'metrics'>;

/** What one attempt means for its delivery. */
export type AttemptOutcome = { kind: 'succeeded' } | { kind: 'gone' } | { kind: 'retry'; delayMs: number } | { kind: 'given_up' };

/**
 * 2xx succeeds. 410 means the receiver wants no more: the endpoint is disabled. Anything else is
 * retried on the schedule — not before the receiver's Retry-After (429/503) — until the attempts
 * run out.
 */
export function judgeAttempt(response: WebhookResponse, attempt: number, random: () => number = Math.random): AttemptOutcome {
  if (response.status !== null && response.status >= 200 && response.status < 300) return { kind: 'succeeded' };
  if (response.status === 410) return { kind: 'gone' };
  const scheduled = retryDelayMs(attempt, random);
  if (scheduled === undefined) return { kind: 'given_up' };
  return { kind: 'retry', delayMs: Math.max(scheduled, response.retryAfterMs ?? 0) };
}

/** What a delivery job carries: which delivery, of which event, to which endpoint. */
type DeliveryRef = Static<typeof webhookDeliverJob.payload>;

/**
 * Makes one attempt of a delivery and records it. Idempotent in effect: a delivery whose last
 * attempt settled it (success, 410, schedule exhausted) is left alone, and a crash after sending but
 * before recording sends again on the next run — with the same `webhook-id`, which receivers use to
 * drop the duplicate. A delivery to an endpoint deleted or disabled meanwhile is dropped.
 */
export async function deliverWebhook(
  ctx: DeliverContext,
  ref: DeliveryRef,
  run: Pick<JobRun, 'attempt' | 'signal' | 'log'>,
): Promise<void> {
  const target = await findDeliveryTarget(ctx.db, { deliveryId: ref.delivery_id, endpointId: ref.endpoint_id, eventId: ref.event_id });
  if (!target || target.endpoint.status !== 'enabled') return;
  const { endpoint, event, last } = target;
  if (last && last.next_attempt_at === null) return; // settled by an earlier run whose job was not marked done
  const startedAt = unixSeconds(ctx.clock);
  // A run that comes early (its job was taken again after a crash that followed the recording).
  if (last?.next_attempt_at != null && last.next_attempt_at > startedAt + 1) {
    throw new RetryDelivery((last.next_attempt_at - startedAt) * 1000, 'delivery attempt is not due yet');
  }
  const attempt = Math.max(run.attempt, (last?.attempt ?? 0) + 1);
  const body = JSON.stringify(toEvent(event));
  const response = await sendWebhook(networkOf(ctx), {
    url: endpoint.url,
    // The rules of now, not of when the endpoint was made: a server restarted without loopback refuses it.
    rules: targetRules(ctx.config, endpoint.mode),
    headers: {
      'webhook-id': event.id,
      'webhook-timestamp': String(startedAt),
      'webhook-signature': signatureHeader(signingSecrets(ctx, endpoint, startedAt), event.id, startedAt, body),
    },
    body,
    signal: run.signal,
  });
  // Aborted (shutdown, lost lease, job timeout): whoever runs the job next makes this attempt again.
  if (run.signal.aborted) throw run.signal.reason ?? new Error('delivery aborted');
  // The stored error is plain words; what the network library said stays here, for operators.
  if (response.detail !== undefined) {
    run.log.warn(
      { endpoint_id: endpoint.id, delivery_id: ref.delivery_id, attempt, error: response.error, detail: response.detail },
      'webhook attempt failed',
    );
  }
  const outcome = judgeAttempt(response, attempt);
  ctx.metrics
    .histogram(webhookAttemptDuration)
    .observe({ mode: endpoint.mode, outcome: outcome.kind, response: responseClass(response.status) }, response.durationMs / 1000);
  const disabled = await recordAttempt(ctx, ref, endpoint, { attempt, startedAt, response, outcome });
  if (disabled) run.log.warn({ endpoint_id: endpoint.id, reason: disabled }, 'webhook endpoint disabled');
  if (outcome.kind === 'given_up') run.log.warn({ delivery_id: ref.delivery_id, attempts: attempt }, 'webhook delivery given up');
  if (outcome.kind === 'retry') {
    throw new RetryDelivery(
      outcome.delayMs,
      `webhook attempt ${attempt} failed (${response.error ?? 'unknown'}); next in ${Math.round(outcome.delayMs / 1000)} s`,
    );
  }
}

/**
 * Records the attempt and its consequences for the endpoint: its failure streak, and — when it gets
 * disabled (410, or 5 days of failures) — the `webhook_endpoint.disabled` event, atomically with the
 * attempt. The common cases (success of a healthy endpoint, another failure of a failing one) are a
 * single insert. Returns the disable reason when this attempt disabled the endpoint.
 */
async function recordAttempt(
  ctx: DeliverContext,
  ref: DeliveryRef,
  endpoint: WebhookEndpointRow,
  input: { attempt: number; startedAt: number; response: WebhookResponse; outcome: AttemptOutcome },
): Promise<WebhookDisabledReason | undefined> {
  const { attempt, startedAt, response, outcome } = input;
  const nowMs = ctx.clock.now();
  const now = Math.floor(nowMs / 1000);
  const row = {
    id: newId('wha'),
    delivery_id: ref.delivery_id,
    endpoint_id: endpoint.id,
    event_id: ref.event_id,
    client_id: endpoint.client_id,
    mode: endpoint.mode,
    attempt,
    status: outcome.kind === 'succeeded' ? ('succeeded' as const) : ('failed' as const),
    response_status: response.status,
    duration_ms: response.durationMs,
    error: response.error ?? null,
    next_attempt_at: outcome.kind === 'retry' ? Math.ceil((nowMs + outcome.delayMs) / 1000) : null,
    created_at: startedAt,
  };
  if (outcome.kind === 'succeeded') {
    await insertWebhookDeliveryAttempt(ctx.db, row);
    // A success ends the failure streak. (Lost in a crash right here, the next success ends it.)
    if (endpoint.failing_since !== null) await clearWebhookEndpointFailing(ctx.db, endpoint.id);
    return undefined;
  }
  const failingFor = endpoint.failing_since === null ? undefined : now - endpoint.failing_since;
  const disable: WebhookDisabledReason | undefined =
    outcome.kind === 'gone' ? 'gone' : failingFor !== undefined && failingFor >= DISABLE_AFTER_FAILING_SECONDS ? 'failing' : undefined;
  if (!disable) {
    await insertWebhookDeliveryAttempt(ctx.db, row);
    if (endpoint.failing_since === null) await markWebhookEndpointFailing(ctx.db, endpoint.id, now);
    return undefined;
  }
  return ctx.db.transaction().execute(async (trx) => {
    await insertWebhookDeliveryAttempt(trx, row);
    const cutoff = disable === 'failing' ? { failingSinceAtMost: now - DISABLE_AFTER_FAILING_SECONDS } : {};
    if (!(await disableWebhookEndpointRow(trx, { id: endpoint.id, reason: disable, now, ...cutoff }))) return undefined;
    const disabledEndpoint = toWebhookEndpoint({ ...endpoint, status: 'disabled', disabled_reason: disable, updated_at: now });
    await recordEvent(
      { db: trx, clock: ctx.clock },
      { clientId: endpoint.client_id, mode: endpoint.mode },
      'webhook_endpoint.disabled',
      disabledEndpoint,
    );
    return disable;
  });
}
