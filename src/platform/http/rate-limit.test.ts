import type { FastifyInstance, FastifyPluginAsync, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';
import { rollApiKey } from '../../clients/client.service.js';
import { ConfigError, loadConfig } from '../config/config.js';
import { service } from '../../main/modules.js';

/** A polled status route, as a probe of the `pollLimit` route option without a domain's route. */
const pollRoute: FastifyPluginAsync = async (api) => {
  api.get('/probe/status/:id', { config: { pollLimit: true } }, async (request) => ({ id: (request.params as { id: string }).id }));
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function rateHeaders(res: LightMyRequestResponse) {
  return {
    limit: res.headers['ratelimit-limit'],
    remaining: res.headers['ratelimit-remaining'],
    reset: res.headers['ratelimit-reset'],
  };
}

describe.each(engines())('rate limits on %s', (engine) => {
  let t: TestApp;
  const apps: FastifyInstance[] = [];

  /** The real app with these limits (all sharing one database). */
  async function appWith(perSecond: number, burst: number, plugins: FastifyPluginAsync[] = []) {
    const app = await service.buildApp(
      { ...t.ctx, config: { ...t.ctx.config, rateLimit: { perSecond, burst } } },
      { logger: false, apiPlugins: plugins },
    );
    apps.push(app);
    return app;
  }
  const get = (app: FastifyInstance, key: string, url = '/v1/connect/account_holders') =>
    app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
  /** `n` requests one after the other (their order matters for the counts). */
  async function getTimes(app: FastifyInstance, key: string, n: number, url?: string) {
    const responses: LightMyRequestResponse[] = [];
    for (let i = 0; i < n; i++) responses.push(await get(app, key, url));
    return responses;
  }

  /** 5 requests per second, no burst. */
  let limited: FastifyInstance;
  /** 3 per second plus 2 per 10 s. */
  let bursty: FastifyInstance;
  /** 100 per second, with the session status route. */
  let polling: FastifyInstance;

  beforeAll(async () => {
    t = await startTestApp(engine);
    limited = await appWith(5, 0);
    bursty = await appWith(3, 2);
    polling = await appWith(100, 0, [pollRoute]);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await t.close();
  });

  it('sends RateLimit-Limit, -Remaining and -Reset on every authenticated response, errors included', async () => {
    const app = limited;
    const { testKey } = await t.newClient();
    const [first, second] = await getTimes(app, testKey, 2);
    expect(first?.statusCode).toBe(200);
    expect(rateHeaders(first!)).toEqual({ limit: '5', remaining: '4', reset: '1' });
    expect(rateHeaders(second!)).toEqual({ limit: '5', remaining: '3', reset: '1' });
    const missing = await get(app, testKey, '/v1/connect/account_holders/ah_missing');
    expect(missing.statusCode).toBe(404);
    expect(rateHeaders(missing)).toEqual({ limit: '5', remaining: '2', reset: '1' });
  });

  it('answers 429 rate_limit_exceeded with Retry-After once over the limit, and changes nothing', async () => {
    const app = limited;
    const tenant = await t.newClient();
    const allowed = await getTimes(app, tenant.testKey, 5);
    expect(allowed.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    const refused = await app.inject({
      method: 'POST',
      url: '/v1/connect/account_holders',
      headers: { authorization: `Bearer ${tenant.testKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'limited@example.com' }),
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(rateHeaders(refused)).toMatchObject({ limit: '5', remaining: '0' });
    expect(refused.headers['request-id']).toMatch(/^req_/);
    const holders = await t.ctx.db.selectFrom('account_holders').select('id').where('client_id', '=', tenant.clientId).execute();
    expect(holders).toEqual([]);

    await sleep(Number(refused.headers['retry-after']) * 1000);
    expect((await get(app, tenant.testKey)).statusCode).toBe(200);
  });

  it('allows RATE_LIMIT_BURST more requests once a second is used up, then refuses', async () => {
    const app = bursty;
    const { testKey } = await t.newClient();
    const responses = await getTimes(app, testKey, 6);
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(responses.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0', '0', '0', '0']);
  });

  it('keeps separate budgets per client and per mode', async () => {
    const app = limited;
    const a = await t.newClient('A');
    const b = await t.newClient('B');
    await getTimes(app, a.testKey, 5);
    expect((await get(app, a.testKey)).statusCode).toBe(429);
    const other = await get(app, b.testKey);
    expect(other.statusCode).toBe(200);
    expect(other.headers['ratelimit-remaining']).toBe('4');
    const live = await get(app, a.liveKey);
    expect(live.statusCode).toBe(200);
    expect(live.headers['ratelimit-remaining']).toBe('4');
  });

  it('does not spend a client’s budget on requests refused with 401', async () => {
    const app = limited;
    const tenant = await t.newClient();
    const rolled = await rollApiKey(t.ctx, { clientId: tenant.clientId, mode: 'test', graceSeconds: 0 });
    for (const res of await getTimes(app, tenant.testKey, 8)) {
      expect(res.statusCode).toBe(401);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
    const res = await get(app, rolled.key);
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-remaining']).toBe('4');
  });

  it('limits GET /v1/connect/sessions/{id} to 2 requests per second per session', async () => {
    const app = polling;
    const a = await t.newClient('Poller');
    const b = await t.newClient('Other poller');
    const polls = await getTimes(app, a.testKey, 3, '/v1/connect/sessions/sess_one');
    expect(polls.map((r) => r.statusCode === 429)).toEqual([false, false, true]);
    // The headers describe the limit closest to running out: the session's.
    expect(rateHeaders(polls[0]!)).toEqual({ limit: '2', remaining: '1', reset: '1' });
    expect(rateHeaders(polls[1]!)).toEqual({ limit: '2', remaining: '0', reset: '1' });
    expect(polls[2]?.json().error.code).toBe('rate_limit_exceeded');
    expect(polls[2]?.headers['retry-after']).toBe('1');
    // Another session, another client polling the same id, and other routes are not affected.
    expect((await get(app, a.testKey, '/v1/connect/sessions/sess_two')).statusCode).not.toBe(429);
    // HEAD polls count too.
    const head = await app.inject({
      method: 'HEAD',
      url: '/v1/connect/sessions/sess_two',
      headers: { authorization: `Bearer ${a.testKey}` },
    });
    expect(head.headers['ratelimit-remaining']).toBe('0');
    expect((await get(app, a.testKey, '/v1/connect/sessions/sess_two')).statusCode).toBe(429);
    expect((await get(app, b.testKey, '/v1/connect/sessions/sess_one')).statusCode).not.toBe(429);
    const list = await get(app, a.testKey);
    expect(list.statusCode).toBe(200);
    expect(rateHeaders(list)).toMatchObject({ limit: '100', remaining: '93' });
  });

  it('limits any GET route declared with config.pollLimit per id, and no route without it', async () => {
    const { testKey } = await t.newClient('Probe poller');
    const polls = await getTimes(polling, testKey, 3, '/v1/probe/status/x1');
    expect(polls.map((r) => r.statusCode)).toEqual([200, 200, 429]);
    expect((await get(polling, testKey, '/v1/probe/status/x2')).statusCode).toBe(200);
    const plain = await getTimes(polling, testKey, 3, '/v1/connect/account_holders/ah_missing');
    expect(plain.map((r) => r.statusCode)).toEqual([404, 404, 404]);
  });

  it.runIf(engine === 'postgres')('keeps the counters in the database on PostgreSQL', async () => {
    const tenant = await t.newClient();
    await getTimes(limited, tenant.testKey, 2);
    const rows = await sql<{
      key: string;
      points: number;
    }>`select key, points from rate_limits where key = ${`client:${tenant.clientId}:test`}`.execute(t.ctx.db);
    expect(rows.rows).toEqual([{ key: `client:${tenant.clientId}:test`, points: 2 }]);
  });
});

describe('rate limit configuration', () => {
  it('defaults to 100 requests per second with a burst equal to the rate', () => {
    expect(loadConfig({}).rateLimit).toEqual({ perSecond: 100, burst: 100 });
    expect(loadConfig({ RATE_LIMIT_PER_SECOND: '20' }).rateLimit).toEqual({ perSecond: 20, burst: 20 });
    expect(loadConfig({ RATE_LIMIT_PER_SECOND: '20', RATE_LIMIT_BURST: '0' }).rateLimit).toEqual({ perSecond: 20, burst: 0 });
  });

  it.each([
    ['RATE_LIMIT_PER_SECOND', '0'],
    ['RATE_LIMIT_PER_SECOND', 'fast'],
    ['RATE_LIMIT_BURST', '-1'],
    ['RATE_LIMIT_BURST', '1.5'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid configuration: ${name} must be a whole number`));
  });
});
