import type { TSchema } from '@sinclair/typebox';
import { JobCatalog, type JobDefinition } from './platform/jobs/catalog.js';
import { webhookDispatchJob } from './platform/webhooks/dispatch.job.js';

/** Every job type the service runs. Workers run exactly these; add a domain's jobs here. */
export const JOB_DEFINITIONS: readonly JobDefinition<TSchema>[] = [webhookDispatchJob];

export function jobCatalog(): JobCatalog {
  return new JobCatalog(JOB_DEFINITIONS);
}
