import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDueJobs } from '../../../test/support/connect.js';
import { createTestDatabase, engines, type TestDatabase } from '../../../test/support/database.js';
import { startTestApp, TEST_MASTER_KEY, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { fakeResolver, TestReceiver } from '../../../test/support/webhooks.js';
import { recordEvent } from '../events/event.service.js';

const PRODUCTION = { NODE_ENV: 'production', MASTER_KEY: TEST_MASTER_KEY };

/**
 * Loopback webhook targets on a production server: refused in every mode, at endpoint creation and
 * at delivery, unless the operator sets WEBHOOK_ALLOW_LOOPBACK=true (then test mode only, as in
 * development). Every receiver here is real and listens on 127.0.0.1: what it must not get, it
 * would get if a check were missing.
 */
describe.each(engines())('loopback webhook targets in production on %s', (engine) => {
  let database: TestDatabase;
  /** Production, default settings: no loopback. */
  let prod: TestApp;
  /** Production with WEBHOOK_ALLOW_LOOPBACK=true, on the same database. */
  let optedIn: TestApp;
  let client: TestClient;
  let receiver: TestReceiver;
  let rebindAnswer: string[];
  const seams = () => ({
    webhookNetwork: {
      timeoutMs: 2000,
      resolve: fakeResolver({ 'rebind.example.com': () => rebindAnswer, localhost: ['127.0.0.1', '::1'] }),
    },
  });
  const create = (app: TestApp, url: string, key = client.testKey) =>
    app.call(key, { method: 'POST', url: '/v1/webhook_endpoints', json: { url, enabled_events: ['*'] } });
  /** Records an event in test mode and lets `app` run every job it queues (dispatch, then delivery). */
  const deliverWith = async (app: TestApp) => {
    await recordEvent(app.ctx, { clientId: client.clientId, mode: 'test' }, 'account_holder.created', {
      id: 'ah_example',
      object: 'account_holder',
    });
    await runDueJobs(app.ctx);
  };
  const attempts = async (endpointId: string) =>
    (await prod.call(client.testKey, { method: 'GET', url: `/v1/webhook_endpoints/${endpointId}/deliveries` })).json().data as {
      status: string;
      error: string | null;
    }[];

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    prod = await startTestApp(engine, { database, config: PRODUCTION, seams: seams() });
    optedIn = await startTestApp(engine, { database, config: { ...PRODUCTION, WEBHOOK_ALLOW_LOOPBACK: 'true' }, seams: seams() });
    client = await prod.newClient();
    receiver = await TestReceiver.start();
  });
  afterEach(async () => {
    await prod.ctx.db.deleteFrom('webhook_endpoints').execute();
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await receiver?.close();
    await optedIn?.close();
    await prod?.close();
    await database?.destroy();
  });

  it.each([
    ['an IPv4 loopback address', (port: number) => `http://127.0.0.1:${port}/hook`],
    ['another address of 127.0.0.0/8', (port: number) => `http://127.8.9.10:${port}/hook`],
    ['::1', (port: number) => `http://[::1]:${port}/hook`],
    ['an IPv4-mapped loopback address', (port: number) => `http://[::ffff:127.0.0.1]:${port}/hook`],
    ['a name that resolves to loopback', (port: number) => `http://localhost:${port}/hook`],
  ])('refuses a test-mode endpoint at %s, on creation and on update', async (_name, url) => {
    const res = await create(prod, url(receiver.port));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'url',
      message: expect.stringMatching(/loopback address; this server only sends webhooks to public addresses\.$/),
    });
    rebindAnswer = ['93.184.216.34'];
    const made = await create(prod, `http://rebind.example.com:${receiver.port}/hook`);
    expect(made.statusCode).toBe(200);
    const updated = await prod.call(client.testKey, {
      method: 'POST',
      url: `/v1/webhook_endpoints/${made.json().id}`,
      json: { url: url(receiver.port) },
    });
    expect(updated.statusCode).toBe(400);
    expect(updated.json().error).toMatchObject({ code: 'parameter_invalid', param: 'url' });
  });

  it('refuses at delivery a name that resolved to a public address at creation and to loopback now: the receiver gets nothing', async () => {
    rebindAnswer = ['93.184.216.34'];
    const endpoint = (await create(prod, `http://rebind.example.com:${receiver.port}/hook`)).json();
    rebindAnswer = ['127.0.0.1'];
    await deliverWith(prod);
    expect(receiver.received).toEqual([]);
    const [attempt] = await attempts(endpoint.id);
    expect(attempt).toMatchObject({
      status: 'failed',
      error:
        'refused: host rebind.example.com resolves to 127.0.0.1, a loopback address; this server only sends webhooks to public addresses',
    });
  });

  it('refuses at delivery a loopback endpoint stored while loopback was allowed: the receiver gets nothing', async () => {
    const endpoint = (await create(optedIn, receiver.url)).json();
    expect(endpoint.url).toBe(receiver.url);
    await deliverWith(prod);
    expect(receiver.received).toEqual([]);
    const [attempt] = await attempts(endpoint.id);
    expect(attempt).toMatchObject({
      status: 'failed',
      error: 'refused: 127.0.0.1 is a loopback address; this server only sends webhooks to public addresses',
    });
  });

  it('delivers to loopback in test mode when the operator opts in with WEBHOOK_ALLOW_LOOPBACK=true', async () => {
    const endpoint = (await create(optedIn, receiver.url)).json();
    await deliverWith(optedIn);
    await receiver.waitFor(1);
    expect(receiver.received).toHaveLength(1);
    expect((await attempts(endpoint.id))[0]).toMatchObject({ status: 'succeeded' });
  });

  it('still refuses loopback in live mode when the operator opts in', async () => {
    const res = await create(optedIn, `https://127.0.0.1:${receiver.port}/hook`, client.liveKey);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/loopback address; live mode only sends to public addresses\.$/);
  });
});
