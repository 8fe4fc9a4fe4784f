import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyPluginAsync, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { unixSeconds } from '../clock.js';
import { service } from '../../main/modules.js';
import { ApiError } from './errors.js';
import { insertIdempotencyKey } from './idempotency.repository.js';
import { purgeExpiredIdempotencyKeys } from './idempotency.service.js';
import { canonicalJson, requestFingerprint } from './idempotency.js';

/** A probe's body: a tag its runs are counted by. */
const TAKES_TAG = { schema: { hide: true, body: Type.Object({ tag: Type.String() }) } };

/**
 * Probe routes inside `/v1` (so under the API's hooks) that count their executions by `tag`:
 * one waits for the test to open a gate, one fails with a 500, one refuses with a 400, one answers
 * 201 in plain text, and one takes no body (its runs count under the tag "undefined").
 */
function probes() {
  const runs = new Map<string, number>();
  const gates = new Map<string, () => void>();
  const count = (body: unknown) => {
    const tag = String((body as { tag?: unknown } | undefined)?.tag);
    const n = (runs.get(tag) ?? 0) + 1;
    runs.set(tag, n);
    return { tag, n };
  };
  const plugin: FastifyPluginAsync = async (api) => {
    api.post('/probe/bare', async () => {
      const run = count(undefined);
      return { ...run };
    });
    api.post('/probe/hold', TAKES_TAG, async (request) => {
      const run = count(request.body);
      await new Promise<void>((resolve) => gates.set(run.tag, resolve));
      return { ...run, done: true };
    });
    api.post('/probe/fail', TAKES_TAG, async (request) => {
      count(request.body);
      throw new Error('boom');
    });
    api.post('/probe/reject', TAKES_TAG, async (request) => {
      count(request.body);
      throw new ApiError('parameter_invalid', { param: 'tag' });
    });
    api.post('/probe/text', TAKES_TAG, async (request, reply) => {
      const run = count(request.body);
      return reply.code(201).type('text/plain; charset=utf-8').send(`run ${run.n} of ${run.tag}`);
    });
  };
  return {
    plugin,
    runs: (tag: string) => runs.get(tag) ?? 0,
    open: (tag: string) => gates.get(tag)?.(),
  };
}

