import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { Mode } from '../scope.js';

export type WebhookEndpointStatus = 'enabled' | 'disabled';
/** Why an endpoint is disabled: by the client (`manual`), by a 410 from the receiver (`gone`), or after 5 days of failures (`failing`). */
export type WebhookDisabledReason = 'manual' | 'gone' | 'failing';

export interface WebhookEndpointTable {
  seq: Generated<number>;
  id: string;
  client_id: string;
  mode: Mode;
  url: string;
  description: string | null;
  /** JSON array of event types, or `["*"]`. */
  enabled_events: string;
  /** The signing secret (`whsec_...`), sealed with the secret box; never stored in clear. */
  secret: string;
  /** The secret before the last rotation, sealed; deliveries carry its signature too until it expires. */
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  status: WebhookEndpointStatus;
  disabled_reason: WebhookDisabledReason | null;
  /** Unix seconds of the first failed attempt since the last success; null while healthy. */
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

export type WebhookAttemptStatus = 'succeeded' | 'failed';

/**
 * One HTTP request (or refusal to make it) of a delivery: what integrators list to debug their
 * receiver. A delivery (one event to one endpoint; each fan-out and each resend is one) is a
 * `webhooks.deliver` job: its job row holds the live state (attempts, next run, status) and these
 * rows its history, under the delivery id the job carries.
 */
export interface WebhookDeliveryAttemptTable {
  seq: Generated<number>;
  id: string;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  client_id: string;
  mode: Mode;
  attempt: number;
  status: WebhookAttemptStatus;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  next_attempt_at: number | null;
  created_at: number;
}

export type WebhookEndpointRow = Selectable<WebhookEndpointTable>;
export type NewWebhookEndpointRow = Insertable<WebhookEndpointTable>;
export type WebhookEndpointUpdate = Updateable<WebhookEndpointTable>;
export type WebhookDeliveryAttemptRow = Selectable<WebhookDeliveryAttemptTable>;
export type NewWebhookDeliveryAttemptRow = Insertable<WebhookDeliveryAttemptTable>;

export interface WebhooksTables {
  webhook_endpoints: WebhookEndpointTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptTable;
}
