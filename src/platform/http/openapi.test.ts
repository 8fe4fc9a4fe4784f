import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_METHODS, readOperations, type OpenApiDocument } from '../../../test/support/openapi-operations.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';
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
  invalid_json: 'body',
  body_invalid: 'body',
  unsupported_media_type: 'body',
  body_too_large: 'body',
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
        if (method === 'post') expect(op.parameters?.some((p) => p.name === 'Idempotency-Key' && p.in === 'header'), path).toBe(true);
        for (const [status, response] of Object.entries(op.responses) as [string, { headers?: Record<string, unknown> }][]) {
          const headers = Object.keys(response.headers ?? {});
          expect(headers, `${path} ${status}`).toContain('Request-Id');
          // A request refused for its key reaches no limiter (docs/architecture.md, "Rate limits").
          if (status === '401') expect(headers.filter((h) => rateLimitHeaders.includes(h)), `${path} ${status}`).toEqual([]);
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