describe.each(engines())('Idempotency-Key on %s', (engine) => {
  let t: TestApp;
  let app: FastifyInstance;
  let client: TestClient;
  const probe = probes();

  /** POST with the client's key (or another), an Idempotency-Key and a JSON body. */
  const post = (
    url: string,
    idempotencyKey: string | undefined,
    json: unknown,
    options: { key?: string; raw?: string } & Partial<InjectOptions> = {},
  ) => {
    const { key = client.testKey, raw, ...rest } = options;
    return app.inject({
      method: 'POST',
      url,
      ...rest,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      },
      payload: raw ?? JSON.stringify(json),
    });
  };
  const createHolder = (idempotencyKey: string | undefined, json: unknown, key?: string) =>
    post('/v1/connect/account_holders', idempotencyKey, json, key === undefined ? {} : { key });
  const holderCount = async (clientId = client.clientId, mode: 'test' | 'live' = 'test') =>
    Number(
      (
        await t.ctx.db
          .selectFrom('account_holders')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('client_id', '=', clientId)
          .where('mode', '=', mode)
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    // Rate limits are tested on their own; here they must not interfere.
    t = await startTestApp(engine, { config: { RATE_LIMIT_PER_SECOND: '100000' } });
    app = await service.buildApp(t.ctx, { logger: false, apiPlugins: [probe.plugin] });
    client = await t.newClient();
  });
  afterAll(async () => {
    await app.close();
    await t.close();
  });

  it('replays the first response byte for byte, with Idempotent-Replayed: true, and creates one object', async () => {
    const body = { email: 'replay@example.com', metadata: { a: '1' } };
    const first = await createHolder('replay-1', body);
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await createHolder('replay-1', body);
    expect(second.statusCode).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.headers['request-id']).not.toBe(first.headers['request-id']);
    const holders = await t.ctx.db.selectFrom('account_holders').select('id').where('email', '=', 'replay@example.com').execute();
    expect(holders.map((h) => h.id)).toEqual([first.json().id]);
    // Responses can carry secrets shown once, so the stored copy is sealed.
    const stored = await t.ctx.db
      .selectFrom('idempotency_keys')
      .select('response_body')
      .where('key', '=', 'replay-1')
      .executeTakeFirstOrThrow();
    expect(stored.response_body).not.toContain('replay@example.com');
  });

  it('treats a body differing only in key order or whitespace as the same request', async () => {
    const first = await post('/v1/connect/account_holders', 'canonical-1', undefined, { raw: '{"email":"c@example.com","name":"C"}' });
    const second = await post('/v1/connect/account_holders', 'canonical-1', undefined, {
      raw: '{ "name": "C",\n "email": "c@example.com" }',
    });
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
  });

  it('answers 409 idempotency_key_reused for the same key with another body, and changes nothing', async () => {
    await createHolder('reuse-1', { email: 'first@example.com' });
    const before = await holderCount();
    const res = await createHolder('reuse-1', { email: 'second@example.com' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code: 'idempotency_key_reused' });
    expect(res.json().error.message).toMatch(/different request body/);
    expect(await holderCount()).toBe(before);
  });

  it('answers 409 idempotency_key_reused for the same key on another endpoint, and changes nothing', async () => {
    const created = (await createHolder('endpoint-1', { email: 'ep@example.com' })).json();
    const res = await post(`/v1/connect/account_holders/${created.id}`, 'endpoint-1', { email: 'ep@example.com' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('idempotency_key_reused');
    expect(res.json().error.message).toContain('POST /v1/connect/account_holders');
    const holder = await app.inject({
      method: 'GET',
      url: `/v1/connect/account_holders/${created.id}`,
      headers: { authorization: `Bearer ${client.testKey}` },
    });
    expect(holder.json().updated_at).toBe(created.updated_at);
  });

  it('runs concurrent identical requests exactly once: one object, the others replay or wait', async () => {
    const tenant = await t.newClient('Concurrent');
    const body = { email: 'race@example.com' };
    const responses = await Promise.all(Array.from({ length: 12 }, () => createHolder('race-1', body, tenant.testKey)));
    expect(await holderCount(tenant.clientId)).toBe(1);
    const ok = responses.filter((r) => r.statusCode === 200);
    const busy = responses.filter((r) => r.statusCode === 409);
    expect(ok.length + busy.length).toBe(responses.length);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.body)).size).toBe(1);
    expect(ok.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const r of busy) expect(r.json().error.code).toBe('idempotency_request_in_progress');
  });

  it('runs concurrent identical requests exactly once while the first is still running', async () => {
    // The first request is held open, so every other one arrives while it runs, on both engines.
    let answered = 0;
    const requests = Array.from({ length: 12 }, () => post('/v1/probe/hold', 'race-2', { tag: 'race-2' }).finally(() => answered++));
    // Eleven are answered while one runs; it can only finish once the gate opens.
    await vi.waitFor(() => expect(answered).toBe(11));
    expect(probe.runs('race-2')).toBe(1);
    probe.open('race-2');
    const responses = await Promise.all(requests);
    expect(probe.runs('race-2')).toBe(1);
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(1);
    const busy = responses.filter((r) => r.statusCode === 409);
    expect(busy).toHaveLength(11);
    for (const r of busy) expect(r.json().error.code).toBe('idempotency_request_in_progress');
  });

  it('answers 409 idempotency_request_in_progress while the first request runs, then replays it', async () => {
    const first = post('/v1/probe/hold', 'hold-1', { tag: 'hold-1' });
    await vi.waitFor(() => expect(probe.runs('hold-1')).toBe(1));
    const during = await post('/v1/probe/hold', 'hold-1', { tag: 'hold-1' });
    expect(during.statusCode).toBe(409);
    expect(during.json().error).toMatchObject({ type: 'invalid_request_error', code: 'idempotency_request_in_progress' });
    probe.open('hold-1');
    expect((await first).statusCode).toBe(200);
    const after = await post('/v1/probe/hold', 'hold-1', { tag: 'hold-1' });
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.json()).toEqual({ tag: 'hold-1', n: 1, done: true });
    expect(probe.runs('hold-1')).toBe(1);
  });

  it('does not keep a 5xx: the retry runs again, and the key may then carry another body', async () => {
    const first = await post('/v1/probe/fail', 'fail-1', { tag: 'fail-1' });
    expect(first.statusCode).toBe(500);
    const retry = await post('/v1/probe/fail', 'fail-1', { tag: 'fail-1' });
    expect(retry.statusCode).toBe(500);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(probe.runs('fail-1')).toBe(2);
    const other = await post('/v1/probe/fail', 'fail-1', { tag: 'fail-1b' });
    expect(other.statusCode).toBe(500);
    expect(probe.runs('fail-1b')).toBe(1);
  });

  it('keeps a 4xx the request produced and replays it (Stripe semantics)', async () => {
    const first = await post('/v1/probe/reject', 'reject-1', { tag: 'reject-1' });
    expect(first.statusCode).toBe(400);
    const second = await post('/v1/probe/reject', 'reject-1', { tag: 'reject-1' });
    expect(second.statusCode).toBe(400);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
    expect(probe.runs('reject-1')).toBe(1);
  });

  it('replays the status and content type of a non-JSON response', async () => {
    const first = await post('/v1/probe/text', 'text-1', { tag: 'text-1' });
    const second = await post('/v1/probe/text', 'text-1', { tag: 'text-1' });
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(second.body).toBe('run 1 of text-1');
  });

  it('does not take the key when the request is refused before running (validation)', async () => {
    const invalid = await createHolder('validation-1', { email: 'not an address' });
    expect(invalid.statusCode).toBe(400);
    const valid = await createHolder('validation-1', { email: 'valid@example.com' });
    expect(valid.statusCode).toBe(200);
    expect(valid.headers['idempotent-replayed']).toBeUndefined();
  });

  it('does not take the key when an undeclared query parameter is refused, and creates nothing', async () => {
    const tenant = await t.newClient('Query');
    const refused = await post('/v1/connect/account_holders?foo=1', 'query-1', { email: 'query@example.com' }, { key: tenant.testKey });
    expect(refused.json().error).toMatchObject({ code: 'parameter_unknown', param: 'foo' });
    expect(await holderCount(tenant.clientId)).toBe(0);
    const valid = await post('/v1/connect/account_holders', 'query-1', { email: 'query@example.com' }, { key: tenant.testKey });
    expect(valid.statusCode).toBe(200);
    expect(valid.headers['idempotent-replayed']).toBeUndefined();
  });

  it('treats an empty object and no body as the same request on a route that takes no body', async () => {
    const bare = (idempotencyKey: string, payload?: string) =>
      app.inject({
        method: 'POST',
        url: '/v1/probe/bare',
        headers: {
          authorization: `Bearer ${client.testKey}`,
          'idempotency-key': idempotencyKey,
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(payload === undefined ? {} : { payload }),
      });
    const first = await bare('bare-1');
    expect(first.statusCode).toBe(200);
    const second = await bare('bare-1', '{}');
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
    expect(probe.runs('undefined')).toBe(1);
  });

  it('scopes keys to the client and the mode: the same key string is a different key elsewhere', async () => {
    const other = await t.newClient('Other');
    const body = { email: 'scoped@example.com' };
    const a = await createHolder('scoped-1', body);
    const b = await createHolder('scoped-1', body, other.testKey);
    const live = await createHolder('scoped-1', body, client.liveKey);
    for (const res of [a, b, live]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(new Set([a, b, live].map((r) => r.json().id)).size).toBe(3);
    expect(live.json().livemode).toBe(true);
  });

  it('forgets a key after 24 hours: the same key then runs a new request', async () => {
    const tenant = await t.newClient('Expiry');
    await createHolder('expiry-1', { email: 'old@example.com' }, tenant.testKey);
    t.clock.advance(24 * 3600 - 10);
    expect((await createHolder('expiry-1', { email: 'old@example.com' }, tenant.testKey)).headers['idempotent-replayed']).toBe('true');
    t.clock.advance(11);
    const again = await createHolder('expiry-1', { email: 'new@example.com' }, tenant.testKey);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await holderCount(tenant.clientId)).toBe(2);
  });

  it('purges expired keys and keeps live ones', async () => {
    const tenant = await t.newClient('Purge');
    await createHolder('purge-old', { email: 'p1@example.com' }, tenant.testKey);
    t.clock.advance(24 * 3600 + 1);
    await createHolder('purge-new', { email: 'p2@example.com' }, tenant.testKey);
    await purgeExpiredIdempotencyKeys(t.ctx);
    const keys = await t.ctx.db.selectFrom('idempotency_keys').select('key').where('client_id', '=', tenant.clientId).execute();
    expect(keys.map((k) => k.key)).toEqual(['purge-new']);
  });

  it('lets a later request take over a key left locked by a crashed process once its lock time is over', async () => {
    const tenant = await t.newClient('Crash');
    const body = { email: 'crash@example.com' };
    const now = unixSeconds(t.clock);
    // What a process that died mid-request leaves behind: a locked row and no response.
    await insertIdempotencyKey(t.ctx.db, {
      client_id: tenant.clientId,
      mode: 'test',
      key: 'crash-1',
      method: 'POST',
      path: '/v1/connect/account_holders',
      request_hash: requestFingerprint('', body),
      lock_token: 'dead-process',
      locked_until: now + 60,
      created_at: now,
      expires_at: now + 24 * 3600,
    });
    expect((await createHolder('crash-1', body, tenant.testKey)).json().error.code).toBe('idempotency_request_in_progress');
    t.clock.advance(61);
    const taken = await createHolder('crash-1', body, tenant.testKey);
    expect(taken.statusCode).toBe(200);
    expect((await createHolder('crash-1', body, tenant.testKey)).headers['idempotent-replayed']).toBe('true');
    expect(await holderCount(tenant.clientId)).toBe(1);
  });

  it.each([
    ['empty', ''],
    ['256 characters long', 'k'.repeat(256)],
    ['non-ASCII', 'clé-1'],
    ['a tab inside', 'a\tb'],
  ])('answers 400 parameter_invalid for an Idempotency-Key that is %s, and creates nothing', async (_label, value) => {
    const tenant = await t.newClient('Invalid key');
    const res = await createHolder(value, { email: 'bad-key@example.com' }, tenant.testKey);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'Idempotency-Key' });
    expect(await holderCount(tenant.clientId)).toBe(0);
  });

  it('accepts a 255-character key of printable characters, spaces included', async () => {
    const key = `${'~ !'.repeat(85)}`;
    expect(key).toHaveLength(255);
    expect((await createHolder(key, { email: 'long-key@example.com' })).statusCode).toBe(200);
    expect((await createHolder(key, { email: 'long-key@example.com' })).headers['idempotent-replayed']).toBe('true');
  });

  it('ignores Idempotency-Key on GET', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/v1/connect/account_holders',
      headers: { authorization: `Bearer ${client.testKey}`, 'idempotency-key': '' },
    });
    expect(res.statusCode).toBe(200);
  });
});

describe('canonical request bodies', () => {
  it('sorts object keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson(undefined)).toBe('');
  });

  it('tells bodies and query strings apart', () => {
    expect(requestFingerprint('', { a: 1 })).not.toBe(requestFingerprint('', { a: '1' }));
    expect(requestFingerprint('x=1', {})).not.toBe(requestFingerprint('', {}));
    expect(requestFingerprint('', { a: 1, b: 2 })).toBe(requestFingerprint('', { b: 2, a: 1 }));
  });
});
