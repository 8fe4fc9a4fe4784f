import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';

/**
 * Runs over every operation in the generated OpenAPI document, so a route added later is covered
 * without anyone remembering to add it here.
 */
describe('every authenticated route', () => {
  let t: TestApp;
  let operations: { method: string; path: string; url: string; name: string; requiresBody: boolean }[];

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const spec = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    type Op = { security?: unknown[]; requestBody?: { content: Record<string, { schema: { required?: string[] } }> } };
    operations = Object.entries(spec.paths as Record<string, Record<string, Op>>).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => op.security === undefined || op.security.length > 0)
        .map(([method, op]) => ({
          method: method.toUpperCase(),
          path,
          url: path.replace(/\{[^}]+\}/g, 'obj_doesnotexist000000000000'),
          name: `${method.toUpperCase()} ${path}`,
          requiresBody: (op.requestBody?.content['application/json']?.schema.required ?? []).length > 0,
        })),
    );
  });
  afterAll(() => t.close());

  it('includes the account holder routes (the list is read from the OpenAPI document)', () => {
    expect(operations.map((o) => o.name)).toContain('POST /v1/connect/account_holders/{id}');
  });

  it('answers 401 without a key, with a malformed key and with an unknown key, before touching anything', async () => {
    for (const op of operations) {
      for (const [authorization, code] of [
        [undefined, 'api_key_missing'],
        ['Bearer nope', 'api_key_malformed'],
        [`Bearer sk_live_${'0'.repeat(32)}`, 'api_key_invalid'],
      ] as const) {
        const res = await t.app.inject({
          method: op.method as 'GET',
          url: op.url,
          headers: { ...(authorization ? { authorization } : {}), 'content-type': 'application/json' },
          payload: op.method === 'GET' ? undefined : '{}',
        });
        expect(res.statusCode, `${op.name} ${code}`).toBe(401);
        expect(res.json().error.code, op.name).toBe(code);
      }
    }
  });

  it('answers 404, not an error, for an id that does not exist', async () => {
    const { testKey } = await t.newClient();
    for (const op of operations.filter((o) => o.url.includes('obj_doesnotexist'))) {
      const res = await t.app.inject({
        method: op.method as 'GET',
        url: op.url,
        headers: { authorization: `Bearer ${testKey}`, 'content-type': 'application/json' },
        payload: op.method === 'GET' ? undefined : '{}',
      });
      // The body is validated before the handler looks the id up: an empty body to an endpoint
      // that needs one is a 400 naming the missing field, which is just as safe.
      const expected = op.requiresBody ? ['resource_missing', 'parameter_missing'] : ['resource_missing'];
      expect(expected, op.name).toContain(res.json().error.code);
      expect(res.statusCode, op.name).toBe(res.json().error.code === 'resource_missing' ? 404 : 400);
    }
  });

  /** Each route with an id in its path, called with `id` in place of it. */
  async function callWithId(testKey: string, id: string) {
    const answers = [];
    for (const op of operations.filter((o) => o.path.includes('{'))) {
      const res = await t.app.inject({
        method: op.method as 'GET',
        url: op.path.replace(/\{[^}]+\}/g, id),
        headers: { authorization: `Bearer ${testKey}`, 'content-type': 'application/json' },
        payload: op.method === 'GET' ? undefined : '{}',
      });
      answers.push({ op, res });
    }
    return answers;
  }

  // Fastify's router refuses a path segment over 100 characters by default, with an answer of its own.
  it('answers an id of 255 characters, the longest an id may be, like any unknown id', async () => {
    const { testKey } = await t.newClient();
    for (const { op, res } of await callWithId(testKey, `obj_${'a'.repeat(251)}`)) {
      const expected = op.requiresBody ? ['resource_missing', 'parameter_missing'] : ['resource_missing'];
      expect(expected, op.name).toContain(res.json().error.code);
      expect(res.headers['request-id'], op.name).toBe(res.json().error.request_id);
    }
  });

  it('answers 400 parameter_invalid naming the id for an id over 255 characters', async () => {
    const { testKey } = await t.newClient();
    for (const { op, res } of await callWithId(testKey, `obj_${'a'.repeat(252)}`)) {
      expect(res.statusCode, op.name).toBe(400);
      expect(res.json().error, op.name).toMatchObject({ code: 'parameter_invalid', param: 'id' });
    }
  });
});
