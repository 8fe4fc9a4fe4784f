/**
 * Statement PDFs (issue 13), measured in one run:
 * - a 10,000-transaction statement, from the chain's transactions to the signed PDF (computation,
 *   document, hash, JWS, monthly layout), time and peak memory of its own process, against a bare
 *   pdfkit table of the same rows in processes of their own, rounds interleaved;
 * - stored PDF downloads per second (authenticated, SQLite, the real server) against the
 *   authenticated GET of the HTTP section, loaded in turn on one server process by one client.
 */
import { spawn } from 'node:child_process';
import { build } from 'esbuild';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { SimulatedChain } from '../src/bitcoin/chain/index.js';
import { exchangeThrottles } from '../src/connect/providers/ccxt-instance.js';
import { loadCcxt } from '../src/connect/providers/registry.js';
import { systemClock } from '../src/platform/clock.js';
import { openDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { createPriceSources } from '../src/prices/price-sources.js';
import { lookUpPrices } from '../src/prices/price.service.js';
import { boundaryHeights } from '../src/verify/statements/statement-generation.js';
import { valuationMoments } from '../src/verify/statements/statement-valuation.js';
import { buildDist } from '../scripts/build.js';
import { startTarget, type Target } from './http.js';
import { median } from './median.js';
import { bigintReplacer, computeBenchStatement, type StatementBenchInput, type StatementBenchResult } from './statement-pdf-input.js';

const ROOT = path.resolve(import.meta.dirname, '..');
/** The measuring process's script, compiled (compileRunScript). */
const RUN_SCRIPT = path.join(ROOT, 'dist.bench', 'statement-pdf-run.js');
const at = (iso: string) => Date.parse(iso) / 1000;
const VARIANTS = ['ours', 'ours-valued', 'ours-valued-node-defaults', 'bare', 'bare-plain'] as const;
type Variant = (typeof VARIANTS)[number];

/**
 * The Node options the service's processes start with (`npm start`'s, docs/operations.md, "Memory":
 * a young generation of Node 20's size): every measuring process gets them, so its peak memory is
 * the service's; `ours-valued-node-defaults` runs without them, to show what they change.
 */
const SERVICE_NODE_OPTIONS: string[] = (
  JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
).scripts.start
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));

/** 10,000 receipts to one address, a thousand a month from February to November 2025, in Europe/Berlin months. */
async function makeInput(transactions: number): Promise<StatementBenchInput> {
  const sim = new SimulatedChain({ seed: 'bench-statement', network: 'testnet', startTime: at('2025-01-01T00:00:00Z') });
  const address = sim.newAddress('p2wpkh');
  const perMonth = Math.ceil(transactions / 10);
  for (let month = 0, left = transactions; left > 0; month++, left -= perMonth) {
    sim.fundMany(address, Math.min(perMonth, left), 1_000n + BigInt(month), {
      time: at(`2025-${String(month + 2).padStart(2, '0')}-03T00:00:00Z`),
      perBlock: 50,
    });
  }
  sim.mine({ count: 6 });
  const period = { open: at('2025-01-15T00:00:00Z'), close: at('2025-12-01T00:00:00Z') };
  const timezone = 'Europe/Berlin';
  const heights = [...(await boundaryHeights(sim, period, timezone))];
  const tip = await sim.getTip();
  const history = (await sim.getAddressHistory([address], { includeMempool: false })).get(address) ?? [];
  return { period, timezone, address, transactions: history, tip: { height: tip.height, hash: tip.hash }, heights };
}

/**
 * The measuring process runs JavaScript, as the product does, so its time and peak memory are the
 * service's and not tsx's (a loader compiling every module in the process): dist/ is built from the
 * sources, and statement-pdf-run.ts with the bench's own helpers becomes one file in dist.bench/
 * whose imports of ../src/ are imports of ../dist/, the product's compiled modules.
 */
async function compileRunScript(): Promise<void> {
  await buildDist();
  await build({
    entryPoints: [path.join(import.meta.dirname, 'statement-pdf-run.ts')],
    outfile: RUN_SCRIPT,
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node24',
    logLevel: 'warning',
    plugins: [
      {
        name: 'product-from-dist',
        setup(plugin) {
          plugin.onResolve({ filter: /^(\.\.\/)+src\// }, (args) => {
            const source = path.resolve(args.resolveDir, args.path);
            return { path: `../dist/${path.relative(path.join(ROOT, 'src'), source)}`, external: true };
          });
        },
      },
    ],
  });
}

/**
 * A database whose candle cache holds every price the input's statement needs in EUR (test mode's
 * sandbox series), as a first statement over those months leaves it: the valued run only reads it.
 */
