/**
 * Start-up cost of the `ownproof` binary, each command as a ratio to a bare `node -e 0` timed in
 * the same round: `--help`, `verify-claim` on a real receipt (one file, offline), and `serve` on
 * SQLite until `/healthz` answers (an existing DATA_DIR: a restart, not the first start's
 * migrations and bootstrap client). Each round runs the four once, in an order that rotates from
 * round to round, so drift of the machine's speed hits them alike; the figure is the median of the
 * per-round ratios, with their spread (lowest–highest).
 *
 *   npm run bench -- startup        (node --import tsx bench/startup.ts [--rounds=9] [--other-bin=PATH])
 *
 * `--other-bin` adds `PATH --help` to the rounds: another checkout's binary (an older release) on
 * the same machine in the same run.
 *
 * dist/ is built first (scripts/build.ts), so the binary runs the sources being measured.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDist } from '../scripts/build.js';
import { freePort } from '../test/support/free-port.js';
import { makeReceipts } from './claim-receipts.js';
import { median } from './median.js';

const BIN = fileURLToPath(new URL('../bin/ownproof.js', import.meta.url));

/** One measured start: a command line, and what counts as started. */
interface Subject {
  name: string;
  /** Milliseconds from spawn to the process's exit (or, for a server, to its first healthy answer). */
  time(): Promise<number>;
}

export interface StartupRow {
  name: string;
  /** Median wall time in milliseconds. */
  medianMs: number;
  /** Median of the per-round ratios to `node -e 0` (1 for the baseline itself). */
  ratio: number;
  /** Lowest and highest per-round ratio. */
  spread: [number, number];
}

export interface StartupBench {
  rounds: number;
  node: string;
  rows: StartupRow[];
}

const env = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...extra });

/** Milliseconds until `node ...args` exits; rejects unless it exits 0. */
function timeToExit(args: string[], extraEnv: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env: env(extraEnv), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const elapsed = performance.now() - started;
      if (code === 0) resolve(elapsed);
      else reject(new Error(`node ${args.join(' ')} exited with ${code}: ${stderr.slice(-500)}`));
    });
  });
}

/** Milliseconds from spawning `ownproof serve` until GET /healthz answers 200; then stops it (not timed). */
async function timeToHealthy(dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: env({ DATA_DIR: dataDir, PORT: String(port) }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}: ${stderr.slice(-500)}`);
      const healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (healthy) return performance.now() - started;
      if (performance.now() - started > 60_000) throw new Error(`serve did not answer /healthz within 60 s: ${stderr.slice(-500)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

export async function runStartupBench(options: { rounds?: number; otherBin?: string } = {}): Promise<StartupBench> {
  const rounds = options.rounds ?? 9;
  await buildDist();
  const dir = mkdtempSync(path.join(tmpdir(), 'ownproof-bench-startup-'));
  try {
    const { receipts, jwks } = await makeReceipts(1);
    const jwksFile = path.join(dir, 'jwks.json');
    const receiptFile = path.join(dir, 'receipt.jws');
    writeFileSync(jwksFile, JSON.stringify(jwks));
    writeFileSync(receiptFile, `${receipts[0]}\n`);
    const dataDir = path.join(dir, 'data');
    // The first start (schema, master key, bootstrap client) happens here, untimed.
    await timeToHealthy(dataDir);

    const subjects: Subject[] = [
      { name: 'node -e 0', time: () => timeToExit(['-e', '0']) },
      { name: 'ownproof --help', time: () => timeToExit([BIN, '--help']) },
      { name: 'ownproof verify-claim <receipt>', time: () => timeToExit([BIN, 'verify-claim', receiptFile, '--jwks', jwksFile]) },
      { name: 'ownproof serve → /healthz (SQLite)', time: () => timeToHealthy(dataDir) },
    ];
    const otherBin = options.otherBin;
    if (otherBin) subjects.push({ name: '--other-bin --help', time: () => timeToExit([otherBin, '--help']) });
    // A warm-up of each, untimed: the file system cache, not start-up, would differ otherwise.
    for (const subject of subjects) await subject.time();
    const times: number[][] = subjects.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < subjects.length; k++) {
        const index = (k + round) % subjects.length;
        times[index]!.push(await subjects[index]!.time());
      }
    }
    const baseline = times[0]!;
    const rows = subjects.map((subject, index): StartupRow => {
      const ratios = times[index]!.map((ms, round) => ms / baseline[round]!);
      return {
        name: subject.name,
        medianMs: median(times[index]!),
        ratio: median(ratios),
        spread: [Math.min(...ratios), Math.max(...ratios)],
      };
    });
    return { rounds, node: process.version, rows };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatStartupBench(result: StartupBench): string {
  const fixed = (n: number) => n.toFixed(1);
  return [
    `start-up on Node ${result.node}, ${result.rounds} interleaved rounds: median wall time, and median (lowest–highest) of each round's ratio to node -e 0`,
    ...result.rows.map(
      (row) =>
        `  ${row.name.padEnd(40)} ${String(Math.round(row.medianMs)).padStart(5)} ms   ${fixed(row.ratio).padStart(5)}×  (${fixed(row.spread[0])}–${fixed(row.spread[1])})`,
    ),
  ].join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const option = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const rounds = option('rounds');
  const otherBin = option('other-bin');
  console.log(
    formatStartupBench(
      await runStartupBench({ ...(rounds ? { rounds: Number(rounds) } : {}), ...(otherBin ? { otherBin: path.resolve(otherBin) } : {}) }),
    ),
  );
}
