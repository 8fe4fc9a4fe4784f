import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeWith, createSessionFor, runDueJobs } from '../../test/support/connect.js';
import { engines } from '../../test/support/database.js';
import { parsePrometheus, sampleValue, type PromSample } from '../../test/support/prometheus.js';
import { at, makeStatementWorld } from '../../test/support/statements.js';
import { startTestApp, type TestApp, type TestClient } from '../../test/support/test-app.js';
import { TestReceiver } from '../../test/support/webhooks.js';
import { openMetricsEndpoint, type MetricsEndpoint } from '../platform/metrics/metrics-endpoint.js';
import { service } from './modules.js';

describe('the metrics operators are told about', () => {
  it('are exactly the metrics the modules declare, each in docs/operations.md with its type and labels', () => {
    const documented = new Map(
      [
        ...readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8').matchAll(
          /^\| `(ownproof_\w+)` \| (\w+) \|([^|]*)\|/gm,
        ),
      ].map(([, name, type, labels]) => [name, { type, labels: [...labels!.matchAll(/`(\w+)`/g)].map((m) => m[1]) }]),
    );
    const declared = new Map(
      service.modules.flatMap((m) => m.metrics ?? []).map((d) => [d.name, { type: d.kind, labels: [...d.labelNames] }]),
    );
    expect(documented).toEqual(declared);
  });
});

/**
 * The scrape endpoint of a real app (API on a real port, METRICS_PORT=0) after real work: API
 * requests over HTTP, hosted pages, webhook deliveries, an e-mail, refreshes (one succeeding, one
 * rate-limited), a statement, a job that dies, and a job left waiting in the queue.
 */