async function fillPriceCache(input: StatementBenchInput, file: string): Promise<void> {
  const handle = openDatabase({ engine: 'sqlite', file });
  try {
    await migrateToLatest(handle);
    const data = computeBenchStatement(input);
    const prices = createPriceSources({ configured: undefined, load: loadCcxt, throttles: exchangeThrottles() });
    const lookup = await lookUpPrices(
      { db: handle.db, clock: systemClock, prices },
      { mode: 'test', currency: 'EUR', instants: valuationMoments(data) },
    );
    if (!lookup.ok) throw new Error(`no prices for the bench: ${lookup.reason}`);
  } finally {
    await handle.destroy();
  }
}

function runOnce(variant: Variant, inputFile: string, pricesFile: string): Promise<StatementBenchResult> {
  const [options, mode] = variant === 'ours-valued-node-defaults' ? [[], 'ours-valued'] : [SERVICE_NODE_OPTIONS, variant];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...options, RUN_SCRIPT, mode, inputFile, pricesFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout });
    let result: StatementBenchResult | undefined;
    lines.on('line', (line) => {
      if (line.startsWith('BENCH_RESULT ')) result = JSON.parse(line.slice('BENCH_RESULT '.length)) as StatementBenchResult;
    });
    child.once('exit', (code) => (result ? resolve(result) : reject(new Error(`${variant} run exited with ${code} and no result`))));
  });
}

export interface StatementPdfBench {
  transactions: number;
  /** Every round's result per variant, in order. */
  runs: Record<Variant, StatementBenchResult[]>;
  /** ours ÷ bare (pdfkit aligned cells) and ours ÷ bare-plain, per round; valued ÷ ours (the valuation's cost). */
  ratios: { aligned: number[]; plain: number[]; valued: number[] };
  downloads: { pdfBytes: number; pdfPerSecond: number[]; getPerSecond: number[]; ratios: number[] } | undefined;
}

export async function runStatementPdfBench(
  options: { transactions?: number; rounds?: number; loadRounds?: number; seconds?: number; connections?: number } = {},
): Promise<StatementPdfBench> {
  const transactions = options.transactions ?? 10_000;
  const rounds = options.rounds ?? 3;
  const dir = mkdtempSync(path.join(tmpdir(), 'ownproof-bench-statement-'));
  const runs = Object.fromEntries(VARIANTS.map((variant) => [variant, []])) as unknown as Record<Variant, StatementBenchResult[]>;
  try {
    const inputFile = path.join(dir, 'input.json');
    const pricesFile = path.join(dir, 'prices.sqlite');
    const input = await makeInput(transactions);
    writeFileSync(inputFile, JSON.stringify(input, bigintReplacer));
    await fillPriceCache(input, pricesFile);
    await compileRunScript();
    for (let round = 0; round < rounds; round++) {
      // The order turns each round, so no variant always runs on a machine just warmed (or loaded) by another.
      for (let i = 0; i < VARIANTS.length; i++) {
        const variant = VARIANTS[(i + round) % VARIANTS.length] as Variant;
        runs[variant].push(await runOnce(variant, inputFile, pricesFile));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const ratio = (of: Variant) => runs.ours.map((run, i) => run.ms / (runs[of][i] as StatementBenchResult).ms);
  const valued = runs['ours-valued'].map((run, i) => run.ms / (runs.ours[i] as StatementBenchResult).ms);
  return {
    transactions,
    runs,
    ratios: { aligned: ratio('bare'), plain: ratio('bare-plain'), valued },
    downloads: await runDownloadBench(options),
  };
}

/**
 * A closed-loop load of `connections` keep-alive connections with Node's own HTTP client (llhttp,
 * bodies discarded), for `seconds`; requests completed per second. Not autocannon: it appends every
 * body chunk to a string, and decoding a PDF's binary bytes as UTF-8 made autocannon itself the
 * limit (measured: 1,300/s for the PDF's bytes against 4,900/s for as many constant bytes from the
 * same route; our server sat idle). The same client drives both targets, so their ratio is fair.
 */
async function loadWithNode(target: Target, connections: number, seconds: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const once = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(target.url, { agent, headers: target.headers }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`${target.url} answered ${res.statusCode}`));
          res.on('data', () => {});
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        await once();
        done += 1;
      }
    }),
  );
  agent.destroy();
  return done / ((performance.now() - started) / 1000);
}

