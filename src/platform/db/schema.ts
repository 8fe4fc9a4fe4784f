import type { DataKeysTables } from '../crypto/data-key.table.js';
import type { EventsTables } from '../events/event.table.js';
import type { IdempotencyTables } from '../http/idempotency.table.js';
import type { JobsTables } from '../jobs/job.table.js';
import type { UsageTables } from '../usage/usage.table.js';
import type { WebhooksTables } from '../webhooks/webhook.table.js';

/**
 * Every table of the service, for Kysely. The platform's tables are listed here; a domain adds
 * its own by declaration merging in its `*.table.ts`, so this file names no domain:
 *
 *   declare module '../platform/db/schema.js' {
 *     interface Database extends ConnectTables {}
 *   }
 */
export interface Database extends JobsTables, EventsTables, IdempotencyTables, WebhooksTables, UsageTables, DataKeysTables {}
