import type { TSchema } from '@sinclair/typebox';
import { expireSessionJob } from './connect/expire-session.job.js';
import { refreshAccountJob } from './connect/refresh-account.job.js';
import { JobCatalog, type JobDefinition } from './platform/jobs/catalog.js';
import { webhookDeliverJob } from './platform/webhooks/deliver.job.js';
import { webhookDispatchJob } from './platform/webhooks/dispatch.job.js';

/** Every job type the service runs. Workers run exactly these; add a domain's jobs here. */
export const JOB_DEFINITIONS: readonly JobDefinition<TSchema>[] = [
  webhookDispatchJob,
  webhookDeliverJob,
  expireSessionJob,
  refreshAccountJob,
];

export function jobCatalog(): JobCatalog {
  return new JobCatalog(JOB_DEFINITIONS);
}
