/**
 * Webhook and job-queue throughput on SQLite and PostgreSQL, measured in one run:
 * - no-op jobs/s through the durable queue (an in-process Worker, so only the queue is measured);
 * - signed webhook deliveries/s from one real `ownproof worker` process to a loopback receiver:
 *   events are recorded first (each enqueues its fan-out job; every one goes to one endpoint), then
 *   the worker starts, and the clock runs from its "running" line to the receipt of the last
 *   delivery: a burst drained by one process, fan-out job and delivery job per event.
 * PostgreSQL: a scratch database on BENCH_DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432/postgres),
 * created and dropped here; skipped with a note when the server cannot be reached.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { Webhook } from 'standardwebhooks';
import { createClient } from '../src/clients/client.service.js';
import { service } from '../src/main/modules.js';
import { systemClock } from '../src/platform/clock.js';
import { loadConfig, type DatabaseConfig } from '../src/platform/config/config.js';
import type { AppContext } from '../src/platform/context.js';
import { openSecretBox } from '../src/platform/crypto/secret-box.js';
import { randomBase62 } from '../src/platform/crypto/random.js';
import { openDatabase, type DatabaseHandle } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { recordEvent } from '../src/platform/events/event.service.js';
import { defineJob, JobCatalog } from '../src/platform/jobs/catalog.js';
import { enqueueJob } from '../src/platform/jobs/enqueue.js';
import { Worker } from '../src/platform/jobs/worker.js';
import { createWebhookEndpoint } from '../src/platform/webhooks/webhook-endpoint.service.js';
import { BIN, databaseEnv, startNodeProcess, type LongRunningProcess } from '../test/support/cli-process.js';
import { databaseUrl, dropDatabase, withAdminClient } from '../test/support/postgres.js';

export interface WebhookBenchRow {
  engine: 'SQLite' | 'PostgreSQL';
  noopJobs: number;
  noopJobsPerSecond: number;
  deliveries: number;
  deliveriesPerSecond: number;
  /** Jobs behind the deliveries: one fan-out and one delivery job per event. */
  jobsPerSecondInDeliveryRun: number;
  workerConcurrency: number;
  /** CPU time (user + system) the worker process spent per delivery: steadier than rates on a shared machine. Linux only. */
  workerCpuMsPerDelivery: number | undefined;
  /** Deliveries whose signature the receiver checked with standardwebhooks (a sample), and how many failed. */
  verified: number;
  badSignatures: number;
}

export interface WebhookBenchOptions {
  noopJobs?: number;
  deliveries?: number;
  workerConcurrency?: number;
  engines?: ('sqlite' | 'postgres')[];
}

const MASTER_KEY = randomBytes(32);

export async function runWebhookBench(options: WebhookBenchOptions = {}): Promise<{ rows: WebhookBenchRow[]; notes: string[] }> {
  const rows: WebhookBenchRow[] = [];
  const notes: string[] = [];
  for (const engine of options.engines ?? ['sqlite', 'postgres']) {
    const scratch = await openScratch(engine).catch((error: Error) => {
      notes.push(`${engine}: skipped (${error.message})`);
      return undefined;
    });
    if (!scratch) continue;
    try {
      rows.push(await benchEngine(scratch, options));
    } finally {
      await scratch.destroy();
    }
  }
  return { rows, notes };
}

interface Scratch {
  engine: 'SQLite' | 'PostgreSQL';
  config: DatabaseConfig;
  handle: DatabaseHandle;
  dataDir: string;
  destroy(): Promise<void>;
}

async function openScratch(engine: 'sqlite' | 'postgres'): Promise<Scratch> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-bench-webhooks-'));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  const { config, drop } = await scratchDatabase(engine, dataDir).catch((error: unknown) => {
    removeDataDir();
    throw error;
  });
  const handle = openDatabase(config);
  await migrateToLatest(handle);
  return {
    engine: engine === 'sqlite' ? 'SQLite' : 'PostgreSQL',
    config,
    handle,
    dataDir,
    destroy: async () => {
      await handle.destroy();
      await drop?.();
      removeDataDir();
    },
  };
}

