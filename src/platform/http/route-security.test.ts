import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { describeChanges, snapshotDatabase } from '../../../test/support/db-snapshot.js';
import {
  BODY_METHODS,
  minimalBody,
  readOperations,
  urlOf,
  type ApiOperation,
  type OpenApiDocument,
  type OpenApiParameter,
} from '../../../test/support/openapi-operations.js';
import {
  FIXTURE_MAKERS,
  keyOf,
  makeTenancyWorld,
  TENANCY_CONFIG,
  TENANCY_SEAMS,
  type Mode,
  type TenancyWorld,
} from '../../../test/support/tenancy-fixtures.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';
import { BODY_LIMIT_BYTES } from './app.js';

type Owner = 'a' | 'b';
interface Call {
  url: string;
  key?: string | undefined;
  /** Raw payload and its media type; a JSON value is sent as application/json. */
  payload?: string;
  contentType?: string;
  json?: unknown;
  headers?: Record<string, string>;
}

/**
 * Runs over every authenticated operation of the generated OpenAPI document, so a route added later
 * is covered without anyone remembering to add it here: authentication, the answers the platform
 * gives before any handler runs (bodies, parameters, idempotency, rate limits), and tenancy — every
 * id-taking operation called with another client's and with the other mode's real object must answer
 * 404 `resource_missing` and change nothing in the database. Last, every status these probes
 * received must be declared in the document.
 */
