import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';

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
      expect(Object.keys(op.responses), path).toEqual(expect.arrayContaining(['200', '400', '401', '500']));
    }
    expect(Object.keys(spec.components.schemas)).toEqual(expect.arrayContaining(['Error', 'AccountHolder']));
  });

  it('documents Idempotency-Key on every API POST and the rate-limit headers on every API response', () => {
    for (const [path, methods] of Object.entries(spec.paths).filter(([p]) => p.startsWith('/v1/'))) {
      for (const [method, op] of Object.entries(methods) as [string, Operation & { parameters?: { name: string; in: string }[] }][]) {
        if (method === 'post') expect(op.parameters?.some((p) => p.name === 'Idempotency-Key' && p.in === 'header'), path).toBe(true);
        for (const response of Object.values(op.responses) as { headers?: Record<string, unknown> }[]) {
          expect(Object.keys(response.headers ?? {}), path).toEqual(expect.arrayContaining(['Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']));
        }
      }
    }
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