/** Stored-PDF downloads against the authenticated GET on one server process, loaded in turn (order alternating), one ratio per round. */
async function runDownloadBench(options: { loadRounds?: number; seconds?: number; connections?: number }) {
  const connections = options.connections ?? 50;
  const seconds = options.seconds ?? 3;
  const rounds = options.loadRounds ?? 6;
  const { child, target } = await startTarget<Target & { pdfUrl: string; pdfBytes: number }>('statement-pdf', {});
  try {
    const pdf: Target = { url: target.pdfUrl, headers: target.headers };
    for (const t of [target, pdf]) await loadWithNode(t, connections, 2); // warm-up
    const rates: [number[], number[]] = [[], []];
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) rates[i]?.push(await loadWithNode(i === 0 ? target : pdf, connections, seconds));
    }
    const [getPerSecond, pdfPerSecond] = rates;
    return {
      pdfBytes: target.pdfBytes,
      pdfPerSecond,
      getPerSecond,
      ratios: pdfPerSecond.map((rate, i) => rate / (getPerSecond[i] as number)),
    };
  } finally {
    child.kill('SIGTERM');
  }
}

const fmt = (values: number[], digits = 0) => values.map((v) => v.toFixed(digits)).join(', ');

export function formatStatementPdfBench(bench: StatementPdfBench): string {
  const { runs, ratios, downloads } = bench;
  const row = (label: string, variant: Variant) => {
    const r = runs[variant];
    return `| ${label} | ${Math.round(median(r.map((x) => x.ms)))} (${fmt(r.map((x) => x.ms))}) | ${Math.round(median(r.map((x) => x.peakMiB)))} (${fmt(r.map((x) => x.peakMiB))}) | ${Math.round(median(r.map((x) => x.startMiB)))} | ${r[0]?.pages} | ${Math.round((r[0]?.bytes ?? 0) / 1024)} |`;
  };
  const ours = runs.ours;
  const valuedRuns = runs['ours-valued'];
  const ms = median(ours.map((r) => r.ms));
  const valuedMs = median(valuedRuns.map((r) => r.ms));
  const peak = Math.max(...ours.map((r) => r.peakMiB), ...valuedRuns.map((r) => r.peakMiB));
  const lines = [
    `Statement of ${bench.transactions.toLocaleString('en')} transactions, each variant in a process of its own (node ${SERVICE_NODE_OPTIONS.join(' ')}, as \`npm start\`), ${ours.length} rounds (order turning)`,
    '| variant | ms, median (rounds) | peak RSS MiB, median (rounds) | RSS before, MiB | pages | KiB |',
    '|---|---|---|---|---|---|',
    row('compute + signed PDF (ours, monthly)', 'ours'),
    row('the same, valued in EUR (prices from the candle cache)', 'ours-valued'),
    row('the same valued, at Node’s default heap sizes (without those options)', 'ours-valued-node-defaults'),
    row('bare pdfkit table, aligned cells (`text` with width/align)', 'bare'),
    row('bare pdfkit table, plain cells (`text` alone)', 'bare-plain'),
    '',
    `ours ÷ bare aligned per round: ${fmt(ratios.aligned, 2)} (median ${median(ratios.aligned).toFixed(2)}); ours ÷ bare plain: ${fmt(ratios.plain, 2)} (median ${median(ratios.plain).toFixed(2)})`,
    `of which computing the statement: ${fmt(ours.map((r) => r.computeMs ?? 0))} ms per round; the rest is the document, its JWS and the PDF`,
    `valued ÷ ours per round: ${fmt(ratios.valued, 2)} (median ${median(ratios.valued).toFixed(2)}); of the valued runs, looking the prices up from the cache: ${fmt(valuedRuns.map((r) => r.pricesMs ?? 0))} ms (${fmt(
      valuedRuns.map((r) => (100 * (r.pricesMs ?? 0)) / r.ms),
      1,
    )} % of the run)`,
    `targets: ≤ 3 s with valuation (${valuedMs <= 3000 ? 'met' : 'NOT met'}: median ${Math.round(valuedMs)} ms; without ${Math.round(ms)} ms), ≤ 300 MiB peak (${peak <= 300 ? 'met' : 'NOT met'}: worst ${Math.round(peak)} MiB; at Node’s defaults ${Math.round(Math.max(...runs['ours-valued-node-defaults'].map((r) => r.peakMiB)))} MiB)`,
  ];
  if (downloads) {
    lines.push(
      '',
      `Stored PDF downloads (${Math.round(downloads.pdfBytes / 1024)} KiB, 100 transactions) against the authenticated GET of the HTTP section, one server process, SQLite, 50 keep-alive connections of Node's HTTP client`,
      `| target | req/s median | rounds |`,
      `|---|---|---|`,
      `| GET /v1/connect/account_holders/{id} | ${Math.round(median(downloads.getPerSecond))} | ${fmt(downloads.getPerSecond)} |`,
      `| GET /v1/verify/statements/{id}/document/pdf (stored) | ${Math.round(median(downloads.pdfPerSecond))} | ${fmt(downloads.pdfPerSecond)} |`,
      '',
      `PDF ÷ GET per round: ${fmt(downloads.ratios, 2)} (median ${median(downloads.ratios).toFixed(2)})`,
    );
  }
  return lines.join('\n');
}