describe.each(engines())('metrics at METRICS_PORT on %s', (engine) => {
  let t: TestApp;
  let receiver: TestReceiver;
  let endpoint: MetricsEndpoint;
  let base: string;
  let client: TestClient;
  /** Everything that must never be a label: ids, e-mail addresses, keys and secrets this test made or used. */
  const personal = new Set<string>();
  let text: string;
  let samples: PromSample[];
  let types: Map<string, string>;

  const api = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${client.testKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const ok = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const response = await api(method, path, body);
    expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(200);
    return response.body;
  };
  const scrape = async () => {
    const response = await fetch(endpoint.url);
    expect(response.status).toBe(200);
    return response.text();
  };
  const value = (name: string, labels: Record<string, string> = {}) => sampleValue(samples, name, labels);

  beforeAll(async () => {
    receiver = await TestReceiver.start();
    t = await startTestApp(engine, { config: { METRICS_PORT: '0' } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    endpoint = (await openMetricsEndpoint(t.ctx, pino({ level: 'silent' }))) as MetricsEndpoint;

    // A statement of a claim (its own client and account holder; it moves the test clock to December 2026).
    const world = await makeStatementWorld(t, { holder: { email: 'ada.lovelace@example.com' } });
    const claim = await world.proveAddress();
    const statement = await world.completedStatement({
      claim_ids: [claim.id],
      period: { open: at('2026-10-01T00:00:00Z'), close: at('2026-11-01T00:00:00Z') },
      timezone: 'UTC',
    });
    for (const id of [world.client.clientId, world.client.testKey, world.holderId, claim.id, claim.address, statement.id]) personal.add(id);

    client = await t.newClient();
    personal.add(client.clientId).add(client.testKey).add(client.liveKey);
    const webhook = await ok('POST', '/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] });
    personal.add(webhook.id as string).add(webhook.secret as string);
    const holder = await ok('POST', '/v1/connect/account_holders', { email: 'grace.hopper@example.com', name: 'Grace Hopper' });
    personal
      .add(holder.id as string)
      .add('grace.hopper@example.com')
      .add('Grace Hopper');
    // The same route template through the /api alias, an unknown id, and URLs that match no route.
    await ok('GET', `/v1/connect/account_holders/${holder.id}`);
    await ok('GET', `/api/v1/connect/account_holders/${holder.id}`);
    expect((await api('GET', '/v1/connect/account_holders/ah_NoSuchHolderAnywhere00')).status).toBe(404);
    expect((await api('GET', `/v1/no/such/route/${holder.id}`)).status).toBe(404);
    expect((await fetch(`${base}/v1/connect/account_holders/%E0%A4%A`)).status).toBe(404);
    personal.add('ah_NoSuchHolderAnywhere00');

    // Two connected sandbox accounts, through a session each; the hosted page is read over HTTP once.
    const accounts: Record<string, string> = {};
    for (const username of ['user_good', 'user_throttled']) {
      const { session, holderId, path } = await createSessionFor(t, client.testKey, { permissions: ['balances'] });
      if (username === 'user_good') expect((await fetch(`${base}${path}`)).status).toBe(200);
      const [accountId] = await completeWith(t.ctx, session.client_secret, 'sandbox', { username, password: 'pass_good' });
      accounts[username] = accountId!;
      personal.add(session.id).add(session.client_secret).add(holderId).add(accountId!);
    }
    personal.add('holder@example.com');
    for (const id of Object.values(accounts)) await ok('POST', `/v1/connect/accounts/${id}/refresh`, { features: ['balances'] });
    const request = await ok('POST', '/v1/verify/access_requests', {
      type: 'sharing',
      account_holder_id: holder.id,
      permissions: ['balances'],
    });
    personal.add(request.id as string);
    await runDueJobs(t.ctx);

    // A job whose payload no longer matches its type's schema: it fails on its only attempt and dies.
    const now = t.clock.now();
    await t.ctx.db
      .insertInto('jobs')
      .values({
        id: 'job_MetricsDeadJob000000',
        type: 'webhooks.deliver',
        payload: '{}',
        status: 'pending',
        run_at: now,
        attempts: 0,
        max_attempts: 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await runDueJobs(t.ctx);
    // A refresh left in the queue, 45 seconds overdue.
    await ok('POST', `/v1/connect/accounts/${accounts.user_good}/refresh`, { features: ['balances'] });
    t.clock.advance(45);

    const events = (await ok('GET', '/v1/events?limit=100')).data as { id: string }[];
    for (const event of events) personal.add(event.id);
    for (const job of await t.ctx.db.selectFrom('jobs').select('id').execute()) personal.add(job.id);
    text = await scrape();
    ({ samples, types } = parsePrometheus(text));
  }, 120_000);
  afterAll(async () => {
    await endpoint?.close();
    await t?.close();
    await receiver?.close();
  });

  it('times HTTP requests by method, route template and status, never by URL, and counts none in flight after them', () => {
    const duration = 'ownproof_http_request_duration_seconds_count';
    expect(value(duration, { method: 'GET', route: '/v1/connect/account_holders/:id', status: '200' })).toBe(2);
    expect(value(duration, { method: 'GET', route: '/v1/connect/account_holders/:id', status: '404' })).toBe(1);
    // One over HTTP, three by the test helpers through inject (which runs the same hooks).
    expect(value(duration, { method: 'POST', route: '/v1/connect/account_holders', status: '200' })).toBe(4);
    // An unknown route and a path the router cannot read: one label for all of them.
    expect(value(duration, { method: 'GET', route: 'unmatched', status: '404' })).toBe(2);
    expect(value(duration, { method: 'POST', route: '/v1/connect/accounts/:id/refresh', status: '200' })).toBe(3);
    const hosted = samples.find((s) => s.name === duration && s.labels.route?.startsWith('/connect/'));
    expect(hosted?.labels).toEqual({ method: 'GET', route: '/connect/:secret', status: '200' });
    expect(value('ownproof_http_requests_in_flight')).toBe(0);
    expect(types.get('ownproof_http_request_duration_seconds')).toBe('histogram');
    // Buckets are cumulative, up to +Inf = count.
    const buckets = samples.filter(
      (s) =>
        s.name === 'ownproof_http_request_duration_seconds_bucket' &&
        s.labels.route === '/v1/connect/account_holders/:id' &&
        s.labels.status === '200',
    );
    expect(buckets.at(-1)).toMatchObject({ labels: { le: '+Inf' }, value: 2 });
    expect(buckets.map((b) => b.value)).toEqual([...buckets.map((b) => b.value)].sort((a, b) => a - b));
  });

  it('times job runs by type and outcome, and reads the shared queue by type and state from the database', () => {
    const runs = 'ownproof_job_run_duration_seconds_count';
    expect(value(runs, { type: 'connect.refresh_account', outcome: 'succeeded' })).toBe(2);
    expect(value(runs, { type: 'verify.generate_statement', outcome: 'succeeded' })).toBe(1);
    expect(value(runs, { type: 'verify.notify_access_request', outcome: 'succeeded' })).toBe(1);
    expect(value(runs, { type: 'webhooks.deliver', outcome: 'dead' })).toBe(1);
    expect(value(runs, { type: 'webhooks.deliver', outcome: 'succeeded' })).toBe(receiver.received.length);
    expect(value('ownproof_jobs', { type: 'webhooks.deliver', state: 'dead' })).toBe(1);
    expect(value('ownproof_jobs', { type: 'connect.refresh_account', state: 'queued' })).toBe(1);
    // The test clock runs in real time too: 45 s and the few milliseconds since.
    expect(value('ownproof_jobs_oldest_age_seconds', { type: 'connect.refresh_account', state: 'queued' })).toBeGreaterThanOrEqual(45);
    expect(value('ownproof_jobs_oldest_age_seconds', { type: 'connect.refresh_account', state: 'queued' })).toBeLessThan(60);
    // The sessions' and the access request's expiries wait for their time.
    expect(value('ownproof_jobs', { type: 'connect.expire_session', state: 'scheduled' })).toBe(2);
    expect(value('ownproof_jobs', { type: 'verify.expire_access_request', state: 'scheduled' })).toBe(1);
    // Succeeded jobs are history, not queue.
    expect(samples.filter((s) => s.name === 'ownproof_jobs').map((s) => s.labels.state)).not.toContain('succeeded');
  });

  it('records webhook attempts, e-mail, refreshes by provider and error code, and statement computations', () => {
    expect(receiver.received.length).toBeGreaterThan(5);
    expect(value('ownproof_webhook_attempt_duration_seconds_count', { mode: 'test', outcome: 'succeeded', response: '2xx' })).toBe(
      receiver.received.length,
    );
    expect(value('ownproof_mail_messages_total', { kind: 'access_request', transport: 'outbox', outcome: 'sent' })).toBe(1);
    const refreshes = 'ownproof_connect_refreshes_total';
    expect(value(refreshes, { mode: 'test', provider: 'sandbox', feature: 'balances', outcome: 'succeeded' })).toBe(1);
    expect(
      value(refreshes, { mode: 'test', provider: 'sandbox', feature: 'balances', outcome: 'failed', error_code: 'provider_rate_limited' }),
    ).toBe(1);
    expect(value('ownproof_statement_generation_duration_seconds_count', { mode: 'test', outcome: 'completed' })).toBe(1);
  });

  it('reports the database connections and the process', () => {
    const max = engine === 'sqlite' ? 1 : 5; // the test database's pool (test/support/database.ts)
    expect(value('ownproof_db_connections_max')).toBe(max);
    const inUse = value('ownproof_db_connections', { state: 'in_use' }) as number;
    const idle = value('ownproof_db_connections', { state: 'idle' }) as number;
    expect(inUse + idle).toBeLessThanOrEqual(max);
    expect(value('ownproof_db_waiting_queries')).toBe(0);
    expect(value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('has no id, e-mail address, name, key or secret in any label', () => {
    expect(personal.size).toBeGreaterThan(30);
    expect([...personal].filter((item) => text.includes(item))).toEqual([]);
    const values = samples.flatMap((s) => Object.values(s.labels));
    // Nothing shaped like one of our ids or secrets (prefix_ + random), nor any address.
    expect(values.filter((v) => /[a-z]{2,5}_[0-9A-Za-z]{16,}/.test(v) || v.includes('@'))).toEqual([]);
    // Our metrics carry only their declared labels.
    const ours = samples.filter((s) => s.name.startsWith('ownproof_'));
    expect(new Set(ours.flatMap((s) => Object.keys(s.labels)))).toEqual(
      new Set([
        'method',
        'route',
        'status',
        'le',
        'type',
        'outcome',
        'state',
        'mode',
        'response',
        'kind',
        'transport',
        'provider',
        'feature',
        'error_code',
      ]),
    );
  });

  it('serves /metrics on its own port only: not on the API port, not in the OpenAPI document', async () => {
    const onApi = await fetch(`${base}/metrics`);
    expect(onApi.status).toBe(404);
    expect(((await onApi.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
    const document = (await (await fetch(`${base}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.includes('metrics'))).toEqual([]);
    expect(new URL(endpoint.url).port).not.toBe(new URL(base).port);
  });

  it('answers other paths and methods on the metrics port with the API’s error shape', async () => {
    const metricsBase = endpoint.url.replace(/\/metrics$/, '');
    const elsewhere = await fetch(`${metricsBase}/v1/connect/account_holders`);
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toEqual({
      error: {
        type: 'invalid_request_error',
        code: 'route_not_found',
        message: 'Unrecognised request URL (GET /v1/connect/account_holders).',
        request_id: elsewhere.headers.get('request-id'),
      },
    });
    const posted = await fetch(endpoint.url, { method: 'POST' });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
    expect(((await posted.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
    const head = await fetch(endpoint.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const get = await fetch(endpoint.url);
    expect(get.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(get.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
