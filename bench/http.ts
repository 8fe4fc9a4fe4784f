import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

export interface HttpBenchRow {
  target: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

interface Target {
  url: string;
  headers: Record<string, string>;
}

const TARGET_SCRIPT = path.join(import.meta.dirname, 'http-target.ts');

async function startTarget(kind: 'bare' | 'ownproof', env: Record<string, string>): Promise<{ child: ChildProcess; target: Target }> {
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
  return { child, target: JSON.parse(announced) as Target };
}

async function load(target: Target, connections: number, seconds: number) {
  return autocannon({ url: target.url, headers: target.headers, connections, duration: seconds, pipelining: 1 });
}

/**
 * Authenticated `GET /v1/connect/account_holders/{id}` on SQLite against a bare Fastify route that
 * returns a constant, measured one after the other in the same run at the same concurrency.
 */
export async function runHttpBench(options: { connections?: number; seconds?: number; logLevel?: string } = {}): Promise<HttpBenchRow[]> {
  const connections = options.connections ?? 50;
  const seconds = options.seconds ?? 10;
  const rows: HttpBenchRow[] = [];
  for (const kind of ['bare', 'ownproof'] as const) {
    const { child, target } = await startTarget(kind, { LOG_LEVEL: options.logLevel ?? 'info' });
    try {
      await load(target, connections, 2); // warm-up: JIT, SQLite page cache
      const result = await load(target, connections, seconds);
      rows.push({
        target: kind === 'bare' ? 'bare Fastify constant route' : 'GET /v1/connect/account_holders/{id} (SQLite, auth)',
        requestsPerSecond: result.requests.average,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        non2xx: result.non2xx,
      });
    } finally {
      child.kill('SIGTERM');
    }
  }
  return rows;
}

export function formatHttpBench(rows: HttpBenchRow[], connections = 50): string {
  const [bare, ours] = rows;
  const lines = [
    `HTTP (${connections} connections, autocannon, loopback)`,
    `| target | req/s | p50 ms | p99 ms | non-2xx |`,
    `|---|---|---|---|---|`,
    ...rows.map((r) => `| ${r.target} | ${Math.round(r.requestsPerSecond)} | ${r.p50Ms} | ${r.p99Ms} | ${r.non2xx} |`),
  ];
  if (bare && ours) {
    const ratio = ours.requestsPerSecond / bare.requestsPerSecond;
    lines.push(
      '',
      `ratio ownproof/bare: ${ratio.toFixed(2)} (target ≥ 0.50: ${ratio >= 0.5 ? 'met' : 'NOT met'}); ` +
        `ownproof p99 ${ours.p99Ms} ms (target < 10 ms: ${ours.p99Ms < 10 ? 'met' : 'NOT met'})`,
    );
  }
  return lines.join('\n');
}
