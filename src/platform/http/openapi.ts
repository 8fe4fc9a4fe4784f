import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

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
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
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
      tags: [
        { name: 'Account holders', description: 'The people who connect accounts and share claims.' },
        { name: 'Events', description: 'What happened, newest first; the same events are delivered to webhook endpoints.' },
        { name: 'Health', description: 'Liveness and readiness probes (no authentication).' },
      ],
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
      onRequest: async (_request, reply) => {
        reply.header('content-security-policy', DOCS_CSP);
      },
    },
  });
}