/** Where the scratch database lives, and how to drop it when deleting the data directory is not enough. */
async function scratchDatabase(
  engine: 'sqlite' | 'postgres',
  dataDir: string,
): Promise<{ config: DatabaseConfig; drop?: () => Promise<void> }> {
  if (engine === 'sqlite') return { config: { engine: 'sqlite', file: path.join(dataDir, 'bench.sqlite') } };
  const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `ownproof_bench_${randomBase62(8).toLowerCase()}`;
  // A short connect timeout: without a reachable server the PostgreSQL row is skipped at once.
  await withAdminClient(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`), 3000);
  return { config: { engine: 'postgres', url: databaseUrl(serverUrl, name) }, drop: () => dropDatabase(serverUrl, name) };
}

async function benchEngine(scratch: Scratch, options: WebhookBenchOptions): Promise<WebhookBenchRow> {
  const ctx: AppContext = service.createContext({
    config: { ...loadConfig({ DATA_DIR: scratch.dataDir, LOG_LEVEL: 'silent' }), database: scratch.config },
    database: scratch.handle,
    clock: systemClock,
    secretBox: await openSecretBox(scratch.handle.db, { current: MASTER_KEY }, systemClock),
  });
  const noop = await benchNoopJobs(ctx, options.noopJobs ?? 5000);
  const delivery = await benchDeliveries(ctx, scratch, options.deliveries ?? 5000, options.workerConcurrency ?? 64);
  return { engine: scratch.engine, noopJobs: noop.jobs, noopJobsPerSecond: noop.perSecond, ...delivery };
}

/** Enqueues `count` no-op jobs, then times one in-process worker (concurrency 32) draining them. */
async function benchNoopJobs(ctx: AppContext, count: number): Promise<{ jobs: number; perSecond: number }> {
  let done = 0;
  let finish: () => void = () => undefined;
  const allDone = new Promise<void>((resolve) => (finish = resolve));
  const noopJob = defineJob({
    type: 'bench.noop',
    payload: Type.Object({ n: Type.Integer() }),
    maxAttempts: 3,
    timeoutMs: 10_000,
    async run() {
      if (++done === count) finish();
    },
  });
  for (let start = 0; start < count; start += 500) {
    await ctx.db.transaction().execute(async (trx) => {
      for (let n = start; n < Math.min(count, start + 500); n++) await enqueueJob(trx, ctx.clock, noopJob, { n });
    });
  }
  const worker = new Worker(ctx, new JobCatalog([noopJob]), { concurrency: 32, pollIntervalMs: 50 });
  const started = performance.now();
  worker.start();
  await allDone;
  await worker.stop();
  const seconds = (performance.now() - started) / 1000;
  return { jobs: count, perSecond: count / seconds };
}

async function benchDeliveries(ctx: AppContext, scratch: Scratch, count: number, concurrency: number) {
  const receiver = await startReceiver(count);
  const client = await createClient(ctx, { name: 'Bench' });
  const scope = { clientId: client.clientId, mode: 'test' as const };
  const endpoint = await createWebhookEndpoint(ctx, scope, { url: `http://127.0.0.1:${receiver.port}/hook`, enabled_events: ['*'] });
  receiver.secret = endpoint.secret;
  // Events first (each with its fan-out job), so the timed part is the worker alone draining them.
  for (let start = 0; start < count; start += 500) {
    await ctx.db.transaction().execute(async (trx) => {
      for (let n = start; n < Math.min(count, start + 500); n++) {
        await recordEvent({ db: trx, clock: ctx.clock }, scope, 'account_holder.created', {
          id: `ah_bench${n}`,
          object: 'account_holder',
          email: `holder${n}@example.com`,
          name: 'Bench Holder',
          metadata: { plan: 'gold', n: String(n) },
        });
      }
    });
  }
  const worker = await startWorkerProcess(scratch, concurrency);
  receiver.startedAt = performance.now();
  const cpuAtStart = processCpuMs(worker.child.pid);
  try {
    await Promise.race([
      receiver.allReceived,
      new Promise((_, reject) => setTimeout(() => reject(new Error(`deliveries incomplete after 5 minutes`)), 300_000).unref()),
    ]);
    const seconds = (receiver.finishedAt - receiver.startedAt) / 1000;
    const cpuAtEnd = processCpuMs(worker.child.pid);
    return {
      workerCpuMsPerDelivery: cpuAtStart === undefined || cpuAtEnd === undefined ? undefined : (cpuAtEnd - cpuAtStart) / count,
      deliveries: count,
      deliveriesPerSecond: count / seconds,
      jobsPerSecondInDeliveryRun: (2 * count) / seconds,
      workerConcurrency: concurrency,
      verified: receiver.verified,
      badSignatures: receiver.bad,
    };
  } finally {
    await worker.stop('SIGTERM');
    await new Promise((resolve) => receiver.server.close(resolve));
  }
}

/** User + system CPU milliseconds of a process so far, from /proc (Linux, 100 ticks/s); undefined elsewhere. */
function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

interface Receiver {
  server: Server;
  port: number;
  secret: string;
  startedAt: number;
  finishedAt: number;
  verified: number;
  bad: number;
  allReceived: Promise<void>;
}

/** Counts deliveries (each event once: a duplicate would not count) and verifies every 50th signature. */
async function startReceiver(expected: number): Promise<Receiver> {
  const seen = new Set<string>();
  let done: () => void = () => undefined;
  const receiver: Receiver = {
    server: createServer(),
    port: 0,
    secret: '',
    startedAt: performance.now(),
    finishedAt: 0,
    verified: 0,
    bad: 0,
    allReceived: new Promise<void>((resolve) => (done = resolve)),
  };
  receiver.server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      if (!seen.has(id)) {
        seen.add(id);
        if (seen.size % 50 === 1) {
          try {
            new Webhook(receiver.secret).verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>);
            receiver.verified++;
          } catch {
            receiver.bad++;
          }
        }
        if (seen.size === expected) {
          receiver.finishedAt = performance.now();
          done();
        }
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  receiver.port = (receiver.server.address() as AddressInfo).port;
  return receiver;
}

/** `ownproof worker` on the scratch database; resolves once it says it is running. */
async function startWorkerProcess(scratch: Scratch, concurrency: number): Promise<LongRunningProcess> {
  const worker = startNodeProcess([BIN, 'worker'], {
    ...databaseEnv(scratch.config),
    MASTER_KEY: MASTER_KEY.toString('hex'),
    DATA_DIR: scratch.dataDir,
    LOG_LEVEL: 'error',
    WORKER_CONCURRENCY: String(concurrency),
  });
  await worker.waitForLine(/is running/);
  return worker;
}

export function formatWebhookBench({ rows, notes }: { rows: WebhookBenchRow[]; notes: string[] }): string {
  const lines = [
    'Durable jobs and signed webhook deliveries (loopback receiver, one worker process)',
    '| engine | no-op jobs/s (in-process worker, concurrency 32) | signed deliveries/s (`ownproof worker`) | jobs/s in that run | worker CPU ms/delivery | worker concurrency | signatures checked / bad |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.engine} | ${Math.round(r.noopJobsPerSecond)} (${r.noopJobs} jobs) | ${Math.round(r.deliveriesPerSecond)} (${r.deliveries} events) | ` +
        `${Math.round(r.jobsPerSecondInDeliveryRun)} | ${r.workerCpuMsPerDelivery?.toFixed(2) ?? 'n/a'} | ${r.workerConcurrency} | ${r.verified} / ${r.badSignatures} |`,
    ),
    ...notes.map((note) => `\n${note}`),
  ];
  const postgres = rows.find((r) => r.engine === 'PostgreSQL');
  if (postgres) {
    lines.push('', `target ≥ 500 deliveries/s on PostgreSQL: ${postgres.deliveriesPerSecond >= 500 ? 'met' : 'NOT met'}`);
  }
  return lines.join('\n');
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename);
if (isMain) console.log(formatWebhookBench(await runWebhookBench()));
