import { Type, type Static } from '@sinclair/typebox';
import { EVENT_TYPES, type EventType } from '../events/event.schemas.js';
import { PageQueryFields } from '../http/page.schemas.js';
import { Timestamp } from '../http/schemas.js';
import { MESSAGE_KEYWORD } from '../http/validation.js';
import { MAX_URL_LENGTH } from './url-policy.js';

export type EnabledEvent = EventType | '*';

/** Longest grace period of a secret rotation: a week. */
const MAX_GRACE_PERIOD_SECONDS = 7 * 24 * 3600;
export const DEFAULT_GRACE_PERIOD_SECONDS = 24 * 3600;

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description:
    'Where events are POSTed. Live mode: https, a public address, port 443 or 1024–65535. Test mode also allows http and loopback addresses. ' +
    'No user name or password, no fragment, no white space, control characters or backslashes (refused, never rewritten). ' +
    'Stored and shown in its normalised form (lower-case scheme and host, percent-encoded). See docs/webhooks.md.',
  examples: ['https://example.com/webhooks/ownproof'],
});

const EnabledEventItem = Type.Unsafe<EnabledEvent>({
  type: 'string',
  enum: [...EVENT_TYPES, '*'],
  description: 'An event type, or `*` for all of them (including types added later).',
});

const EnabledEvents = Type.Array(EnabledEventItem, {
  minItems: 1,
  maxItems: EVENT_TYPES.length + 1,
  uniqueItems: true,
  description: 'The event types sent to this endpoint, or `["*"]` for every type.',
  examples: [['session.completed', 'statement.completed'], ['*']],
});

const Description = Type.String({ minLength: 1, maxLength: 500, description: 'Your note about this endpoint.' });

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String({ description: 'Unique identifier, prefixed `we_`.', examples: ['we_3Xk9V1c0aQeWmZ7rT2yB5n'] }),
    object: Type.Literal('webhook_endpoint'),
    url: Type.String(),
    enabled_events: Type.Array(Type.String()),
    description: Type.Union([Type.String(), Type.Null()]),
    status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')], { description: 'Only enabled endpoints receive events.' }),
    disabled_reason: Type.Union([Type.Literal('manual'), Type.Literal('gone'), Type.Literal('failing'), Type.Null()], {
      description:
        'Why it is disabled: `manual` (you set `disabled: true`), `gone` (the receiver answered 410), `failing` (every attempt failed for 5 days). null while enabled.',
    }),
    previous_secret_expires_at: Type.Union([
      Timestamp('Until when deliveries are also signed with the secret before the last rotation.'),
      Type.Null(),
    ]),
    livemode: Type.Boolean({ description: 'true for live mode, false for test mode.' }),
    created_at: Timestamp('When it was created (Unix seconds).'),
    updated_at: Timestamp('When it last changed (Unix seconds).'),
  },
  { $id: 'WebhookEndpoint', title: 'Webhook endpoint', description: 'A URL that receives signed events.' },
);
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = Type.Composite(
  [
    WebhookEndpoint,
    Type.Object({
      secret: Type.String({
        description: 'The signing secret (`whsec_...`), shown only now: pass it to the standardwebhooks library to verify deliveries.',
      }),
    }),
  ],
  { $id: 'WebhookEndpointWithSecret', title: 'Webhook endpoint with its secret' },
);
export type WebhookEndpointWithSecret = Static<typeof WebhookEndpointWithSecret>;

export const DeletedWebhookEndpoint = Type.Object(
  { id: Type.String(), object: Type.Literal('webhook_endpoint'), deleted: Type.Literal(true) },
  { title: 'Deleted webhook endpoint' },
);

export const CreateWebhookEndpointBody = Type.Object(
  { url: Url, enabled_events: EnabledEvents, description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type CreateWebhookEndpointInput = Static<typeof CreateWebhookEndpointBody>;

export const UpdateWebhookEndpointBody = Type.Object(
  {
    url: Type.Optional(Url),
    enabled_events: Type.Optional(EnabledEvents),
    description: Type.Optional(Type.Union([Description, Type.Null()], { description: 'New description, or null to remove it.' })),
    disabled: Type.Optional(
      Type.Boolean({ description: 'true stops deliveries (reason `manual`); false enables the endpoint again, whatever disabled it.' }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateWebhookEndpointInput = Static<typeof UpdateWebhookEndpointBody>;

export const RotateSecretBody = Type.Object(
  {
    grace_period: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_GRACE_PERIOD_SECONDS,
        description: `Seconds during which deliveries are also signed with the previous secret (default ${DEFAULT_GRACE_PERIOD_SECONDS}, 0 to drop it at once, at most ${MAX_GRACE_PERIOD_SECONDS}).`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type RotateSecretInput = Static<typeof RotateSecretBody>;

export const WebhookDeliveryAttempt = Type.Object(
  {
    id: Type.String({ description: 'Unique identifier, prefixed `wha_`.' }),
    object: Type.Literal('webhook_delivery_attempt'),
    endpoint: Type.String({ description: 'The webhook endpoint (`we_...`).' }),
    event: Type.String({ description: 'The event delivered (`evt_...`); also the `webhook-id` header.' }),
    delivery: Type.String({
      description: 'The delivery (`whd_...`) this attempt belongs to: the event to this endpoint, once per fan-out and once per resend.',
    }),
    attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt of the delivery, 2 for the first retry, ...' }),
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
    response_status: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The HTTP status the receiver answered; null when none came.',
    }),
    duration_ms: Type.Integer({ description: 'From the start of the request to the end of the response.' }),
    error: Type.Union([Type.String(), Type.Null()], {
      description: 'Why it failed, e.g. `HTTP 500`, `timed out after 15 s`, `connection refused`.',
    }),
    next_attempt_at: Type.Union([Timestamp('When the next attempt of this delivery is due.'), Type.Null()], {
      description: 'null when there is none: it succeeded, or the delivery was given up.',
    }),
    livemode: Type.Boolean(),
    created_at: Timestamp('When the attempt was made (Unix seconds).'),
  },
  { $id: 'WebhookDeliveryAttempt', title: 'Webhook delivery attempt', description: 'One HTTP request sending an event to an endpoint.' },
);
export type WebhookDeliveryAttempt = Static<typeof WebhookDeliveryAttempt>;

export const DeliveryListQuery = Type.Object(
  {
    ...PageQueryFields,
    event: Type.Optional(Type.String({ maxLength: 255, description: 'Only attempts delivering this event (`evt_...`).' })),
  },
  { additionalProperties: false },
);
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;

export const ResendEventBody = Type.Object(
  {
    endpoint: Type.Optional(
      Type.String({
        maxLength: 255,
        description:
          'Send only to this endpoint (`we_...`), even if it is not subscribed to the event type. Default: every enabled, subscribed endpoint.',
        [MESSAGE_KEYWORD]: 'must be a webhook endpoint id (we_...)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ResendEventInput = Static<typeof ResendEventBody>;

export const EventResend = Type.Object(
  {
    object: Type.Literal('event_resend'),
    event: Type.String({ description: 'The event being sent again (`evt_...`).' }),
    endpoints: Type.Array(Type.String(), { description: 'The endpoints it was queued for; empty when no enabled endpoint takes it.' }),
  },
  { $id: 'EventResend', title: 'Event resend', description: 'Which endpoints an event was queued for again.' },
);
export type EventResend = Static<typeof EventResend>;
