/**
 * `npm run cluster [-- --seconds 60 --serves 2 --workers 2 --lanes 6 --no-scaling --faults --restart-postgres]`: HAProxy in
 * front of `serves` × `ownproof serve` and `workers` × `ownproof worker` on one fresh PostgreSQL
 * database, a mixed load of lender journeys for `seconds`, then the checks (checks.ts), the
 * cross-process poll and per-address limits, and read throughput through 1, 2 and 4 servers. With `--faults` the
 * load runs through the faults of faults.ts (`--restart-postgres` adds a restart of the machine's
 * PostgreSQL, which every other user of it feels too) and the same checks must hold. Prints a report and
 * exits 0 only if every check held. Everything it started is stopped, also on failure or Ctrl-C.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { buildDist } from '../build.js';
import { startCluster, type Cluster } from './cluster.js';
import { checkRun, readClusterState, waitForDrain, type Check } from './checks.js';
import { runFaults, type FaultRecord } from './faults.js';
import { Recorder, runLane, type RouteSummary } from './load.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    serves: { type: 'string', default: '2' },
    workers: { type: 'string', default: '2' },
    lanes: { type: 'string', default: '6' },
    'no-scaling': { type: 'boolean', default: false },
    faults: { type: 'boolean', default: false },
    'restart-postgres': { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const lanes = Number(values.lanes);
const serves = Math.max(Number(values.serves), values['no-scaling'] ? 0 : 4);
const log = (line: string) => console.log(`[cluster ${new Date().toISOString().slice(11, 19)}] ${line}`);

// The processes run the binary, which runs dist/: built afresh from the sources first.
await buildDist();
log(`starting ${serves} servers, ${values.workers} workers, HAProxy, a webhook receiver and an SMTP sink on a fresh PostgreSQL database`);
const cluster = await startCluster({ serves, workers: Number(values.workers) });
let interrupted = false;
process.once('SIGINT', () => {
  interrupted = true;
  void cluster.stop().then(() => process.exit(130));
});

let ok = false;
try {
  ok = await run(cluster);
} catch (error) {
  console.error(`[cluster] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  if (!interrupted) await cluster.stop();
}
process.exit(ok ? 0 : 1);

async function run(cluster: Cluster): Promise<boolean> {
  // The load goes through a balancer in front of the first `--serves` servers; the scaling runs use the others too.
  const front = await cluster.balance(Number(values.serves));
  const recorder = new Recorder();
  const clients = await Promise.all(Array.from({ length: lanes }, (_, i) => cluster.createClient(`Lender ${i + 1}`)));
  for (const client of clients) {
    const response = await recorder.fetch(`${front.url}/v1/webhook_endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: cluster.receiverUrl, enabled_events: ['*'] }),
    });
    if (!response.ok) throw new Error(`creating a webhook endpoint: ${response.status} ${await response.text()}`);
  }

  log(`mixed load: ${lanes} lender journeys at once for ${seconds} s through HAProxy → ${values.serves} servers`);
  const started = performance.now();
  const until = Date.now() + seconds * 1000;
  const lanesDone = Promise.all(
    clients.map((client, lane) =>
      runLane({ baseUrl: front.url, apiKey: client.testKey, clientId: client.clientId, until, recorder, lane }),
    ),
  );
  const faults: FaultRecord[] = values.faults
    ? await runFaults(cluster, Date.now(), seconds, { postgres: values['restart-postgres'] })
    : [];
  const results = await lanesDone;
  const elapsed = (performance.now() - started) / 1000;
  log(
    `load done in ${elapsed.toFixed(1)} s: ${results.reduce((n, r) => n + r.journeys, 0)} journeys; waiting for the workers to drain the queue`,
  );
  const drained = await waitForDrain(cluster.databaseUrl, 120_000);
  // Deliveries of the last events may still be in flight after their job row is written.
  await sleep(1_000);

  const state = await readClusterState(cluster.databaseUrl, Date.now());
  const checks: Check[] = [
    { name: 'the queue drained within 120 s', failures: drained ? [] : ['jobs were still due or running'] },
    ...checkRun(state, {
      statements: results.flatMap((r) => r.statements),
      accessRequests: results.flatMap((r) => r.accessRequests),
      serverErrors: recorder.count(500, 599),
      networkErrors: [...recorder.networkErrors.values()].reduce((a, b) => a + b, 0),
      laneErrors: results.flatMap((r) => r.errors),
      webhooks: cluster.webhooks(),
      mail: cluster.mail(),
    }),
    await pollLimitCheck(front.url, clients[0]!.testKey),
    await ipLimitCheck(front.url),
  ];
  await front.stop();

  printRoutes(recorder.summary(elapsed), elapsed);
  if (faults.length > 0) {
    console.log('\nFaults during the load:');
    for (const f of faults) console.log(`  ${f.at.toFixed(1)} s  ${f.fault}: ${f.detail}`);
  }
  if (!values['no-scaling']) await printScaling(cluster, clients[0]!.testKey);

  console.log('\nChecks:');
  for (const check of checks) {
    console.log(`  ${check.failures.length === 0 ? 'ok  ' : 'FAIL'} ${check.name}`);
    for (const failure of check.failures.slice(0, 10)) console.log(`         ${failure}`);
    if (check.failures.length > 10) console.log(`         … and ${check.failures.length - 10} more`);
  }
  return checks.every((c) => c.failures.length === 0);
}

/**
 * The per-session poll limit (2 per second) holds across servers: 12 reads of one session sent at
 * once through the balancer (so to every server) get at most 2 answers inside one window. Each
 * server keeping its own count would let 2 per server through.
 */