describe.each(engines())('every authenticated route (%s)', (engine) => {
  let t: TestApp;
  let spec: OpenApiDocument;
  let operations: ApiOperation[];
  /** Statuses each operation answered to the probes below, for the last test. */
  const received = new Map<string, Set<number>>();

  beforeAll(async () => {
    t = await startTestApp(engine, { seams: TENANCY_SEAMS, config: TENANCY_CONFIG });
    spec = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    operations = readOperations(spec).filter((op) => op.authenticated && op.path.startsWith('/v1/'));
  });
  afterAll(() => t?.close());

  /** Sends one request to an operation and records the status it got. */
  async function send(app: TestApp, op: ApiOperation, call: Call) {
    const res = await app.app.inject({
      method: op.method as 'GET',
      url: call.url,
      headers: {
        ...(call.key === undefined ? {} : { authorization: `Bearer ${call.key}` }),
        ...(call.json !== undefined
          ? { 'content-type': 'application/json' }
          : call.contentType
            ? { 'content-type': call.contentType }
            : {}),
        ...call.headers,
      },
      ...(call.json !== undefined ? { payload: JSON.stringify(call.json) } : call.payload !== undefined ? { payload: call.payload } : {}),
    });
    const statuses = received.get(op.name) ?? new Set<number>();
    received.set(op.name, statuses.add(res.statusCode));
    return res;
  }
  const code = (res: { json(): unknown }) => (res.json() as { error?: { code?: string } }).error?.code;
  /** The URL with made-up ids of the right kind that exist nowhere. */
  const unknownId = (param: { prefix: string | undefined }, tag = 'doesnotexist') =>
    `${param.prefix ?? 'obj_'}${tag}${'0'.repeat(22 - tag.length)}`;
  const unknownUrl = (op: ApiOperation, tag = 'doesnotexist') => urlOf(op, (p) => unknownId(p, tag));
  const withIds = (op: ApiOperation) => op.pathParams.length > 0;

  it('includes the account holder routes (the list is read from the OpenAPI document)', () => {
    expect(operations.map((o) => o.name)).toContain('POST /v1/connect/account_holders/{id}');
  });

  it('answers 401 without a key, with a malformed key and with an unknown key, before touching anything', async () => {
    for (const op of operations) {
      for (const [authorization, expected] of [
        [undefined, 'api_key_missing'],
        ['nope', 'api_key_malformed'],
        [`sk_live_${'0'.repeat(32)}`, 'api_key_invalid'],
      ] as const) {
        const res = await send(t, op, { url: unknownUrl(op), key: authorization, ...(op.method === 'GET' ? {} : { json: {} }) });
        expect(res.statusCode, `${op.name} ${expected}`).toBe(401);
        expect(code(res), op.name).toBe(expected);
      }
    }
  });

  it('answers 404 resource_missing for an id that does not exist, even with a valid body', async () => {
    const { testKey } = await t.newClient();
    for (const op of operations.filter(withIds)) {
      const res = await send(t, op, { url: unknownUrl(op), key: testKey, ...jsonBody(op) });
      expectBodyAccepted(op, res, op.name);
      expect(res.statusCode, `${op.name}: ${res.body}`).toBe(404);
      expect(code(res), op.name).toBe('resource_missing');
    }
  });

  // Fastify's router refuses a path segment over 100 characters by default, with an answer of its own.
  it('answers an id of 255 characters, the longest an id may be, like any unknown id', async () => {
    const { testKey } = await t.newClient();
    for (const op of operations.filter(withIds)) {
      const res = await send(t, op, { url: urlOf(op, () => `obj_${'a'.repeat(251)}`), key: testKey, ...jsonBody(op) });
      expect(res.statusCode, `${op.name}: ${res.body}`).toBe(404);
      expect(code(res), op.name).toBe('resource_missing');
      expect(res.headers['request-id'], op.name).toBe((res.json() as { error: { request_id: string } }).error.request_id);
    }
  });

  it('answers 400 parameter_invalid naming the id for an id over 255 characters', async () => {
    const { testKey } = await t.newClient();
    for (const op of operations.filter(withIds)) {
      const res = await send(t, op, { url: urlOf(op, () => `obj_${'a'.repeat(252)}`), key: testKey, ...jsonBody(op) });
      expect(res.statusCode, op.name).toBe(400);
      expect(res.json().error, op.name).toMatchObject({ code: 'parameter_invalid', param: 'id' });
    }
  });

  it('answers 400 parameter_invalid to an invalid query parameter', async () => {
    const { testKey } = await t.newClient();
    for (const op of operations) {
      const invalid = op.queryParams.map((p) => [p, invalidQueryValue(p)] as const).find(([, value]) => value !== undefined);
      if (!invalid) continue;
      const [param, value] = invalid;
      const url = `${unknownUrl(op)}?${new URLSearchParams({ [param.name]: value as string })}`;
      const res = await send(t, op, { url, key: testKey, ...jsonBody(op) });
      expect([res.statusCode, code(res)], `${op.name} ?${param.name}=${value}`).toEqual([400, 'parameter_invalid']);
    }
  });

  // PostgreSQL text cannot hold NUL (SQLite can), and an unpaired surrogate has no UTF-8 form: one
  // rule (storable-text.ts) refuses both in every string of every request, before any handler.
  it('answers 400 parameter_invalid naming the parameter to a NUL or an unpaired surrogate in a path id, a query parameter or a body string', async () => {
    const { testKey } = await t.newClient();
    const expectRefused = (res: { statusCode: number; body: string; json(): unknown }, param: string | undefined, what: string) => {
      expect([res.statusCode, code(res)], `${what}: ${res.body}`).toEqual([400, 'parameter_invalid']);
      expect((res.json() as { error: { param?: string } }).error.param, what).toBe(param);
    };
    for (const op of operations) {
      for (const param of op.pathParams) {
        const url = urlOf(op, (p) => (p.name === param.name ? `${p.prefix ?? 'obj_'}\u0000` : unknownId(p)));
        expectRefused(await send(t, op, { url, key: testKey, ...jsonBody(op) }), param.name, `${op.name} {${param.name}} with NUL`);
      }
      for (const param of op.queryParams) {
        const url = `${unknownUrl(op)}?${new URLSearchParams({ [param.name]: 'a\u0000' })}`;
        expectRefused(await send(t, op, { url, key: testKey, ...jsonBody(op) }), param.name, `${op.name} ?${param.name} with NUL`);
      }
      if (!BODY_METHODS.includes(op.method)) continue;
      const body = (jsonBody(op).json ?? {}) as Record<string, unknown>;
      const field = firstStringField(body);
      if (field) {
        const payload = JSON.stringify(field.replace('a\ud800b'));
        expectRefused(
          await send(t, op, { url: unknownUrl(op), key: testKey, payload, contentType: 'application/json' }),
          field.param,
          `${op.name} ${field.param} with an unpaired surrogate`,
        );
      }
      const badKey = JSON.stringify({ ...body, 'b\ud800': 1 });
      expectRefused(
        await send(t, op, { url: unknownUrl(op), key: testKey, payload: badKey, contentType: 'application/json' }),
        undefined,
        `${op.name} with a field name holding an unpaired surrogate`,
      );
    }
  });

  it('answers 415 to a body that is not JSON, 400 to malformed JSON and 413 to a body over 1 MiB wherever a body is read', async () => {
    const { testKey } = await t.newClient();
    for (const op of operations) {
      const url = unknownUrl(op);
      const notJson = await send(t, op, {
        url,
        key: testKey,
        payload: 'email=a@example.com',
        contentType: 'application/x-www-form-urlencoded',
      });
      // GET bodies are never read (Fastify ignores them); the status is still recorded for the last test.
      if (!BODY_METHODS.includes(op.method)) continue;
      expect([notJson.statusCode, code(notJson)], op.name).toEqual([415, 'unsupported_media_type']);
      const malformed = await send(t, op, { url, key: testKey, payload: '{"email":', contentType: 'application/json' });
      expect([malformed.statusCode, code(malformed)], op.name).toEqual([400, 'invalid_json']);
      const huge = await send(t, op, {
        url,
        key: testKey,
        payload: JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT_BYTES) }),
        contentType: 'application/json',
      });
      expect([huge.statusCode, code(huge)], op.name).toEqual([413, 'body_too_large']);
    }
  });

  it('answers 400 to an invalid Idempotency-Key and 409 to a key already used for another request on every POST, before running it', async () => {
    const { testKey } = await t.newClient();
    const posts = operations.filter((op) => op.method === 'POST');
    // The key is taken by one request that runs (a 404 is an answer, kept under the key)…
    const claimer = posts.find(withIds);
    if (!claimer) throw new Error('no POST operation with a path id to take an Idempotency-Key with');
    const key = `route-security-${engine}`;
    const first = await send(t, claimer, {
      url: unknownUrl(claimer, 'claim'),
      key: testKey,
      ...jsonBody(claimer),
      headers: { 'idempotency-key': key },
    });
    expect(first.statusCode, first.body).toBe(404);
    for (const op of posts) {
      // …so every other request with it is refused before its handler: nothing is created.
      const reused = await send(t, op, { url: unknownUrl(op), key: testKey, ...jsonBody(op), headers: { 'idempotency-key': key } });
      expectBodyAccepted(op, reused, op.name);
      expect([reused.statusCode, code(reused)], `${op.name}: ${reused.body}`).toEqual([409, 'idempotency_key_reused']);
      const invalid = await send(t, op, {
        url: unknownUrl(op),
        key: testKey,
        ...jsonBody(op),
        headers: { 'idempotency-key': 'k'.repeat(256) },
      });
      expect([invalid.statusCode, code(invalid)], op.name).toEqual([400, 'parameter_invalid']);
    }
  });

  it('answers 429 rate_limit_exceeded on every operation once the client is over its limit', async () => {
    const limited = await startTestApp(engine, { config: { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '0' } });
    try {
      const { testKey } = await limited.newClient();
      for (const op of operations) {
        // One request per second is allowed: within three, one is refused, whatever second they fall in.
        const statuses: number[] = [];
        for (let i = 0; i < 3 && !statuses.includes(429); i++) {
          statuses.push(
            (await send(limited, op, { url: unknownUrl(op), key: testKey, ...(op.method === 'GET' ? {} : { json: {} }) })).statusCode,
          );
        }
        expect(statuses, op.name).toContain(429);
      }
    } finally {
      await limited.close();
    }
  });

  describe('tenancy: another client’s or the other mode’s real object', () => {
    let world: TenancyWorld;
    const idTaking = () => operations.filter(withIds);
    const id = (owner: Owner, mode: Mode, prefix: string | undefined) => {
      const found = world.ids[owner][mode][prefix ?? ''];
      if (found === undefined)
        throw new Error(`no fixture of kind ${prefix}: add a maker to FIXTURE_MAKERS in test/support/tenancy-fixtures.ts`);
      return found;
    };
    /** Tables a refused request may change: the PostgreSQL rate-limit counters count every request. */
    const VOLATILE_TABLES = ['rate_limits'];

    beforeAll(async () => {
      world = await makeTenancyWorld(t);
    });

    it('knows the kind of object every path id names (x-id-prefix) and has a fixture of each kind', () => {
      const unnamed = idTaking().flatMap((op) => op.pathParams.filter((p) => p.prefix === undefined).map((p) => `${op.name} {${p.name}}`));
      expect(unnamed, 'declare these path parameters with IdParams(prefix, noun) from src/platform/http/schemas.ts').toEqual([]);
      const prefixes = new Set(idTaking().flatMap((op) => op.pathParams.map((p) => p.prefix)));
      const missing = [...prefixes].filter((prefix) => !FIXTURE_MAKERS.some((maker) => maker.prefix === prefix));
      expect(missing, 'add a fixture maker for these id prefixes to FIXTURE_MAKERS in test/support/tenancy-fixtures.ts').toEqual([]);
    });

    /** Calls every id-taking operation with `caller`'s key on `owner`'s ids; each must be a 404 that changes nothing. */
    async function expectRefused(cases: { caller: [Owner, Mode]; owner: [Owner, Mode] }[]) {
      let before = await snapshotDatabase(t.ctx.db, VOLATILE_TABLES);
      let calls = 0;
      for (const { caller, owner } of cases) {
        for (const op of idTaking()) {
          const url = urlOf(op, (p) => id(owner[0], owner[1], p.prefix));
          const what = `${op.name} by client ${caller[0].toUpperCase()} (${caller[1]} mode) on client ${owner[0].toUpperCase()}'s ${owner[1]}-mode object ${url}`;
          const res = await send(t, op, { url, key: keyOf(world.clients[caller[0]], caller[1]), ...jsonBody(op) });
          expectBodyAccepted(op, res, what);
          expect([res.statusCode, code(res)], `${what}: ${res.body}`).toEqual([404, 'resource_missing']);
          const after = await snapshotDatabase(t.ctx.db, VOLATILE_TABLES);
          expect(describeChanges(before, after), `${what} changed the database`).toBe('');
          before = after;
          calls++;
        }
      }
      expect(calls).toBe(cases.length * idTaking().length);
    }

    it('answers 404 resource_missing and changes nothing when the id belongs to another client', async () => {
      await expectRefused([
        { caller: ['b', 'test'], owner: ['a', 'test'] },
        { caller: ['a', 'test'], owner: ['b', 'test'] },
        { caller: ['b', 'live'], owner: ['a', 'live'] },
      ]);
    });

    it('answers 404 resource_missing and changes nothing when the id belongs to the other mode of the same client', async () => {
      await expectRefused([
        { caller: ['a', 'live'], owner: ['a', 'test'] },
        { caller: ['a', 'test'], owner: ['a', 'live'] },
      ]);
    });

    it('lets the owner reach the same objects with the same requests (so the 404s above come from the tenancy check)', async () => {
      // Reads first, deletions last: the owner's calls change things, and run after every refusal.
      const order = (op: ApiOperation) => ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].indexOf(op.method);
      for (const op of [...idTaking()].sort((x, y) => order(x) - order(y))) {
        for (const mode of ['test', 'live'] as const) {
          const url = urlOf(op, (p) => id('a', mode, p.prefix));
          const res = await send(t, op, { url, key: keyOf(world.clients.a, mode), ...jsonBody(op) });
          expectBodyAccepted(op, res, `${op.name} by its owner (${mode} mode)`);
          // Found and accepted: any answer but a 400 (the body) or a 404 (the object); a later call
          // may meet an earlier one's effect (a refresh after a disconnect is a 409).
          expect(res.statusCode, `${op.name} by its owner (${mode} mode) ${url}: ${res.body}`).toBeLessThan(500);
          expect([400, 404], `${op.name} by its owner (${mode} mode) ${url}: ${res.body}`).not.toContain(res.statusCode);
        }
      }
    });
  });

  it('declares in the OpenAPI document every status the probes above received', () => {
    expect(received.size).toBe(operations.length);
    const undeclared = operations.flatMap((op) =>
      [...(received.get(op.name) ?? [])]
        .filter((status) => !(String(status) in op.declared))
        .map((status) => `${op.name} answered ${status}`),
    );
    expect(undeclared, 'statuses the API returns but the OpenAPI document does not declare').toEqual([]);
  });

  /** A 400 to a call sent with the generated body means the generator got the schema wrong: say how to help it. */
  function expectBodyAccepted(op: ApiOperation, res: { statusCode: number; body: string }, what: string) {
    if (res.statusCode !== 400 || op.method === 'GET') return;
    throw new Error(
      `${what}: the generated body ${JSON.stringify(minimalBody(spec, op) ?? {})} was refused (${res.body}); add \`examples\` to the request schema`,
    );
  }

  /** The operation's minimal valid body (see minimalBody), as `json` for send(); nothing for GET. */
  function jsonBody(op: ApiOperation): { json?: unknown } {
    if (op.method === 'GET') return {};
    return { json: minimalBody(spec, op) ?? {} };
  }
});

