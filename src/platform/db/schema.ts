import type { ClientsTables } from '../../clients/client.table.js';
import type { AccountHoldersTables } from '../../connect/account-holder.table.js';
import type { ConnectTables } from '../../connect/connect.table.js';
import type { EventsTables } from '../events/event.table.js';
import type { IdempotencyTables } from '../http/idempotency.table.js';
import type { JobsTables } from '../jobs/job.table.js';
import type { WebhooksTables } from '../webhooks/webhook.table.js';

/** Every table of the service: each domain declares its own and they meet here for Kysely. */
export interface Database extends ClientsTables, AccountHoldersTables, JobsTables, EventsTables, IdempotencyTables, WebhooksTables, ConnectTables {}