async function pollLimitCheck(baseUrl: string, apiKey: string): Promise<Check> {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const holder = (await (
    await fetch(`${baseUrl}/v1/connect/account_holders`, { method: 'POST', headers, body: JSON.stringify({ email: 'limit@example.com' }) })
  ).json()) as { id: string };
  const session = (await (
    await fetch(`${baseUrl}/v1/connect/sessions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ account_holder: holder.id, permissions: ['balances'] }),
    })
  ).json()) as { id: string };
  for (let attempt = 0; attempt < 5; attempt++) {
    await sleep(1_100); // a fresh window
    const started = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: 12 }, () => fetch(`${baseUrl}/v1/connect/sessions/${session.id}`, { headers }).then((r) => r.status)),
    );
    if (performance.now() - started > 900) continue; // the burst spread over two windows: try again
    const allowed = statuses.filter((s) => s === 200).length;
    const others = statuses.filter((s) => s !== 200 && s !== 429);
    return {
      name: 'the per-session poll limit holds across servers (12 reads at once: 2 allowed)',
      failures: [...(allowed === 2 ? [] : [`${allowed} of 12 reads were allowed`]), ...others.map((s) => `a read answered ${s}`)],
    };
  }
  return { name: 'the per-session poll limit holds across servers', failures: ['no burst of 12 reads fitted in one second in 5 tries'] };
}

/**
 * The public routes' limit per IP address (60 a minute) holds across servers: 120 JWKS requests
 * from this one address sent at once through the balancer get exactly 60 answers. Each server
 * keeping its own count would let 60 per server through. Nothing in the load calls those routes.
 */
async function ipLimitCheck(baseUrl: string): Promise<Check> {
  const statuses = await Promise.all(Array.from({ length: 120 }, () => fetch(`${baseUrl}/.well-known/jwks.json`).then((r) => r.status)));
  const allowed = statuses.filter((s) => s === 200).length;
  const others = statuses.filter((s) => s !== 200 && s !== 429);
  return {
    name: 'the public routes’ per-address limit holds across servers (120 JWKS requests at once: 60 allowed)',
    failures: [...(allowed === 60 ? [] : [`${allowed} of 120 requests were allowed`]), ...others.map((s) => `a request answered ${s}`)],
  };
}

function printRoutes(routes: RouteSummary[], elapsed: number): void {
  console.log(`\nPer endpoint over the ${elapsed.toFixed(0)} s of mixed load (every attempt, retries included):`);
  console.log('  | endpoint | requests | req/s | p50 ms | p99 ms | statuses |');
  console.log('  |---|---:|---:|---:|---:|---|');
  for (const r of routes) {
    const statuses = Object.entries(r.statuses)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    console.log(
      `  | ${r.route} | ${r.requests} | ${r.perSecond.toFixed(1)} | ${r.p50Ms.toFixed(0)} | ${r.p99Ms.toFixed(0)} | ${statuses} |`,
    );
  }
}

/**
 * Read throughput (authenticated `GET /v1/connect/account_holders?limit=10`, 32 connections, 10 s)
 * through a balancer in front of 1, 2 and 4 servers, in that order, twice (1 2 4 4 2 1), so a
 * drift of the machine's speed shows as a difference between the two passes.
 */
async function printScaling(cluster: Cluster, apiKey: string): Promise<void> {
  const rates = new Map<number, number[]>();
  for (const count of [1, 2, 4, 4, 2, 1]) {
    const balancer = await cluster.balance(count);
    try {
      const result = await autocannon({
        url: `${balancer.url}/v1/connect/account_holders?limit=10`,
        headers: { authorization: `Bearer ${apiKey}` },
        connections: 32,
        duration: 10,
      });
      if (result.non2xx > 0 || result.errors > 0)
        log(`scaling run with ${count} servers: ${result.non2xx} non-2xx, ${result.errors} errors`);
      rates.set(count, [...(rates.get(count) ?? []), result.requests.average]);
    } finally {
      await balancer.stop();
    }
  }
  const base = rates.get(1)!;
  console.log('\nRead throughput through HAProxy by number of servers (2 workers idle, same database; two passes):');
  console.log('  | servers | req/s pass 1 | req/s pass 2 | × one server (per pass) |');
  console.log('  |---:|---:|---:|---|');
  for (const [count, [first, second]] of rates) {
    console.log(
      `  | ${count} | ${first!.toFixed(0)} | ${second!.toFixed(0)} | ${(first! / base[0]!).toFixed(2)}, ${(second! / base[1]!).toFixed(2)} |`,
    );
  }
}
