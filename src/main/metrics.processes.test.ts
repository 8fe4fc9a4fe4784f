import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  databaseEnv,
  startNodeProcess,
  startServe,
  type LongRunningProcess,
  type ServingProcess,
} from '../../test/support/cli-process.js';
import { createTestDatabase, engines, type TestDatabase } from '../../test/support/database.js';
import { eventually } from '../../test/support/eventually.js';
import { parsePrometheus, sampleValue } from '../../test/support/prometheus.js';
import { TestReceiver } from '../../test/support/webhooks.js';
import { createClient } from '../clients/client.service.js';
import { systemClock } from '../platform/clock.js';

/**
 * One `ownproof serve --no-worker` and one `ownproof worker` on one database, each with
 * METRICS_PORT=0: the server reports the requests it answered, the worker the jobs it ran, and
 * both the same shared queue, read from the database.
 */
describe.each(engines())('metrics of a serve process and a worker process on %s', (engine) => {
  let database: TestDatabase;
  let dataDir: string;
  let receiver: TestReceiver;
  let serve: ServingProcess;
  let worker: LongRunningProcess;
  let serveMetrics: string;
  let workerMetrics: string;

  const scrape = async (url: string) => parsePrometheus(await (await fetch(url)).text()).samples;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-metrics-'));
    receiver = await TestReceiver.start();
    const env = { ...databaseEnv(database.config), DATA_DIR: dataDir, METRICS_PORT: '0' };
    const workerProcess = startNodeProcess([BIN, 'worker'], env);
    [serve] = await Promise.all([startServe(env, ['--no-worker']), workerProcess.waitForLine(/Metrics:/, 45_000)]);
    worker = workerProcess;
    serveMetrics = /Metrics: +(http:\/\/\S+)/.exec(serve.banner)?.[1] as string;
    workerMetrics = /Metrics: +(http:\/\/\S+)/.exec(worker.output())?.[1] as string;
  }, 60_000);
  afterAll(async () => {
    await Promise.all([serve?.process.stop(), worker?.stop()]);
    await receiver?.close();
    await database?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints where each process is scraped, on 127.0.0.1 and a port of its own', () => {
    expect(serveMetrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(workerMetrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new Set([new URL(serveMetrics).port, new URL(workerMetrics).port, new URL(serve.url).port]).size).toBe(3);
  });

  it('counts requests in the server, job runs in the worker, and the same queue in both', async () => {
    const client = await createClient({ db: database.handle.db, clock: systemClock }, { name: 'Metrics' });
    const post = async (url: string, body: unknown) => {
      const response = await fetch(`${serve.url}${url}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${client.testKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { id: string };
    };
    await post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['account_holder.created'] });
    const holder = await post('/v1/connect/account_holders', { email: 'ada@example.com' });
    await post('/v1/connect/sessions', { account_holder: holder.id, permissions: ['balances'] });
    // The worker process delivers the event the server recorded.
    await eventually(async () => receiver.received.length === 1, 20_000);
    await eventually(
      async () =>
        sampleValue(await scrape(workerMetrics), 'ownproof_webhook_attempt_duration_seconds_count', {
          mode: 'test',
          outcome: 'succeeded',
          response: '2xx',
        }) === 1,
      10_000,
    );
    // A run is timed once its job is marked done, which is after the attempt the handler recorded.
    await eventually(
      async () =>
        sampleValue(await scrape(workerMetrics), 'ownproof_job_run_duration_seconds_count', {
          type: 'webhooks.deliver',
          outcome: 'succeeded',
        }) !== undefined,
      10_000,
    );

    const [fromServe, fromWorker] = await Promise.all([scrape(serveMetrics), scrape(workerMetrics)]);
    expect(
      sampleValue(fromServe, 'ownproof_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/connect/account_holders',
        status: '200',
      }),
    ).toBe(1);
    expect(fromWorker.filter((s) => s.name === 'ownproof_http_request_duration_seconds_count')).toEqual([]);
    expect(sampleValue(fromWorker, 'ownproof_job_run_duration_seconds_count', { type: 'webhooks.deliver', outcome: 'succeeded' })).toBe(1);
    expect(fromServe.filter((s) => s.name === 'ownproof_job_run_duration_seconds_count')).toEqual([]);
    // The session's expiry waits in the shared queue: each process reads it from the database.
    const queue = (samples: typeof fromServe) => samples.filter((s) => s.name === 'ownproof_jobs');
    expect(sampleValue(fromServe, 'ownproof_jobs', { type: 'connect.expire_session', state: 'scheduled' })).toBe(1);
    expect(queue(fromWorker)).toEqual(queue(fromServe));
    for (const samples of [fromServe, fromWorker]) expect(sampleValue(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});
