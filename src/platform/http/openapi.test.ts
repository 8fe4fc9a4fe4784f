import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_METHODS, readOperations, type JsonSchema, type OpenApiDocument } from '../../../test/support/openapi-operations.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';
import { EVENT_TYPES } from '../events/event.schemas.js';
import { ERROR_TABLE, type ErrorCode } from './errors.js';

/**
 * Where each code of the error table can happen, so the document can be checked against the table:
 * - `authenticated`: any operation that takes an API key (authentication, rate limits, parameters);
 * - `post`: any POST (Idempotency-Key);
 * - `body`: any operation whose method has a body Fastify reads (POST, PUT, PATCH, DELETE), whatever its schema;
 * - `path id`: any operation with an id in its path;
 * - `route`: only the routes that throw it, which declare it themselves (the route-security probes and the
 *   route's own tests see them);
 * - `no operation`: answered for a URL no operation matches (or never produced, see below).
 * A code added to the table without a line here fails type checking (`satisfies`).
 */
const WHERE_CODES_HAPPEN = {
  api_key_missing: 'authenticated',
  api_key_malformed: 'authenticated',
  api_key_invalid: 'authenticated',
  api_key_revoked: 'authenticated',
  rate_limit_exceeded: 'authenticated',
  parameter_unknown: 'authenticated',
  parameter_missing: 'authenticated',
  parameter_invalid: 'authenticated',
  api_error: 'authenticated',
  // Any write, when the database's disk is full.
  storage_full: 'authenticated',
  invalid_json: 'body',
  body_invalid: 'body',
  unsupported_media_type: 'body',
  body_too_large: 'body',
  body_incomplete: 'body',
  idempotency_key_reused: 'post',
  idempotency_request_in_progress: 'post',
  resource_missing: 'path id',
  external_ref_taken: 'route',
  permission_missing: 'route',
  account_disconnected: 'route',
  account_requires_reauth: 'route',
  refresh_throttled: 'route',
  access_request_type_unsupported: 'route',
  access_request_not_pending: 'route',
  mail_unavailable: 'route',
  statement_permission_missing: 'route',
  statement_not_ready: 'route',
  statement_failed: 'route',
  test_mode_only: 'route',
  session_not_open: 'route',
  session_opened_in_browser: 'route',
  no_shareable_claims: 'route',
  webhook_endpoint_disabled: 'route',
  route_not_found: 'no operation',
  method_not_allowed: 'no operation',
  // Written on the socket when Node's parser refuses the bytes: no request, so no operation, exists.
  request_malformed: 'no operation',
  headers_too_large: 'no operation',
  request_timeout: 'no operation',
  // Nothing throws it today: while the server closes, Fastify itself answers 503 before routing.
  service_unavailable: 'no operation',
  // Only the statement check page takes multipart uploads; no API operation does.
  upload_malformed: 'no operation',
} as const satisfies Record<ErrorCode, 'authenticated' | 'post' | 'body' | 'path id' | 'route' | 'no operation'>;

interface Operation {
  operationId?: string;
  security?: unknown[];
  responses: Record<string, unknown>;
}
type Spec = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

