import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { EventDeclaration } from '../events/event-catalog.js';
import type { OpenApiTag } from '../module.js';
import { describeEvents } from '../webhooks/webhook-openapi.js';
import { ERROR_DESCRIPTIONS } from './schemas.js';

const DOCS_CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  // Swagger UI sets inline styles on its widgets; scripts stay same-origin only.
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** What the modules add to the document besides their routes. */
export interface OpenApiParts {
  /** Their tags, in the order `/docs` shows them. */
  tags: readonly OpenApiTag[];
  /** Every event type with its object's schema: the webhooks and the `Event` union. */
  events: readonly EventDeclaration[];
}

/**
 * OpenAPI 3.1 generated from the route schemas and the modules' event declarations (nothing
 * written by hand), served at `/v1/openapi.json`, and a human reference page at `/docs` served
 * from the installed package.
 */
export async function registerOpenApi(app: FastifyInstance, { tags, events }: OpenApiParts): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'ownproof API',
        version: '1',
        description:
          'Connect exchange accounts and self-custody Bitcoin wallets, verify Bitcoin ownership, and share claims and statements. ' +
          'Every request carries `Authorization: Bearer sk_test_...` (test mode) or `sk_live_...` (live mode). ' +
          'Errors share one shape: `{"error": {"type", "code", "message", "param", "request_id"}}`. ' +
          'Conventions (modes, errors, idempotency, pagination, rate limits, versioning): docs/api.md.',
        // The operator of this server is who integrators talk to; package.json says the code is UNLICENSED.
        contact: { name: 'The operator of this ownproof server', url: app.ctx.config.publicBaseUrl },
        license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: app.ctx.config.publicBaseUrl, description: 'This server' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: sk_test_... or sk_live_...' },
        },
      },
      security: [{ apiKey: [] }],
      tags: [...tags, { name: 'Health', description: 'Liveness and readiness probes (no authentication).' }],
    },
    // Headers every API operation shares are added to the generated document here rather than to
    // each route schema, where Fastify would also start validating them.
    transformObject: (documents) => {
      const document = addCommonHeaders(declareCommonErrors((documents as { openapiObject: OpenApiDocument }).openapiObject));
      describeEvents(document, events);
      return document as never;
    },
    refResolver: {
      // Shared schemas keep their own names ($id) in components.schemas.
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });

  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
    uiHooks: {
      onRequest: (_request, reply, done) => {
        reply.header('content-security-policy', DOCS_CSP);
        done();
      },
    },
  });
}

type Response = { description?: string; content?: Record<string, unknown>; headers?: Record<string, unknown> };
type Operation = { parameters?: ({ in?: string } & Record<string, unknown>)[]; responses?: Record<string, Response>; security?: unknown[] };
type OpenApiDocument = { paths?: Record<string, Record<string, Operation>>; components?: Record<string, unknown> };

const header = (description: string, schema: object) => ({ description, schema });
const RESPONSE_HEADERS = {
  'Request-Id': header('Identifier of this request; quote it when asking for support.', { type: 'string' }),
  'RateLimit-Limit': header('Requests allowed per window for this client and mode (for session polling: per session).', {
    type: 'integer',
  }),
  'RateLimit-Remaining': header('Requests left in the current window.', { type: 'integer' }),
  'RateLimit-Reset': header('Seconds until the current window ends.', { type: 'integer' }),
};

/** Methods whose request body Fastify reads (a GET, HEAD or TRACE body is ignored), whatever the route's schema. */
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

const IDEMPOTENCY_CONFLICT =
  'Idempotency conflict: the Idempotency-Key was already used with another request (`idempotency_key_reused`) or its first ' +
  'request is still running (`idempotency_request_in_progress`).';

/**
 * Declares, on every authenticated `/v1` operation, the error statuses the platform can answer
 * before or around any handler, so no route has to remember them: 400 (parameters), 401
 * (authentication), 429 (rate limit), 500 and 503 (a full disk) everywhere; 409 (idempotency conflicts) on every POST;
 * 413 and 415 wherever a body is read; 404 wherever the path names an object. What only a route's
 * handler can answer (403, a 409 of its own) the route declares with `errorResponses(...)`. Each
 * error response is the shared `Error` schema with a description.
 */
function declareCommonErrors(document: OpenApiDocument): OpenApiDocument {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, operation] of Object.entries(operations)) {
      if (operation.security !== undefined && operation.security.length === 0) continue;
      const statuses = [400, 401, 429, 500, 503];
      if (method === 'post') statuses.push(409);
      if (BODY_METHODS.has(method)) statuses.push(413, 415);
      if ((operation.parameters ?? []).some((p) => p.in === 'path')) statuses.push(404);
      const responses = (operation.responses ??= {});
      // A POST's 409 is also an idempotency conflict, besides whatever the route's own 409 means.
      const routeConflict = responses[409];
      if (method === 'post' && routeConflict)
        routeConflict.description = `${routeConflict.description ?? ''} ${IDEMPOTENCY_CONFLICT}`.trim();
      for (const status of statuses) {
        responses[status] ??= {
          description: status === 409 ? IDEMPOTENCY_CONFLICT : (ERROR_DESCRIPTIONS[status] ?? 'Error.'),
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        };
      }
    }
  }
  return document;
}

/** Documents Idempotency-Key on every authenticated POST and the shared response headers. */
function addCommonHeaders(document: OpenApiDocument): OpenApiDocument {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, operation] of Object.entries(operations)) {
      if (method === 'post') {
        operation.parameters = [
          ...(operation.parameters ?? []),
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              'Makes a retry safe: the same key with the same request within 24 h replays the first response (header ' +
              '`Idempotent-Replayed: true`); with a different request it is 409 `idempotency_key_reused`. 1–255 printable characters.',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
        ];
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = {
          // A request refused for its API key reaches no rate limiter: its 401 has no RateLimit headers.
          ...(status === '401' ? { 'Request-Id': RESPONSE_HEADERS['Request-Id'] } : RESPONSE_HEADERS),
          ...(status === '429' ? { 'Retry-After': header('Seconds to wait before retrying.', { type: 'integer' }) } : {}),
          ...response.headers,
        };
      }
    }
  }
  return document;
}
