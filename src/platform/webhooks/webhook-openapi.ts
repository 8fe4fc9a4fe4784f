import type { EventDeclaration } from '../events/event-catalog.js';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema> };
type Document = {
  components?: { schemas?: Record<string, Schema>; parameters?: Record<string, unknown> };
  webhooks?: Record<string, unknown>;
};

const SCHEMAS = '#/components/schemas/';
const PARAMETERS = '#/components/parameters/';

/** The headers of every delivery (Standard Webhooks), as docs/webhooks.md describes them. */
const DELIVERY_HEADERS = {
  WebhookId: {
    name: 'webhook-id',
    description: 'The event id (`evt_…`): the same on every retry and resend, so deduplicate on it.',
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    description: 'When this attempt was sent (Unix seconds); newer on each retry. Refuse one more than 5 minutes from your clock.',
  },
  WebhookSignature: {
    name: 'webhook-signature',
    description:
      '`v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` keyed with the endpoint secret (the part after `whsec_`, ' +
      'base64-decoded). During a rotation’s grace period, two signatures separated by a space; one matching is enough.',
  },
};

/** What your answer to a delivery does (docs/webhooks.md, "Delivery rules"). */
const RETRY_AFTER =
  'Retried; with a `Retry-After` header (seconds or an HTTP date), no sooner than it says (at most 24 hours), and never sooner than the retry schedule.';
const DELIVERY_ANSWERS = {
  '410': { description: 'Gone: the endpoint is disabled at once (`disabled_reason: "gone"`), without retry.' },
  '429': { description: RETRY_AFTER },
  '503': { description: RETRY_AFTER },
  '2XX': { description: 'Received: any 2xx within 15 seconds. The response body is ignored.' },
  default: {
    description:
      'Any other status, a redirect (never followed), a timeout or a network error: retried up to 10 attempts over about 3 days; an endpoint ' +
      'whose attempts all fail for 5 days is disabled (`disabled_reason: "failing"`).',
  },
};

/** `session.completed` → `SessionCompleted`. */
function pascalCase(type: string): string {
  return type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/**
 * Makes the OpenAPI document tell each event type apart: one `Event` variant per type, whose
 * `data.object` is the schema the API serves that object with, `Event` itself the union of the
 * variants discriminated by `type` (what `GET /v1/events` returns), and one `webhooks` entry per
 * type whose body is its variant. The variants are the served `Event` schema (its common fields,
 * written once in event.schemas.ts) narrowed to one type; the object schemas are those of the
 * modules' event declarations. Throws if a declared object is a schema no route serves.
 */
export function describeEvents(document: Document, catalog: readonly EventDeclaration[]): void {
  const schemas = (document.components ??= {}).schemas ?? {};
  const base = schemas.Event;
  if (!base) throw new Error('the OpenAPI document has no Event schema');
  const { title, description, ...common } = base;
  const mapping: Record<string, string> = {};
  document.webhooks = {};
  for (const { type, object, description: when } of catalog) {
    const objectName = object.$id as string;
    if (!schemas[objectName]) throw new Error(`event type ${type}: its object schema ${objectName} is served by no route`);
    const name = `${pascalCase(type)}Event`;
    const variant = structuredClone(common) as Schema & { properties: Record<string, Schema> };
    variant.properties.type = { type: 'string', const: type };
    (variant.properties.data as Schema & { properties: Record<string, Schema> }).properties.object = { $ref: `${SCHEMAS}${objectName}` };
    schemas[name] = { description: `\`${type}\`: ${when}`, ...variant };
    mapping[type] = `${SCHEMAS}${name}`;
    document.webhooks[type] = {
      post: {
        operationId: `${pascalCase(type).replace(/^./, (c) => c.toLowerCase())}Webhook`,
        tags: ['Events'],
        summary: `${type} (webhook)`,
        description: `${when} Sent to each enabled webhook endpoint subscribed to \`${type}\` (or \`*\`).`,
        // Deliveries carry no API key: their signature is the webhook-signature header.
        security: [],
        parameters: Object.keys(DELIVERY_HEADERS).map((key) => ({ $ref: `${PARAMETERS}${key}` })),
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: mapping[type] } } } },
        responses: DELIVERY_ANSWERS,
      },
    };
  }
  schemas.Event = {
    title,
    description,
    oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
    discriminator: { propertyName: 'type', mapping },
  };
  document.components.parameters = {
    ...document.components.parameters,
    ...Object.fromEntries(
      Object.entries(DELIVERY_HEADERS).map(([key, header]) => [
        key,
        { ...header, in: 'header', required: true, schema: { type: 'string' } },
      ]),
    ),
  };
}
