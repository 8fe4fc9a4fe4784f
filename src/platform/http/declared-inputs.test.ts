import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { service } from '../../main/modules.js';
import { buildValidatorCompiler, validationError } from './validation.js';

interface Operation {
  method: string;
  path: string;
  /** The path with every `{…}` id replaced by one that names nothing. */
  url: string;
  name: string;
  takesBody: boolean;
  requiresBody: boolean;
  listUrl?: { enum?: string[]; description?: string };
}

/** Every /v1 operation of the generated OpenAPI document: routes added later are covered too. */
function apiOperations(spec: { paths: Record<string, Record<string, Record<string, unknown>>> }): Operation[] {
  type Op = {
    requestBody?: { content: Record<string, { schema: { required?: string[] } }> };
    responses: Record<
      string,
      { content?: Record<string, { schema: { properties?: Record<string, { enum?: unknown[]; description?: string }> } }> }
    >;
  };
  return Object.entries(spec.paths as Record<string, Record<string, Op>>)
    .filter(([path]) => path.startsWith('/v1/'))
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => {
        const properties = op.responses['200']?.content?.['application/json']?.schema.properties;
        const isList = properties?.object?.enum?.length === 1 && properties.object.enum[0] === 'list';
        return {
          method: method.toUpperCase(),
          path,
          url: path.replace(/\{[^}]+\}/g, 'obj_doesnotexist000000000000'),
          name: `${method.toUpperCase()} ${path}`,
          takesBody: op.requestBody !== undefined,
          requiresBody: (op.requestBody?.content['application/json']?.schema.required ?? []).length > 0,
          ...(isList ? { listUrl: properties.url as { enum?: string[]; description?: string } } : {}),
        };
      }),
    );
}

/** A route that declares no input at all, as a module might add one later (hidden from the document). */
const undeclaredRoute: FastifyPluginAsync = async (api) => {
  api.post('/probe/undeclared', { schema: { hide: true } }, async (request) => ({ body: request.body ?? null }));
};

