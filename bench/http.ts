import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { median } from './median.js';

export interface HttpBenchRow {
  target: string;
  /** Median of the rounds. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** Every round's req/s, in order. */
  rounds: number[];
}

export interface Target {
  url: string;
  headers: Record<string, string>;
}

const TARGET_SCRIPT = path.join(import.meta.dirname, 'http-target.ts');

export async function startTarget<T extends Target = Target>(
  kind: 'bare' | 'ownproof' | 'statement-pdf',
  env: Record<string, string>,
): Promise<{ child: ChildProcess; target: T }> {
  const child = spawn(process.execPath, ['--import', 'tsx', TARGET_SCRIPT, kind], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const announced = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line.startsWith('BENCH_TARGET ')) resolve(line.slice('BENCH_TARGET '.length));
    });
    child.once('exit', (code) => reject(new Error(`${kind} target exited with ${code}`)));
  });
  // The server's log lines keep flowing through `lines` and are dropped, as a log shipper would take them.
  return { child, target: JSON.parse(announced) as T };
}

async function load(target: Target, connections: number, seconds: number) {
  return autocannon({ url: target.url, headers: target.headers, connections, duration: seconds, pipelining: 1 });
}

export interface HttpBench {
  rows: HttpBenchRow[];
  /** ownproof/bare of each round, in order. */
  ratios: number[];
  /** The median of `ratios`. */
  ratio: number;
}

/**
 * Authenticated `GET /v1/connect/account_holders/{id}` on SQLite against a bare Fastify route that
 * returns a constant, loaded in turn at the same concurrency. Each round loads a bare server and
 * one of ours, one right after the other (the order alternates between rounds), and yields one
 * ratio; the figure is the median of those ratios. Two sources of noise are handled:
 * - the machine's speed drifts (other work on the host): a ratio of two loads taken seconds apart
 *   is far less exposed to it than a ratio of medians over the whole run;
 * - every process has a speed of its own for its lifetime (JIT decisions, memory layout; identical
 *   processes differed by up to 13 %): `instances` processes of each target are started and the
 *   rounds go through the pairs in turn, so no single process decides the figure.
 */
export async function runHttpBench(
  options: { connections?: number; seconds?: number; instances?: number; rounds?: number; logLevel?: string } = {},
): Promise<HttpBench> {
  const connections = options.connections ?? 50;
  const seconds = options.seconds ?? 3;
  const instances = options.instances ?? 3;
  const rounds = options.rounds ?? 3 * instances;
  const env: Record<string, string> = options.logLevel ? { LOG_LEVEL: options.logLevel } : {};
  const pairs: { child: ChildProcess; target: Target }[][] = [];
  try {
    for (let i = 0; i < instances; i++) {
      const pair: { child: ChildProcess; target: Target }[] = [];
      pairs.push(pair); // before starting, so a failed start still stops its partner
      pair.push(await startTarget('bare', env));
      pair.push(await startTarget('ownproof', env));
    }
    for (const pair of pairs) for (const { target } of pair) await load(target, connections, 2); // warm-up: JIT, SQLite page cache
    const results = [[], []] as autocannon.Result[][];
    for (let round = 0; round < rounds; round++) {
      const pair = pairs[round % instances]!;
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) results[i]!.push(await load(pair[i]!.target, connections, seconds));
    }
    const rows = results.map((runs, i) => {
      const rates = runs.map((r) => r.requests.average);
      const middle = runs.find((r) => r.requests.average === median(rates)) as autocannon.Result;
      return {
        target: i === 0 ? 'bare Fastify constant route' : 'GET /v1/connect/account_holders/{id} (SQLite, auth)',
        requestsPerSecond: median(rates),
        p50Ms: middle.latency.p50,
        p99Ms: Math.max(...runs.map((r) => r.latency.p99)),
        non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
        rounds: rates.map(Math.round),
      };
    });
    const [bare, ours] = results as [autocannon.Result[], autocannon.Result[]];
    const ratios = ours.map((r, round) => r.requests.average / bare[round]!.requests.average);
    return { rows, ratios, ratio: median(ratios) };
  } finally {
    for (const pair of pairs) for (const { child } of pair) child.kill('SIGTERM');
  }
}

export function formatHttpBench({ rows, ratios, ratio }: HttpBench, connections = 50): string {
  const ours = rows[1];
  const lines = [
    `HTTP (${connections} connections, autocannon, loopback; each round loads a pair of processes in turn)`,
    `| target | req/s (median) | rounds | p50 ms | p99 ms (worst round) | non-2xx |`,
    `|---|---|---|---|---|---|`,
    ...rows.map(
      (r) => `| ${r.target} | ${Math.round(r.requestsPerSecond)} | ${r.rounds.join(', ')} | ${r.p50Ms} | ${r.p99Ms} | ${r.non2xx} |`,
    ),
  ];
  if (ours) {
    lines.push(
      '',
      `ratio ownproof/bare per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}`,
      `ratio ownproof/bare (median of rounds): ${ratio.toFixed(2)} (target ≥ 0.50: ${ratio >= 0.5 ? 'met' : 'NOT met'}); ` +
        `ownproof p99 ${ours.p99Ms} ms (target < 10 ms: ${ours.p99Ms < 10 ? 'met' : 'NOT met'})`,
    );
  }
  return lines.join('\n');
}
