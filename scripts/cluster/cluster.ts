import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  BIN,
  runOwnproof,
  startNodeProcess,
  startServe,
  type LongRunningProcess,
  type ServingProcess,
} from '../../test/support/cli-process.js';
import { freePort } from '../../test/support/free-port.js';
import { TEST_MASTER_KEY } from '../../test/support/master-key.js';
import { startSmtpSink, type ReceivedMail } from '../../test/support/smtp-sink.js';
import { TestReceiver, type ReceivedWebhook } from '../../test/support/webhooks.js';

/** The PostgreSQL server the cluster runs on (`CLUSTER_POSTGRES_URL`); a database of its own is made there and dropped after. */
const POSTGRES_URL = process.env.CLUSTER_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ClusterOptions {
  serves: number;
  workers: number;
}

/** A load balancer in front of some of the cluster's servers. */
export interface Balancer {
  url: string;
  stop(): Promise<void>;
}

export interface Cluster {
  /** HAProxy in front of every server: the URL clients use. */
  url: string;
  databaseUrl: string;
  serves: ServingProcess[];
  /** The workers running now, by the id each printed (a killed one is replaced). */
  workers: Map<string, LongRunningProcess>;
  /** Every webhook the receiver got, across its restarts. */
  webhooks(): ReceivedWebhook[];
  /** Every message the SMTP sink got, across its restarts. */
  mail(): ReceivedMail[];
  receiverUrl: string;
  /** Kills server `index` with SIGKILL and starts a new one on its port. */
  restartServe(index: number, signal?: NodeJS.Signals): Promise<void>;
  /** Kills worker `id` with SIGKILL and starts another in its place. */
  replaceWorker(id: string): Promise<string>;
  /** Takes the SMTP sink down for `ms`, then up again on its port. */
  bounceSmtp(ms: number): Promise<void>;
  /** Takes the webhook receiver down for `ms`, then up again on its port. */
  bounceReceiver(ms: number): Promise<void>;
  /** A second balancer in front of the first `count` servers only (the scaling runs). */
  balance(count: number): Promise<Balancer>;
  /** A new test client, made by `ownproof client create` as an operator would. */
  createClient(name: string): Promise<{ clientId: string; testKey: string }>;
  stop(): Promise<void>;
}