describe.each(engines())('input rules of every API route on %s', (engine) => {
  let t: TestApp;
  let app: FastifyInstance;
  let client: TestClient;
  let operations: Operation[];
  const send = (method: string, url: string, payload?: string) =>
    app.inject({
      method: method as 'POST',
      url,
      headers: { authorization: `Bearer ${client.testKey}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload }),
    });

  beforeAll(async () => {
    t = await startTestApp(engine);
    app = await service.buildApp(t.ctx, { logger: false, apiPlugins: [undeclaredRoute] });
    client = await t.newClient();
    operations = apiOperations((await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json());
  });
  afterAll(async () => {
    await app.close();
    await t.close();
  });

  it('refuses a body on every route that declares none: a non-object is body_invalid, a field is parameter_unknown', async () => {
    const bodiless = operations.filter((op) => !op.takesBody && op.method !== 'GET');
    expect(bodiless.map((op) => op.name)).toEqual(
      expect.arrayContaining(['POST /v1/connect/accounts/{id}/disconnect', 'DELETE /v1/webhook_endpoints/{id}']),
    );
    for (const op of bodiless) {
      for (const [payload, code, param] of [
        ['[]', 'body_invalid', undefined],
        ['"x"', 'body_invalid', undefined],
        ['null', 'body_invalid', undefined],
        ['{"zzz_unknown":1}', 'parameter_unknown', 'zzz_unknown'],
      ] as const) {
        const res = await send(op.method, op.url, payload);
        expect(res.statusCode, `${op.name} ${payload}`).toBe(400);
        expect(res.json().error, `${op.name} ${payload}`).toEqual(expect.objectContaining({ code }));
        expect(res.json().error.param, `${op.name} ${payload}`).toBe(param);
      }
    }
  });

  it('takes an empty object or no body at all where a route declares no body', async () => {
    for (const op of operations.filter((o) => !o.takesBody && o.method !== 'GET')) {
      for (const payload of ['{}', undefined]) {
        // Past validation, the made-up id is looked up and not found.
        const res = await send(op.method, op.url, payload);
        expect(res.json().error?.code, `${op.name} ${payload}`).toBe('resource_missing');
      }
    }
  });

  it('refuses a query parameter the route does not declare, on every route', async () => {
    // Fastify validates the body before the query string, so a route whose body has required
    // fields would answer parameter_missing first; those are covered by their own tests.
    const covered = operations.filter((op) => !op.requiresBody);
    expect(covered.map((op) => op.name)).toEqual(
      expect.arrayContaining([
        'GET /v1/connect/account_holders/{id}',
        'GET /v1/connect/accounts/{id}/balances',
        'GET /v1/connect/accounts/{id}/addresses',
        'GET /v1/connect/accounts',
      ]),
    );
    for (const op of covered) {
      const res = await send(op.method, `${op.url}?zzz_unknown=1`, op.method === 'GET' ? undefined : '{}');
      expect(res.statusCode, op.name).toBe(400);
      expect(res.json().error, op.name).toMatchObject({ code: 'parameter_unknown', param: 'zzz_unknown' });
    }
  });

  it('gives a route that declares no input schema the same rules, so new routes need not remember them', async () => {
    expect((await send('POST', '/v1/probe/undeclared?foo=1', '{}')).json().error).toMatchObject({
      code: 'parameter_unknown',
      param: 'foo',
    });
    expect((await send('POST', '/v1/probe/undeclared', '{"foo":1}')).json().error).toMatchObject({
      code: 'parameter_unknown',
      param: 'foo',
    });
    expect((await send('POST', '/v1/probe/undeclared', '[1]')).json().error).toMatchObject({ code: 'body_invalid' });
    const empty = await send('POST', '/v1/probe/undeclared', '{}');
    expect(empty.statusCode).toBe(200);
    // An empty object is no body: the handler sees the same as for a bare POST.
    expect(empty.json()).toEqual((await send('POST', '/v1/probe/undeclared')).json());
  });

  it('documents the url of every list as the path of that list', () => {
    const lists = operations.filter((op) => op.listUrl !== undefined);
    expect(lists.map((op) => op.name)).toEqual(
      expect.arrayContaining(['GET /v1/connect/accounts/{id}/transactions', 'GET /v1/webhook_endpoints/{id}/deliveries', 'GET /v1/events']),
    );
    for (const op of lists) {
      if (op.path.includes('{')) expect(op.listUrl?.description, op.name).toContain(`\`${op.path}\``);
      else expect(op.listUrl?.enum, op.name).toEqual([op.path]);
    }
  });
});

/** The body and query string schemas of every API route, as the modules declare them. */
async function apiRouteSchemas(): Promise<{ name: string; part: 'body' | 'querystring'; schema: object }[]> {
  const app = Fastify();
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    routes.push(route);
  });
  for (const plugin of service.modules.flatMap((m) => m.apiRoutes ?? [])) await app.register(plugin, { prefix: '/v1' });
  await app.close();
  return routes.flatMap((route) =>
    (['body', 'querystring'] as const).flatMap((part) => {
      const schema = route.schema?.[part] as object | undefined;
      return schema === undefined ? [] : [{ name: `${String(route.method)} ${route.url} ${part}`, part, schema }];
    }),
  );
}

type Node = { const?: unknown; enum?: unknown[]; anyOf?: Node[]; properties?: Record<string, Node>; items?: Node };

/** Where a schema only allows a list of values (`enum`, or a union of `const`s), as segments of its path. */
function enumFields(node: Node, path: string[] = []): { path: string[]; node: Node; values: unknown[] }[] {
  if (node.enum) return [{ path, node, values: node.enum }];
  if (node.anyOf?.length && node.anyOf.every((branch) => 'const' in branch))
    return [{ path, node, values: node.anyOf.map((b) => b.const) }];
  return [
    ...Object.entries(node.properties ?? {}).flatMap(([key, child]) => enumFields(child, [...path, key])),
    ...(node.items ? enumFields(node.items, [...path, '0']) : []),
    ...(node.anyOf ?? []).flatMap((branch) => enumFields(branch, path)),
  ];
}