/**
 * The first string in a body, as its parameter name (`claim_ids[0]`) and a copy of the body with it
 * replaced; undefined when the body holds none.
 */
function firstStringField(body: unknown): { param: string; replace(value: string): unknown } | undefined {
  const walk = (value: unknown, path: string[]): string[] | undefined => {
    if (typeof value === 'string') return path;
    if (typeof value !== 'object' || value === null) return undefined;
    for (const [key, child] of Object.entries(value)) {
      const found = walk(child, [...path, key]);
      if (found) return found;
    }
    return undefined;
  };
  const path = walk(body, []);
  if (!path || path.length === 0) return undefined;
  return {
    param:
      path[0] +
      path
        .slice(1)
        .map((key) => `[${key}]`)
        .join(''),
    replace(value) {
      const copy = structuredClone(body) as Record<string, unknown>;
      let at: Record<string, unknown> = copy;
      for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
      at[path.at(-1) as string] = value;
      return copy;
    },
  };
}

/** A value the query parameter's schema refuses, or undefined when the generator knows none. */
function invalidQueryValue(param: OpenApiParameter): string | undefined {
  const schema = param.schema ?? {};
  if (schema.type === 'integer' || schema.type === 'number') return 'not-a-number';
  if (Array.isArray(schema.enum)) return 'not-one-of-them';
  if (typeof schema.maxLength === 'number') return 'x'.repeat(schema.maxLength + 1);
  if (typeof schema.pattern === 'string') return '\u0000';
  return undefined;
}
