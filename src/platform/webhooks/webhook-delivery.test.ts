import { createHmac } from 'node:crypto';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { queueIdle } from '../../../test/support/queue.js';
import { SELF_SIGNED_TLS } from '../../../test/support/self-signed-tls.js';
import { captureStream, startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { service } from '../../main/modules.js';
import { recordEvent } from '../events/event.service.js';
import { Worker } from '../jobs/worker.js';
import type { Scope } from '../scope.js';
import { DISABLE_AFTER_FAILING_SECONDS } from './retry-schedule.js';
import { eventually } from '../../../test/support/eventually.js';
import { fakeResolver, TestReceiver, type ReceiverOptions, type ReceiverReply } from '../../../test/support/webhooks.js';

const TIMEOUT_MS = 400;

describe.each(engines())('webhook delivery on %s', (engine) => {
  let t: TestApp;
  let worker: Worker;
  let client: TestClient;
  let scope: Scope;
  const receivers: TestReceiver[] = [];
  let rebindAnswer = ['93.184.216.34'];
  const workerLog = captureStream();

  const receiver = async (reply?: (index: number) => ReceiverReply, options?: ReceiverOptions) => {
    const r = await TestReceiver.start(reply, options);
    receivers.push(r);
    return r;
  };
  const createEndpoint = async (json: Record<string, unknown>, key = client.testKey) => {
    const res = await t.call(key, { method: 'POST', url: '/v1/webhook_endpoints', json: { enabled_events: ['*'], ...json } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { id: string; secret: string };
  };
  const emit = async (type: 'account_holder.created' | 'session.completed' = 'account_holder.created', inScope: Scope = scope) => {
    const event = await recordEvent(t.ctx, inScope, type, {
      id: 'ah_example',
      object: 'account_holder',
      email: 'ada@example.com',
      note: 'é ✓ "quoted"',
    });
    worker.notify();
    return event;
  };
  const attempts = async (endpointId: string, key = client.testKey) => {
    const res = await t.call(key, { method: 'GET', url: `/v1/webhook_endpoints/${endpointId}/deliveries?limit=100` });
    expect(res.statusCode).toBe(200);
    return res.json().data as Record<string, unknown>[];
  };
  const endpoint = async (id: string, key = client.testKey) =>
    (await t.call(key, { method: 'GET', url: `/v1/webhook_endpoints/${id}` })).json();
  /**
   * Moves time forward once the worker has settled what it is running (a job settled after the jump
   * would schedule its retry from the new time), then lets it look for due work at once.
   */
  const advance = async (seconds: number) => {
    await eventually(() => queueIdle(t.ctx));
    t.clock.advance(seconds);
    worker.notify();
  };

  beforeAll(async () => {
    t = await startTestApp(engine, {
      seams: {
        webhookNetwork: {
          timeoutMs: TIMEOUT_MS,
          resolve: fakeResolver({ 'rebind.example.com': () => rebindAnswer, 'hooks.example.com': ['93.184.216.34'] }),
        },
      },
    });
    worker = new Worker(t.ctx, service.jobCatalog(), {
      pollIntervalMs: 20,
      concurrency: 8,
      log: pino({ level: 'warn' }, workerLog.stream),
    });
    worker.start();
  });
  afterAll(async () => {
    await worker.stop(1000);
    await t.close();
  });
  beforeAll(async () => {
    client = await t.newClient();
    scope = { clientId: client.clientId, mode: 'test' };
  });
  afterEach(async () => {
    // Each test's endpoints go (and with them pending deliveries), so no retry spills into the next test.
    await t.ctx.db.deleteFrom('webhook_endpoints').execute();
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('delivers the event as GET /v1/events/{id} shows it, signed so that standardwebhooks verifies it', async () => {
    const r = await receiver();
    const { secret, id: endpointId } = await createEndpoint({ url: r.url });
    const event = await emit();
    const [request] = await r.waitFor(1);
    const shown = await t.call(client.testKey, { method: 'GET', url: `/v1/events/${event.id}` });
    expect(request!.body).toBe(shown.body);
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': event.id,
      'webhook-timestamp': expect.stringMatching(/^\d+$/),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    const headers = request!.headers as Record<string, string>;
    expect(new Webhook(secret).verify(request!.body, headers)).toEqual(shown.json());
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request!.body, headers)).toThrow();
    // Computed independently of the library: HMAC-SHA256 over "id.timestamp.body" with the decoded secret.
    const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`${event.id}.${headers['webhook-timestamp']}.${request!.body}`)
      .digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);

    const [attempt] = await eventually(async () => ((await attempts(endpointId)).length === 1 ? attempts(endpointId) : undefined));
    expect(attempt).toEqual({
      id: expect.stringMatching(/^wha_/),
      object: 'webhook_delivery_attempt',
      endpoint: endpointId,
      event: event.id,
      delivery: expect.stringMatching(/^whd_/),
      attempt: 1,
      status: 'succeeded',
      response_status: 200,
      duration_ms: expect.any(Number),
      error: null,
      next_attempt_at: null,
      livemode: false,
      created_at: expect.any(Number),
    });
  });

  it('sends only to enabled endpoints subscribed to the event type, in the event’s client and mode', async () => {
    const all = await receiver();
    const sessions = await receiver();
    const disabled = await receiver();
    const live = await receiver();
    await createEndpoint({ url: all.url });
    await createEndpoint({ url: sessions.url, enabled_events: ['session.completed'] });
    const off = await createEndpoint({ url: disabled.url });
    await t.call(client.testKey, { method: 'POST', url: `/v1/webhook_endpoints/${off.id}`, json: { disabled: true } });
    const other = await t.newClient('Other');
    const otherReceiver = await receiver();
    await createEndpoint({ url: otherReceiver.url }, other.testKey);
    void live;

    await emit('account_holder.created');
    await emit('session.completed');
    await all.waitFor(2);
    await sessions.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(all.received.map((r) => JSON.parse(r.body).type).sort()).toEqual(['account_holder.created', 'session.completed']);
    expect(sessions.received.map((r) => JSON.parse(r.body).type)).toEqual(['session.completed']);
    expect(disabled.received).toHaveLength(0);
    expect(otherReceiver.received).toHaveLength(0);
  });

  it('retries a receiver that is down and delivers once it is up, on the documented schedule', async () => {
    const probe = await TestReceiver.start();
    const port = probe.port;
    await probe.close(); // nothing listens on this port now
    const { id: endpointId } = await createEndpoint({ url: `http://127.0.0.1:${port}/hook` });
    const event = await emit();
    const [first] = await eventually(async () => {
      const list = await attempts(endpointId);
      return list.length === 1 ? list : undefined;
    });
    expect(first).toMatchObject({ attempt: 1, status: 'failed', response_status: null, error: 'connection refused' });
    const delay = (first!.next_attempt_at as number) - (first!.created_at as number);
    expect(delay).toBeGreaterThanOrEqual(4); // 5 s ± 10 %
    expect(delay).toBeLessThanOrEqual(7);

    const up = await TestReceiver.start(undefined, { port });
    receivers.push(up);
    await advance(7);
    const [request] = await up.waitFor(1);
    expect(request!.headers['webhook-id']).toBe(event.id);
    const list = await eventually(async () => {
      const rows = await attempts(endpointId);
      return rows.length === 2 ? rows : undefined;
    });
    expect(list.map((a) => [a.attempt, a.status])).toEqual([
      [2, 'succeeded'],
      [1, 'failed'],
    ]);
    expect((await endpoint(endpointId)).status).toBe('enabled');
  });

  it('disables the endpoint when the receiver answers 410, without retrying, and records an event', async () => {
    const gone = await receiver(() => ({ status: 410 }));
    const watcher = await receiver();
    const { id: endpointId } = await createEndpoint({ url: gone.url, enabled_events: ['account_holder.created'] });
    await createEndpoint({ url: watcher.url, enabled_events: ['webhook_endpoint.disabled'] });
    await emit();
    await gone.waitFor(1);
    const [notice] = await watcher.waitFor(1);
    const body = JSON.parse(notice!.body);
    expect(body).toMatchObject({
      type: 'webhook_endpoint.disabled',
      data: { object: { id: endpointId, status: 'disabled', disabled_reason: 'gone' } },
    });
    expect(JSON.stringify(body)).not.toContain('whsec_');
    expect(await endpoint(endpointId)).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    const [attempt] = await attempts(endpointId);
    expect(attempt).toMatchObject({ status: 'failed', response_status: 410, error: 'HTTP 410', next_attempt_at: null });
    await advance(60);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gone.received).toHaveLength(1);
  });

  it('waits at least as long as a 429’s Retry-After before trying again', async () => {
    const r = await receiver((index) => (index === 0 ? { status: 429, headers: { 'retry-after': '120' } } : { status: 200 }));
    const { id: endpointId } = await createEndpoint({ url: r.url });
    await emit();
    await r.waitFor(1);
    const [first] = await eventually(async () => {
      const list = await attempts(endpointId);
      return list.length === 1 ? list : undefined;
    });
    expect(first).toMatchObject({ status: 'failed', response_status: 429 });
    expect((first!.next_attempt_at as number) - (first!.created_at as number)).toBeGreaterThanOrEqual(120);
    await advance(60); // past the schedule's 5 s, not past Retry-After
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(r.received).toHaveLength(1);
    await advance(65);
    await r.waitFor(2);
  });

  it('gives up on a receiver that does not answer within the timeout and records it', async () => {
    const r = await receiver(() => ({ stall: true }));
    const { id: endpointId } = await createEndpoint({ url: r.url });
    await emit();
    const [attempt] = await eventually(async () => {
      const list = await attempts(endpointId);
      return list.length === 1 ? list : undefined;
    });
    expect(attempt).toMatchObject({ status: 'failed', response_status: null, error: `timed out after ${TIMEOUT_MS / 1000} s` });
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
  });

  it('does not follow redirects', async () => {
    const target = await receiver();
    const r = await receiver(() => ({ status: 307, headers: { location: target.url } }));
    const { id: endpointId } = await createEndpoint({ url: r.url });
    await emit();
    const [attempt] = await eventually(async () => {
      const list = await attempts(endpointId);
      return list.length === 1 ? list : undefined;
    });
    expect(attempt).toMatchObject({ status: 'failed', response_status: 307 });
    expect(attempt!.error).toContain('redirects are not followed');
    expect(target.received).toHaveLength(0);
  });

  it('signs with both secrets during a rotation’s grace period, and with the new one only after it', async () => {
    const r = await receiver();
    const created = await createEndpoint({ url: r.url });
    const rotate = await t.call(client.testKey, {
      method: 'POST',
      url: `/v1/webhook_endpoints/${created.id}/rotate_secret`,
      json: { grace_period: 3600 },
    });
    const { secret } = rotate.json();
    await emit();
    const [during] = await r.waitFor(1);
    const headers = during!.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(secret).verify(during!.body, headers)).not.toThrow();
    expect(() => new Webhook(created.secret).verify(during!.body, headers)).not.toThrow();

    const again = await t.call(client.testKey, {
      method: 'POST',
      url: `/v1/webhook_endpoints/${created.id}/rotate_secret`,
      json: { grace_period: 0 },
    });
    await emit();
    const [, after] = await r.waitFor(2);
    const afterHeaders = after!.headers as Record<string, string>;
    expect(afterHeaders['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(() => new Webhook(again.json().secret).verify(after!.body, afterHeaders)).not.toThrow();
    expect(() => new Webhook(secret).verify(after!.body, afterHeaders)).toThrow();
  });

  it('disables an endpoint whose attempts have all failed for 5 days, and records webhook_endpoint.disabled', async () => {
    const failing = await receiver(() => ({ status: 500 }));
    const watcher = await receiver();
    const { id: endpointId } = await createEndpoint({ url: failing.url, enabled_events: ['account_holder.created'] });
    const { id: watcherId } = await createEndpoint({ url: watcher.url, enabled_events: ['webhook_endpoint.disabled'] });
    await emit();
    await failing.waitFor(1);
    await eventually(async () => (await endpoint(endpointId)).status === 'enabled' && (await attempts(endpointId)).length === 1);
    await advance(DISABLE_AFTER_FAILING_SECONDS - 60);
    await emit();
    await failing.waitFor(3); // the first event's retry and the second event
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await endpoint(endpointId)).status).toBe('enabled');
    await advance(120);
    await emit();
    const [notice] = await watcher.waitFor(1);
    expect(JSON.parse(notice!.body)).toMatchObject({
      type: 'webhook_endpoint.disabled',
      data: { object: { id: endpointId, status: 'disabled', disabled_reason: 'failing' } },
    });
    expect(await endpoint(endpointId)).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });
    const events = (await t.call(client.testKey, { method: 'GET', url: '/v1/events?type=webhook_endpoint.disabled' })).json();
    expect(events.data.filter((e: { data: { object: { id: string } } }) => e.data.object.id === endpointId)).toHaveLength(1);
    await eventually(async () => (await attempts(watcherId))[0]?.status === 'succeeded');
  });

  it('resets the failure streak on a success, so an endpoint that recovers in between is not disabled', async () => {
    let healthy = false;
    const r = await receiver(() => ({ status: healthy ? 200 : 500 }));
    const { id: endpointId } = await createEndpoint({ url: r.url });
    await emit();
    await r.waitFor(1);
    healthy = true;
    await advance(10);
    await r.waitFor(2);
    healthy = false;
    await advance(DISABLE_AFTER_FAILING_SECONDS + 60);
    await emit();
    await eventually(async () => (await attempts(endpointId)).length >= 3);
    expect((await endpoint(endpointId)).status).toBe('enabled');
  });

  it('resends an event to every subscribed endpoint, or to one, with the same webhook-id', async () => {
    const a = await receiver();
    const b = await receiver();
    const ea = await createEndpoint({ url: a.url });
    await createEndpoint({ url: b.url });
    const event = await emit();
    await a.waitFor(1);
    await b.waitFor(1);

    const all = await t.call(client.testKey, { method: 'POST', url: `/v1/events/${event.id}/resend` });
    expect(all.statusCode).toBe(200);
    expect(all.json()).toMatchObject({ object: 'event_resend', event: event.id });
    expect(all.json().endpoints).toHaveLength(2);
    worker.notify();
    await a.waitFor(2);
    await b.waitFor(2);

    const one = await t.call(client.testKey, { method: 'POST', url: `/v1/events/${event.id}/resend`, json: { endpoint: ea.id } });
    expect(one.json().endpoints).toEqual([ea.id]);
    worker.notify();
    await a.waitFor(3);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(b.received).toHaveLength(2);
    expect(new Set(a.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([event.id]));
    const list = await attempts(ea.id);
    expect(new Set(list.map((x) => x.delivery)).size).toBe(3);
  });

  it('refuses to resend to an unknown, foreign or disabled endpoint (400, the body is wrong) or an unknown event (404), and queues nothing', async () => {
    const r = await receiver();
    const mine = await createEndpoint({ url: r.url });
    const event = await emit();
    await r.waitFor(1);
    const other = await t.newClient('Foreign');
    const foreign = await createEndpoint({ url: r.url }, other.testKey);
    const jobsBefore = await countDeliveries();
    const cases: [string, unknown, number, string, string][] = [
      [event.id, { endpoint: 'we_unknown' }, 400, 'parameter_invalid', 'endpoint'],
      [event.id, { endpoint: foreign.id }, 400, 'parameter_invalid', 'endpoint'],
      ['evt_unknown', {}, 404, 'resource_missing', 'id'],
      [event.id, { endpoint: 7 }, 400, 'parameter_invalid', 'endpoint'],
      [event.id, { endpoints: [mine.id] }, 400, 'parameter_unknown', 'endpoints'],
    ];
    for (const [id, json, status, code, param] of cases) {
      const res = await t.call(client.testKey, { method: 'POST', url: `/v1/events/${id}/resend`, json });
      expect(res.statusCode, JSON.stringify(json)).toBe(status);
      expect(res.json().error).toMatchObject({ code, param });
    }
    const unknown = await t.call(client.testKey, { method: 'POST', url: `/v1/events/${event.id}/resend`, json: { endpoint: foreign.id } });
    expect(unknown.json().error.message).toBe(`Invalid value for endpoint: no such webhook_endpoint '${foreign.id}'.`);
    await t.call(client.testKey, { method: 'POST', url: `/v1/webhook_endpoints/${mine.id}`, json: { disabled: true } });
    const res = await t.call(client.testKey, { method: 'POST', url: `/v1/events/${event.id}/resend`, json: { endpoint: mine.id } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'endpoint' });
    expect(await countDeliveries()).toBe(jobsBefore);
    // Another tenant cannot resend my event.
    expect((await t.call(other.testKey, { method: 'POST', url: `/v1/events/${event.id}/resend` })).statusCode).toBe(404);
  });

  it('drops pending retries when the endpoint is disabled meanwhile', async () => {
    const r = await receiver(() => ({ status: 500 }));
    const { id: endpointId } = await createEndpoint({ url: r.url });
    await emit();
    await r.waitFor(1);
    await eventually(async () => (await attempts(endpointId)).length === 1);
    await t.call(client.testKey, { method: 'POST', url: `/v1/webhook_endpoints/${endpointId}`, json: { disabled: true } });
    await advance(10);
    await eventually(async () => {
      const job = await t.ctx.db
        .selectFrom('jobs')
        .select('status')
        .where('type', '=', 'webhooks.deliver')
        .where('payload', 'like', `%${endpointId}%`)
        .executeTakeFirst();
      return job?.status === 'succeeded';
    });
    expect(await attempts(endpointId)).toHaveLength(1);
    expect(r.received).toHaveLength(1);
  });

  it('lists attempts per endpoint with pagination and an event filter, and hides them from other tenants', async () => {
    const r = await receiver();
    const { id: endpointId } = await createEndpoint({ url: r.url });
    const events = [await emit(), await emit(), await emit()];
    await r.waitFor(3);
    await eventually(async () => (await attempts(endpointId)).length === 3);
    const page = (await t.call(client.testKey, { method: 'GET', url: `/v1/webhook_endpoints/${endpointId}/deliveries?limit=2` })).json();
    expect(page).toMatchObject({ object: 'list', has_more: true, url: `/v1/webhook_endpoints/${endpointId}/deliveries` });
    const next = (
      await t.call(client.testKey, {
        method: 'GET',
        url: `/v1/webhook_endpoints/${endpointId}/deliveries?limit=2&starting_after=${page.data[1].id}`,
      })
    ).json();
    expect(next.data).toHaveLength(1);
    expect(next.has_more).toBe(false);
    const filtered = (
      await t.call(client.testKey, { method: 'GET', url: `/v1/webhook_endpoints/${endpointId}/deliveries?event=${events[1]!.id}` })
    ).json();
    expect(filtered.data.map((a: { event: string }) => a.event)).toEqual([events[1]!.id]);
    const other = await t.newClient('Peek');
    expect((await t.call(other.testKey, { method: 'GET', url: `/v1/webhook_endpoints/${endpointId}/deliveries` })).statusCode).toBe(404);
  });

  describe('TLS failures', () => {
    const firstAttempt = async (endpointId: string) => {
      const [attempt] = await eventually(async () => {
        const list = await attempts(endpointId);
        return list.length === 1 ? list : undefined;
      });
      return attempt!;
    };
    const logLinesAbout = (endpointId: string) =>
      workerLog.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.endpoint_id === endpointId);

    it('records a plain reason when an https endpoint answers in plain HTTP, and leaves the OpenSSL text to the log', async () => {
      const plain = await receiver();
      const { id: endpointId } = await createEndpoint({ url: `https://127.0.0.1:${plain.port}/hook` });
      await emit();
      const attempt = await firstAttempt(endpointId);
      expect(attempt).toMatchObject({ status: 'failed', response_status: null, error: 'tls_error: the endpoint did not speak TLS' });
      const [logged] = await eventually(async () => (logLinesAbout(endpointId).length > 0 ? logLinesAbout(endpointId) : undefined));
      expect(logged).toMatchObject({ msg: 'webhook attempt failed', delivery_id: attempt.delivery, attempt: 1, error: attempt.error });
      expect(logged!.detail).toMatch(/^EPROTO: .*wrong version number/);
      expect(workerLog.lines.join('')).not.toContain('whsec_');
    });

    it('records a plain reason for a self-signed certificate, and sends nothing to that server', async () => {
      const selfSigned = await receiver(undefined, { tls: SELF_SIGNED_TLS });
      const { id: endpointId } = await createEndpoint({ url: selfSigned.url });
      await emit();
      const attempt = await firstAttempt(endpointId);
      expect(attempt).toMatchObject({ status: 'failed', response_status: null, error: 'tls_error: the certificate is self-signed' });
      expect(selfSigned.received).toHaveLength(0);
      const [logged] = await eventually(async () => (logLinesAbout(endpointId).length > 0 ? logLinesAbout(endpointId) : undefined));
      // Node 24 adds a hint to the message (`; if the root CA is installed locally, try running Node.js with --use-system-ca`).
      expect(logged!.detail).toMatch(/^DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate\b/);
    });
  });

  it('refuses an event filter that names no event of this client and mode, rather than listing nothing', async () => {
    const { id: endpointId } = await createEndpoint({ url: 'http://127.0.0.1:9/hook' });
    const foreign = await emit('account_holder.created', { clientId: (await t.newClient('Filter')).clientId, mode: 'test' });
    for (const eventId of ['evt_unknown', foreign.id]) {
      const res = await t.call(client.testKey, { method: 'GET', url: `/v1/webhook_endpoints/${endpointId}/deliveries?event=${eventId}` });
      expect(res.statusCode, eventId).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'parameter_invalid',
        param: 'event',
        message: `Invalid value for event: no such event '${eventId}'.`,
      });
    }
  });

  describe('live mode', () => {
    it('refuses at delivery time a host that now resolves to a private address (DNS rebinding), and connects nowhere', async () => {
      rebindAnswer = ['93.184.216.34'];
      const { id: endpointId } = await createEndpoint({ url: 'https://rebind.example.com/hook' }, client.liveKey);
      rebindAnswer = ['127.0.0.1'];
      await emit('account_holder.created', { clientId: client.clientId, mode: 'live' });
      const [attempt] = await eventually(async () => {
        const list = await attempts(endpointId, client.liveKey);
        return list.length === 1 ? list : undefined;
      });
      expect(attempt).toMatchObject({ status: 'failed', response_status: null, livemode: true });
      expect(attempt!.error).toBe(
        'refused: host rebind.example.com resolves to 127.0.0.1, a loopback address; live mode only sends to public addresses',
      );
    });

    it('refuses at delivery time a URL that breaks the live rules even if it was stored', async () => {
      const r = await receiver();
      const { id: endpointId } = await createEndpoint({ url: 'https://hooks.example.com/hook' }, client.liveKey);
      // As if the rules had been looser when the endpoint was saved.
      await t.ctx.db.updateTable('webhook_endpoints').set({ url: r.url }).where('id', '=', endpointId).execute();
      await emit('account_holder.created', { clientId: client.clientId, mode: 'live' });
      const [attempt] = await eventually(async () => {
        const list = await attempts(endpointId, client.liveKey);
        return list.length === 1 ? list : undefined;
      });
      expect(attempt!.error).toBe('refused: must use https in live mode');
      expect(r.received).toHaveLength(0);
    });
  });

  async function countDeliveries(): Promise<number> {
    const row = await t.ctx.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('type', '=', 'webhooks.deliver')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
});