describe('OpenAPI document', () => {
  let t: TestApp;
  let spec: Spec;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    spec = res.json();
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI 3.1 document according to an independent validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(spec));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(spec.openapi).toBe('3.1.0');
  });

  it('documents every API route, each with an operation id, error responses and named shared schemas', () => {
    const operations = Object.entries(spec.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
    expect(operations.map((o) => `${o.method.toUpperCase()} ${o.path}`)).toEqual(
      expect.arrayContaining([
        'POST /v1/connect/account_holders',
        'GET /v1/connect/account_holders',
        'GET /v1/connect/account_holders/{id}',
        'POST /v1/connect/account_holders/{id}',
        'GET /healthz',
        'GET /readyz',
      ]),
    );
    for (const { path, op } of operations.filter((o) => o.path.startsWith('/v1/'))) {
      expect(op.operationId, path).toBeTruthy();
      // Operations anyone may call (security: []) have no API key to refuse.
      const expected = op.security?.length === 0 ? ['200', '400', '500'] : ['200', '400', '401', '500'];
      expect(Object.keys(op.responses), path).toEqual(expect.arrayContaining(expected));
    }
    expect(Object.keys(spec.components.schemas)).toEqual(expect.arrayContaining(['Error', 'AccountHolder']));
  });

  it('documents Idempotency-Key on every API POST and the rate-limit headers on every API response but a 401', () => {
    const rateLimitHeaders = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
    for (const [path, methods] of Object.entries(spec.paths).filter(([p]) => p.startsWith('/v1/'))) {
      for (const [method, op] of Object.entries(methods) as [string, Operation & { parameters?: { name: string; in: string }[] }][]) {
        if (method === 'post')
          expect(
            op.parameters?.some((p) => p.name === 'Idempotency-Key' && p.in === 'header'),
            path,
          ).toBe(true);
        for (const [status, response] of Object.entries(op.responses) as [string, { headers?: Record<string, unknown> }][]) {
          const headers = Object.keys(response.headers ?? {});
          expect(headers, `${path} ${status}`).toContain('Request-Id');
          // A request refused for its key reaches no limiter (docs/architecture.md, "Rate limits").
          if (status === '401')
            expect(
              headers.filter((h) => rateLimitHeaders.includes(h)),
              `${path} ${status}`,
            ).toEqual([]);
          else expect(headers, `${path} ${status}`).toEqual(expect.arrayContaining(rateLimitHeaders));
          if (status === '429') expect(headers, `${path} ${status}`).toContain('Retry-After');
        }
      }
    }
  });

  it('declares on every API operation the error statuses the error table says it can return, each with the Error schema and a description', () => {
    const document = spec as unknown as OpenApiDocument;
    const operations = readOperations(document).filter((op) => op.authenticated && op.path.startsWith('/v1/'));
    expect(operations.length).toBeGreaterThan(20);
    const missing: string[] = [];
    for (const op of operations) {
      const applies = {
        authenticated: true,
        post: op.method === 'POST',
        body: BODY_METHODS.includes(op.method),
        'path id': op.pathParams.length > 0,
        route: false,
        'no operation': false,
      };
      for (const [code, where] of Object.entries(WHERE_CODES_HAPPEN)) {
        const status = String(ERROR_TABLE[code as ErrorCode].status);
        if (applies[where] && !(status in op.declared)) missing.push(`${op.name} lacks ${status} (${code})`);
      }
      for (const [status, response] of Object.entries(op.declared).filter(([s]) => Number(s) >= 400)) {
        expect(response.content?.['application/json']?.schema, `${op.name} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
        expect(response.description, `${op.name} ${status}`).toMatch(/\w/);
      }
    }
    expect(missing).toEqual([]);
  });

  it('gives every operation an operationId, a summary and a description', () => {
    const lacking = Object.entries(spec.paths).flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([method, op]) =>
        (['operationId', 'summary', 'description'] as const)
          .filter((field) => !(op as Operation & { summary?: string; description?: string })[field])
          .map((field) => `${method.toUpperCase()} ${path} lacks ${field}`),
      ),
    );
    expect(lacking).toEqual([]);
  });

  it('marks a query parameter that has a default as optional, showing the default (limit: 10 on every list)', () => {
    const document = spec as unknown as OpenApiDocument;
    const defaulted = readOperations(document).flatMap((op) =>
      op.queryParams.filter((p) => p.schema?.default !== undefined).map((p) => ({ op, p })),
    );
    expect(defaulted.length).toBeGreaterThan(10);
    for (const { op, p } of defaulted) expect(p.required, `${op.name} ?${p.name}`).toBe(false);
    const limits = readOperations(document).flatMap((op) => op.queryParams.filter((p) => p.name === 'limit').map((p) => ({ op, p })));
    expect(limits.length).toBeGreaterThan(10);
    for (const { op, p } of limits)
      expect({ op: op.name, required: p.required, default: p.schema?.default }).toEqual({ op: op.name, required: false, default: 10 });
  });

  it('names its license and a contact', () => {
    const info = (
      spec as unknown as {
        info: { license?: { name?: string; identifier?: string; url?: string }; contact?: { name?: string; url?: string } };
      }
    ).info;
    expect(info.license?.name).toMatch(/\w/);
    expect(info.license?.identifier ?? info.license?.url).toBeTruthy();
    expect(info.contact?.url).toBe(t.ctx.config.publicBaseUrl);
  });

  it('types every request body and response that is not JSON as binary', () => {
    const binary: string[] = [];
    for (const op of readOperations(spec as unknown as OpenApiDocument)) {
      const raw = (spec.paths[op.path] as Record<string, { requestBody?: { content: Record<string, { schema?: object }> } }>)[
        op.method.toLowerCase()
      ];
      const contents = [
        ...Object.entries(raw?.requestBody?.content ?? {}).map(([type, media]) => ({ at: `${op.name} body`, type, media })),
        ...Object.entries(op.declared).flatMap(([status, response]) =>
          Object.entries(response.content ?? {}).map(([type, media]) => ({ at: `${op.name} ${status}`, type, media })),
        ),
      ];
      for (const { at, type, media } of contents.filter((c) => c.type !== 'application/json')) {
        expect(media.schema, `${at} ${type}`).toMatchObject({ type: 'string', format: 'binary' });
        binary.push(`${at} ${type}`);
      }
    }
    expect(binary).toEqual(
      expect.arrayContaining([
        'GET /v1/verify/statements/{id}/document/pdf 200 application/pdf',
        'POST /v1/verify/statements/verify body application/pdf',
      ]),
    );
  });

  it('types Event as a union of one variant per event type, told apart by `type`, whose data.object is an object the API serves', () => {
    const schemas = spec.components.schemas as Record<string, JsonSchema>;
    const event = schemas.Event as {
      oneOf?: { $ref: string }[];
      discriminator?: { propertyName: string; mapping: Record<string, string> };
    };
    expect(event.discriminator?.propertyName).toBe('type');
    const mapping = event.discriminator?.mapping ?? {};
    expect(Object.keys(mapping)).toEqual([...EVENT_TYPES]);
    expect(event.oneOf).toEqual(Object.values(mapping).map(($ref) => ({ $ref })));
    const objectOf = (type: string) => {
      const variant = schemas[(mapping[type] ?? '').replace('#/components/schemas/', '')] as {
        properties: { type: unknown; data: { properties: { object: { $ref: string } } } };
      };
      expect(variant.properties.type, type).toEqual({ type: 'string', const: type });
      return variant.properties.data.properties.object.$ref;
    };
    const served = new Set(JSON.stringify(spec.paths).match(/#\/components\/schemas\/\w+/g));
    for (const type of EVENT_TYPES) expect(served, `${type}: ${objectOf(type)}`).toContain(objectOf(type));
    expect(objectOf('session.completed')).toBe('#/components/schemas/Session');
    expect(objectOf('statement.completed')).toBe('#/components/schemas/Statement');
    expect(objectOf('access_request.granted')).toBe('#/components/schemas/AccessRequest');
    expect(objectOf('claim.access_revoked')).toBe('#/components/schemas/Claim');
    expect(objectOf('webhook_endpoint.disabled')).toBe('#/components/schemas/WebhookEndpoint');
    // GET /v1/events and GET /v1/events/{id} return that union.
    expect(JSON.stringify(spec.paths['/v1/events/{id}'])).toContain('"$ref":"#/components/schemas/Event"');
  });

  it('describes each event type as a webhook: its Event variant as the body, the Standard Webhooks headers, what each answer does', () => {
    const webhooks = (spec as unknown as { webhooks: Record<string, { post: Record<string, unknown> }> }).webhooks;
    expect(Object.keys(webhooks)).toEqual([...EVENT_TYPES]);
    const mapping = (spec.components.schemas.Event as { discriminator: { mapping: Record<string, string> } }).discriminator.mapping;
    const parameters =
      (spec.components as { parameters?: Record<string, { name: string; in: string; required: boolean }> }).parameters ?? {};
    for (const type of EVENT_TYPES) {
      const op = webhooks[type]?.post as {
        operationId: string;
        summary: string;
        description: string;
        security: unknown[];
        parameters: { $ref: string }[];
        requestBody: { required: boolean; content: Record<string, { schema: unknown }> };
        responses: Record<string, { description: string }>;
      };
      expect(op.operationId, type).toMatch(/^[a-zA-Z]+$/);
      expect(op.summary, type).toContain(type);
      expect(op.description, type).toMatch(/\w/);
      expect(op.security, type).toEqual([]);
      expect(op.requestBody, type).toEqual({ required: true, content: { 'application/json': { schema: { $ref: mapping[type] } } } });
      const headers = op.parameters.map((p) => parameters[p.$ref.replace('#/components/parameters/', '')]);
      expect(headers.map((h) => [h?.name, h?.in, h?.required])).toEqual([
        ['webhook-id', 'header', true],
        ['webhook-timestamp', 'header', true],
        ['webhook-signature', 'header', true],
      ]);
      expect(Object.keys(op.responses), type).toEqual(['410', '429', '503', '2XX', 'default']);
    }
    expect(new Set(EVENT_TYPES.map((type) => (webhooks[type]?.post as { operationId: string }).operationId)).size).toBe(EVENT_TYPES.length);
  });

  it('is served from /api/v1 as well', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.json()).toEqual(spec);
  });

  it('is rendered as a reference page at /docs from the package, with no third-party origin', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).not.toMatch(/https?:\/\/(?!127\.0\.0\.1|localhost)/);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(assets.length).toBeGreaterThan(1);
    for (const asset of assets) {
      const url = new URL(asset, 'http://127.0.0.1/docs/');
      expect(url.host).toBe('127.0.0.1');
      const res = await t.app.inject({ method: 'GET', url: url.pathname });
      expect(res.statusCode, asset).toBe(200);
    }
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
  });
});