describe('enum errors', () => {
  it('name every allowed value, for every enum-like field of every API route', async () => {
    const compile = buildValidatorCompiler();
    const checked: string[] = [];
    for (const { name, part, schema } of await apiRouteSchemas()) {
      for (const field of enumFields(schema as Node)) {
        // The field alone, on the path it has in the request, with a value it does not allow.
        let wrapped: object = field.node;
        let value: unknown = 'zzz_not_allowed';
        for (const key of [...field.path].reverse()) {
          wrapped = key === '0' ? { type: 'array', items: wrapped } : { type: 'object', properties: { [key]: wrapped } };
          value = key === '0' ? [value] : { [key]: value };
        }
        const validate = compile({ schema: wrapped, httpPart: part });
        expect(validate(value), name).toBe(false);
        const error = validationError(validate.errors ?? [], part);
        const param =
          field.path[0] +
          field.path
            .slice(1)
            .map((p) => `[${p}]`)
            .join('');
        expect({ code: error.code, param: error.param }, name).toEqual({ code: 'parameter_invalid', param });
        for (const allowed of field.values) expect(error.message, `${name} ${param}`).toContain(JSON.stringify(allowed));
        checked.push(param);
      }
    }
    expect(checked).toEqual(expect.arrayContaining(['permissions[0]', 'features[0]', 'status', 'enabled_events[0]']));
  });

  it('name null too when a union of literals also allows it, and leave other unions to their first error', () => {
    const compile = buildValidatorCompiler();
    const nullable = compile({
      schema: Type.Object({ reason: Type.Union([Type.Literal('a'), Type.Literal('b'), Type.Null()]) }),
      httpPart: 'body',
    });
    nullable({ reason: 'zzz' });
    expect(validationError(nullable.errors ?? [], 'body').message).toBe('Invalid value for reason: must be one of "a", "b", null.');
    const text = compile({ schema: Type.Object({ name: Type.Union([Type.String({ minLength: 1 }), Type.Null()]) }), httpPart: 'body' });
    text({ name: '' });
    expect(validationError(text.errors ?? [], 'body').message).toBe('Invalid value for name: must not be empty.');
  });
});

describe('compiled validators', () => {
  it('are compiled once a process for the same schema, part and shared schemas, and apart when any differs', () => {
    const shared = { Thing: { $id: 'Thing', type: 'object', properties: { id: { type: 'string' } }, additionalProperties: false } };
    const schema = () => Type.Object({ limit: Type.Integer({ minimum: 1 }), thing: Type.Ref('Thing') }, { additionalProperties: false });
    // Fastify asks once per plugin context, for every app built: each a compiler of its own.
    const [one, two, bare] = [buildValidatorCompiler(shared), buildValidatorCompiler(shared), buildValidatorCompiler()];
    const query = one({ schema: schema(), httpPart: 'querystring' });
    expect(two({ schema: schema(), httpPart: 'querystring' })).toBe(query);
    const body = two({ schema: schema(), httpPart: 'body' });
    expect(body).not.toBe(query);
    // The query string's is coerced, the body's strict; both resolve the shared schema.
    expect(query({ limit: '2', thing: { id: 'a' } })).toBe(true);
    expect(body({ limit: '2', thing: { id: 'a' } })).toBe(false);
    expect(body({ limit: 2, thing: { id: 'a', other: 1 } })).toBe(false);
    // Without the shared schema its $ref cannot resolve: not a validator compiled with it.
    expect(() => bare({ schema: schema(), httpPart: 'querystring' })).toThrow(/Thing/);
  });
});
