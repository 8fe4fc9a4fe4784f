import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runDueJobs } from '../../../test/support/connect.js';
import { engines } from '../../../test/support/database.js';
import { expectRefusedUnchanged, type SendRequest } from '../../../test/support/refusals.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { fakeResolver, TestReceiver } from '../../../test/support/webhooks.js';

const PING = (id: string) => `/v1/test_helpers/webhook_endpoints/${id}/ping`;

/**
 * `ping` sends a test event to one webhook endpoint through the delivery pipeline every event
 * takes (signature, attempts, retries), so an integrator can check their receiver without waiting
 * for something to happen.
 */
describe.each(engines())('pinging a webhook endpoint on %s', (engine) => {
  let t: TestApp;
  let acme: TestClient;
  let pinged: TestReceiver;
  let bystander: TestReceiver;
  const api = (method: 'GET' | 'POST', url: string, json?: unknown, key = acme.testKey) =>
    t.call(key, { method, url, ...(json === undefined ? {} : { json }) });
  const expectRefused = (send: SendRequest, status: number, code: string, param?: string) =>
    expectRefusedUnchanged(t, send, status, code, param);
  const createEndpoint = async (url: string, enabled_events: string[], key = acme.testKey) => {
    const res = await api('POST', '/v1/webhook_endpoints', { url, enabled_events }, key);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { id: string; secret: string };
  };

  beforeAll(async () => {
    t = await startTestApp(engine, { seams: { webhookNetwork: { resolve: fakeResolver({ 'hooks.example.com': ['93.184.216.34'] }) } } });
    pinged = await TestReceiver.start();
    bystander = await TestReceiver.start();
  });
  beforeEach(async () => {
    // The receivers serve the whole file: only this test's endpoints may deliver to them.
    await t.ctx.db.deleteFrom('webhook_endpoints').execute();
    acme = await t.newClient('Acme Lending');
    pinged.received.length = 0;
    bystander.received.length = 0;
  });
  afterAll(async () => {
    await pinged?.close();
    await bystander?.close();
    await t?.close();
  });

  it('delivers webhook_endpoint.ping to that endpoint alone, signed with its secret, whatever events it subscribed to', async () => {
    const endpoint = await createEndpoint(pinged.url, ['statement.completed']);
    await createEndpoint(bystander.url, ['*']);
    const res = await api('POST', PING(endpoint.id));
    expect(res.statusCode, res.body).toBe(200);
    const event = res.json();
    expect(event).toMatchObject({
      object: 'event',
      type: 'webhook_endpoint.ping',
      livemode: false,
      data: { object: { id: endpoint.id, object: 'webhook_endpoint' } },
    });
    expect(JSON.stringify(event)).not.toContain(endpoint.secret);

    await runDueJobs(t.ctx);
    const [request] = await pinged.waitFor(1);
    expect(request?.headers['webhook-id']).toBe(event.id);
    expect(new Webhook(endpoint.secret).verify(request?.body as string, request?.headers as Record<string, string>)).toEqual(event);
    expect(bystander.received).toEqual([]);
    // An event like any other: listed, and its attempt recorded on the endpoint.
    expect((await api('GET', `/v1/events/${event.id}`)).json()).toEqual(event);
    const attempts = (await api('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries?event=${event.id}`)).json().data;
    expect(attempts).toMatchObject([{ event: event.id, status: 'succeeded', response_status: 200 }]);
  });

  it('answers 409 webhook_endpoint_disabled for a disabled endpoint, which would receive nothing; nothing changes', async () => {
    const endpoint = await createEndpoint(pinged.url, ['*']);
    expect((await api('POST', `/v1/webhook_endpoints/${endpoint.id}`, { disabled: true })).statusCode).toBe(200);
    await expectRefused(() => api('POST', PING(endpoint.id)), 409, 'webhook_endpoint_disabled');
  });

  it('answers 403 test_mode_only to a live key on its own endpoint, and 404 to another client’s; nothing changes', async () => {
    const live = await createEndpoint('https://hooks.example.com/hook', ['*'], acme.liveKey);
    await expectRefused(() => api('POST', PING(live.id), undefined, acme.liveKey), 403, 'test_mode_only');
    await expectRefused(() => api('POST', PING(live.id)), 404, 'resource_missing');
    const other = await t.newClient('Other Co');
    const theirs = await createEndpoint(pinged.url, ['*'], other.testKey);
    await expectRefused(() => api('POST', PING(theirs.id)), 404, 'resource_missing');
    await runDueJobs(t.ctx);
    expect(pinged.received).toEqual([]);
  });
});
