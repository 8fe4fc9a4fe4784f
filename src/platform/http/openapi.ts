import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { OpenApiTag } from '../module.js';

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

/**
 * OpenAPI 3.1 generated from the route schemas (nothing written by hand), served at
 * `/v1/openapi.json`, and a human reference page at `/docs` served from the installed package.
 */
export async function registerOpenApi(app: FastifyInstance, tags: readonly OpenApiTag[]): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'ownproof API',
        version: '1',
        description:
          'Connect exchange accounts and self-custody Bitcoin wallets, verify Bitcoin ownership, and share claims and statements. ' +
          'Every request carries `Authorization: Bearer sk_test_...` (test mode) or `sk_live_...` (live mode). ' +
          'Errors share one shape: `{"error": {"type", "code", "message", "param", "request_id"}}`.',
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
    transformObject: (documents) => addCommonHeaders((documents as { openapiObject: OpenApiDocument }).openapiObject) as never,
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
      onRequest: async (_request, reply) => {
        reply.header('content-security-policy', DOCS_CSP);
      },
    },
  });
}

type Operation = { parameters?: unknown[]; responses?: Record<string, { headers?: Record<string, unknown> }>; security?: unknown[] };
type OpenApiDocument = { paths?: Record<string, Record<string, Operation>>; components?: Record<string, unknown> };

const header = (description: string, schema: object) => ({ description, schema });
const RESPONSE_HEADERS = {
  'Request-Id': header('Identifier of this request; quote it when asking for support.', { type: 'string' }),
  'RateLimit-Limit': header('Requests allowed per window for this client and mode (for session polling: per session).', { type: 'integer' }),
  'RateLimit-Remaining': header('Requests left in the current window.', { type: 'integer' }),
  'RateLimit-Reset': header('Seconds until the current window ends.', { type: 'integer' }),
};

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
          ...RESPONSE_HEADERS,
          ...(status === '429' ? { 'Retry-After': header('Seconds to wait before retrying.', { type: 'integer' }) } : {}),
          ...response.headers,
        };
      }
    }
  }
  return document;
}
