import { defineHistogram } from '../metrics/metric.js';

/** One observation per delivery attempt; never by endpoint, client or URL. */
export const webhookAttemptDuration = defineHistogram({
  name: 'ownproof_webhook_attempt_duration_seconds',
  help: 'Webhook delivery attempts, by mode, outcome (succeeded; retry: failed, to be tried again; gone: HTTP 410, endpoint disabled; given_up: failed, no attempt left) and response (2xx … 5xx, none: no HTTP answer).',
  labelNames: ['mode', 'outcome', 'response'],
  buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
});

/** The response label: the status class, or `none` when no HTTP answer came (refused, timed out, TLS). */
export function responseClass(status: number | null): string {
  return status === null ? 'none' : `${Math.floor(status / 100)}xx`;
}
