import type { Config } from './config/config.js';
import { eventsOf } from './events/event-catalog.js';
import { dbConnections, dbConnectionsMax, dbWaiting } from './db/pool.metrics.js';
import { eventRoutes } from './events/event.routes.js';
import { httpRequestDuration, httpRequestsInFlight } from './http/http.metrics.js';
import { jobRunDuration, jobsInQueue, oldestJobAge } from './jobs/job.metrics.js';
import { devMailPages } from './mail/dev-mail.surface.js';
import { mailMessages } from './mail/mail.metrics.js';
import { deleteAllOutboxMessages } from './mail/outbox.repository.js';
import { defineModule } from './module.js';
import { usageRoutes } from './usage/usage.routes.js';
import { defineJob } from './jobs/catalog.js';
import { deliverWebhook } from './webhooks/deliver.js';
import { webhookDeliverJob } from './webhooks/deliver.job.js';
import { dispatchEvent } from './webhooks/dispatch.js';
import { webhookDispatchJob } from './webhooks/dispatch.job.js';
import { webhookAttemptDuration } from './webhooks/webhook.metrics.js';
import { webhookRoutes } from './webhooks/webhook.routes.js';
import { webhookTestHelperRoutes } from './webhooks/webhook-test-helpers.routes.js';
import { TEST_HELPERS_TAG } from './http/test-helpers.js';
import { WebhookEndpoint } from './webhooks/webhook.schemas.js';

const webhookDispatch = defineJob({
  ...webhookDispatchJob,
  async run(payload, run) {
    await dispatchEvent(run.ctx, payload.event_id, run.log);
  },
});

const webhookDelivery = defineJob({
  ...webhookDeliverJob,
  async run(payload, run) {
    await deliverWebhook(run.ctx, payload, run);
  },
});

/**
 * The platform's own contributions, declared like any module's: the events, webhook endpoint and
 * usage API (with the webhook ping test helper, and the tag every domain's test helpers share),
 * the webhook jobs, the development outbox pages (`/dev/mail`), and the metrics of HTTP, jobs, webhooks, mail and the
 * database pool. Every service has them (`composeService` puts this module first), since every
 * domain records events.
 */
export const platformModule = defineModule({
  name: 'platform',
  apiRoutes: [eventRoutes, webhookRoutes, usageRoutes, webhookTestHelperRoutes],
  jobs: [webhookDispatch, webhookDelivery],
  events: eventsOf(WebhookEndpoint, {
    'webhook_endpoint.disabled':
      'ownproof disabled one of your webhook endpoints: it answered 410 Gone (`disabled_reason: "gone"`), or every attempt failed for 5 days ' +
      '(`failing`). The endpoint, without its secret; it is sent to your other enabled endpoints.',
    'webhook_endpoint.ping':
      'You asked for a test event (`POST /v1/test_helpers/webhook_endpoints/{id}/ping`, test mode): the endpoint, without its secret. ' +
      'Sent to that endpoint alone, whatever its `enabled_events`.',
  }),
  // The pool is read first in a scrape, before the queue gauges' query takes a connection.
  metrics: [
    dbConnections,
    dbConnectionsMax,
    dbWaiting,
    httpRequestDuration,
    httpRequestsInFlight,
    jobRunDuration,
    jobsInQueue,
    oldestJobAge,
    webhookAttemptDuration,
    mailMessages,
  ],
  openApiTags: [
    { name: 'Events', description: 'What happened, newest first; the same events are delivered to webhook endpoints.' },
    { name: 'Webhook endpoints', description: 'URLs that receive signed events (Standard Webhooks), their secrets and delivery attempts.' },
    { name: 'Usage', description: 'What you were billed for: one record per billable use (a statement’s first PDF).' },
    {
      name: TEST_HELPERS_TAG,
      description:
        'Test mode only: act as the account holder would on the hosted pages and in the portal (complete or abandon a session, answer an ' +
        'access request, revoke a grant), expire a provider login, ping a webhook endpoint. Same rules, events and webhooks as the pages.',
    },
  ],
  pages: [devMailPages],
  // Where mail goes, said once at start-up: an operator who forgot SMTP_URL learns it here, not
  // from a user whose sign-in link never came.
  async onServe(ctx, server) {
    const lines = [`  Mail:              ${mailDestination(ctx.config, server.baseUrl)}`];
    // A production server keeps no outbox; what an earlier version kept there holds working sign-in links.
    if (ctx.config.env === 'production') {
      const deleted = await deleteAllOutboxMessages(ctx.db);
      if (deleted > 0)
        lines.push(
          `  Mail:              deleted ${deleted} ${deleted === 1 ? 'message' : 'messages'} an earlier version kept in the outbox (production keeps none)`,
        );
    }
    return lines;
  },
});

/** Where this server's mail goes, for the banner. */
function mailDestination(config: Config, baseUrl: string): string {
  const smtp = config.mail.smtp;
  if (smtp)
    return `SMTP to ${smtp.host}:${smtp.port}${smtp.implicitTls ? ' (TLS)' : smtp.starttls === 'required' ? ' (STARTTLS required)' : ''}`;
  if (config.env === 'production') {
    return 'WARNING: no SMTP_URL, so this production server sends no e-mail: access requests are refused (503 mail_unavailable) and portal sign-in links are not sent';
  }
  return `no SMTP_URL: messages are kept in the outbox for 24 hours, read at ${baseUrl}/dev/mail`;
}
