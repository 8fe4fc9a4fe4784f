import { eventRoutes } from './events/event.routes.js';
import { registerJobsCommands } from './jobs/jobs.cli.js';
import { defineModule } from './module.js';
import { webhookDeliverJob } from './webhooks/deliver.job.js';
import { webhookDispatchJob } from './webhooks/dispatch.job.js';
import { webhookRoutes } from './webhooks/webhook.routes.js';

/**
 * The platform's own contributions, declared like any module's: the events and webhook endpoint
 * API, the webhook jobs, and `ownproof jobs`. Every service has them (`composeService` puts this
 * module first), since every domain records events.
 */
export const platformModule = defineModule({
  name: 'platform',
  apiRoutes: [eventRoutes, webhookRoutes],
  jobs: [webhookDispatchJob, webhookDeliverJob],
  openApiTags: [
    { name: 'Events', description: 'What happened, newest first; the same events are delivered to webhook endpoints.' },
    { name: 'Webhook endpoints', description: 'URLs that receive signed events (Standard Webhooks), their secrets and delivery attempts.' },
  ],
  commands: registerJobsCommands,
});
