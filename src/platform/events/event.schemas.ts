import { Type, type Static } from '@sinclair/typebox';
import { PageQueryFields } from '../http/page.schemas.js';
import { Timestamp } from '../http/schemas.js';

/**
 * Event types and what `data.object` holds. Every state change a client may want to react to is
 * recorded as one of these, in the same transaction as the change.
 */
export const EVENT_TYPES = [
  'account_holder.created',
  'account_holder.updated',
  'session.completed',
  'session.abandoned',
  'account.refreshed',
  'account.disconnected',
  'claim.created',
  'claim.revoked',
  'access_request.granted',
  'access_request.declined',
  'access_request.expired',
  'access_request.canceled',
  'access_request.notification_failed',
  'claim.access_revoked',
  'statement.completed',
  'statement.failed',
  'webhook_endpoint.disabled',
  // Sent to one endpoint when you ask (a test helper), not to every subscriber: see pingWebhookEndpoint.
  'webhook_endpoint.ping',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const Event = Type.Object(
  {
    id: Type.String({ description: 'Unique identifier, prefixed `evt_`.' }),
    object: Type.Literal('event'),
    type: Type.Union(
      EVENT_TYPES.map((t) => Type.Literal(t)),
      { description: 'What happened.' },
    ),
    created_at: Timestamp('When it happened (Unix seconds).'),
    livemode: Type.Boolean(),
    data: Type.Object(
      { object: Type.Object({}, { additionalProperties: true, description: 'The API object as it was right after the change.' }) },
      { additionalProperties: false },
    ),
  },
  { $id: 'Event', title: 'Event', description: 'Something that happened in your account; also delivered to webhook endpoints.' },
);
export type Event = Static<typeof Event>;

export const EventListQuery = Type.Object(
  {
    ...PageQueryFields,
    type: Type.Optional(
      Type.String({
        maxLength: 100,
        pattern: '^[a-z_]+(\\.[a-z_]+|\\.\\*)$',
        description: 'Only events of this type, or of a family with a trailing wildcard: `session.*`.',
        'x-error-message': 'must be an event type such as "session.completed" or a family such as "session.*"',
      }),
    ),
    'created[gte]': Type.Optional(Type.Integer({ minimum: 0, description: 'Only events created at or after this Unix time.' })),
    'created[lte]': Type.Optional(Type.Integer({ minimum: 0, description: 'Only events created at or before this Unix time.' })),
  },
  { additionalProperties: false },
);
export type EventListQuery = Static<typeof EventListQuery>;