/**
 * Starts the cluster: a fresh PostgreSQL database, a loopback webhook receiver and SMTP sink,
 * `serves` × `ownproof serve --no-worker` and `workers` × `ownproof worker` on that database, and
 * HAProxy (Debian's package) balancing the servers round robin with health checks on /readyz.
 * Everything it started stops in `stop()`, also when starting fails half way.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse())
      await stop().catch((error: unknown) => console.error(`[cluster] stopping: ${String(error)}`));
  };
  try {
    const database = `ownproof_cluster_${process.pid}_${Date.now()}`;
    await admin(`CREATE DATABASE ${database}`);
    stops.push(() => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    const databaseUrl = Object.assign(new URL(POSTGRES_URL), { pathname: `/${database}` }).toString();

    const dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-cluster-'));
    stops.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    // The receiver and the sink are restarted by the fault runs: what each instance got is kept.
    const webhooks: ReceivedWebhook[][] = [];
    const mail: ReceivedMail[][] = [];
    let receiver = await TestReceiver.start();
    webhooks.push(receiver.received);
    stops.push(() => receiver.close());
    let smtp = await startSmtpSink();
    mail.push(smtp.received);
    stops.push(() => smtp.close());

    const frontPort = await freePort();
    const publicUrl = `http://127.0.0.1:${frontPort}`;
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl,
      MASTER_KEY: TEST_MASTER_KEY,
      DATA_DIR: dataDir,
      PUBLIC_BASE_URL: publicUrl,
      SMTP_URL: smtp.url(),
      TRUST_PROXY: '127.0.0.1',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      // The throughput runs measure the servers, not one client's allowance; the per-session poll
      // limit (2/s, not configurable) still holds and is what the limit check measures.
      RATE_LIMIT_PER_SECOND: '100000',
      LOG_LEVEL: 'warn',
    };
    const migrated = await runOwnproof(['migrate'], env);
    if (migrated.code !== 0) throw new Error(`ownproof migrate failed: ${migrated.stderr}`);

    // Every server and worker ever started, so that stop() (or a failed start) ends each of them.
    const started: LongRunningProcess[] = [];
    stops.push(() => Promise.all(started.map((child) => child.stop())));
    const serves: ServingProcess[] = [];
    const startServer = async (port = '0') => {
      const serve = await startServe({ ...env, PORT: port }, ['--no-worker']);
      started.push(serve.process);
      return serve;
    };
    const workers = new Map<string, LongRunningProcess>();
    const startWorker = async () => {
      const worker = startNodeProcess([BIN, 'worker'], env);
      started.push(worker);
      const id = /worker (\S+) is running/.exec(await worker.waitForLine(/is running/, 45_000))?.[1] as string;
      workers.set(id, worker);
      return id;
    };
    // One at a time: started together on a busy 2-core machine, each takes several times as long.
    for (let i = 0; i < options.serves; i++) serves.push(await startServer());
    for (let i = 0; i < options.workers; i++) await startWorker();

    const balance = async (count: number, port?: number): Promise<Balancer> => {
      const front = port ?? (await freePort());
      const haproxy = await startHaproxy(
        front,
        serves.slice(0, count).map((s) => new URL(s.url).port),
        dataDir,
      );
      // Stopped with the cluster too, should its user fail before stopping it (stopping twice is harmless).
      stops.push(haproxy);
      return { url: `http://127.0.0.1:${front}`, stop: haproxy };
    };
    await balance(serves.length, frontPort);

    return {
      url: publicUrl,
      databaseUrl,
      serves,
      workers,
      webhooks: () => webhooks.flat(),
      mail: () => mail.flat(),
      receiverUrl: receiver.url,
      async restartServe(index, signal = 'SIGKILL') {
        const old = serves[index]!;
        await old.process.stop(signal);
        serves[index] = await startServer(new URL(old.url).port);
      },
      async replaceWorker(id) {
        await workers.get(id)?.stop('SIGKILL');
        workers.delete(id);
        return startWorker();
      },
      async bounceSmtp(ms) {
        await smtp.close();
        await sleep(ms);
        smtp = await startSmtpSink({ port: smtp.port });
        mail.push(smtp.received);
      },
      async bounceReceiver(ms) {
        const port = receiver.port;
        await receiver.close();
        await sleep(ms);
        receiver = await TestReceiver.start(undefined, { port });
        webhooks.push(receiver.received);
      },
      balance,
      async createClient(name) {
        const created = await runOwnproof(['client', 'create', '--name', name, '--json'], env);
        if (created.code !== 0) throw new Error(`ownproof client create failed: ${created.stderr}`);
        const { client_id, test_key } = JSON.parse(created.stdout) as { client_id: string; test_key: string };
        return { clientId: client_id, testKey: test_key };
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Runs one statement on the PostgreSQL server's maintenance database. */
async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * HAProxy on 127.0.0.1:`port` in front of the servers on `backends` (their ports), in the
 * foreground (-db) so it stops with us. Resolves once it answers /readyz through a server.
 */
async function startHaproxy(port: number, backends: string[], dir: string): Promise<() => Promise<void>> {
  const file = path.join(dir, `haproxy-${port}.cfg`);
  writeFileSync(
    file,
    [
      'global',
      '  maxconn 4096',
      'defaults',
      '  mode http',
      '  timeout connect 5s',
      '  timeout client 120s',
      '  timeout server 120s',
      '  option forwardfor',
      `frontend front`,
      `  bind 127.0.0.1:${port}`,
      '  default_backend serves',
      'backend serves',
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      // A request a server dropped (killed, restarting) goes to another server: safe for reads, and
      // for POSTs that carry an Idempotency-Key (the server answers a repeat with the first answer);
      // other POSTs (the hosted pages' forms) are not sent twice.
      '  retries 3',
      '  option redispatch 1',
      '  retry-on conn-failure empty-response response-timeout',
      '  http-request disable-l7-retry if METH_POST !{ req.hdr(idempotency-key) -m found }',
      ...backends.map((backend, i) => `  server serve${i + 1} 127.0.0.1:${backend} check inter 1s fall 2 rise 1`),
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return stop;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`HAProxy did not come up on port ${port}: ${stderr.slice(-2000)}`);
    }
    await sleep(200);
  }
}
