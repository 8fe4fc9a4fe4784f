/**
 * One measurement of `bench/statement-pdf.ts`, in a process of its own so its peak memory is its
 * own, run compiled (statement-pdf.ts makes dist.bench/statement-pdf-run.js, which imports dist/):
 * `node dist.bench/statement-pdf-run.js ours|ours-valued|bare|bare-plain input.json [prices.sqlite]`:
 * - `ours`: what a first download costs, from the chain's transactions in memory: the statement
 *   computed, its document built, hashed and signed, the PDF rendered and sealed (both layouts' code, the
 *   monthly layout).
 * - `ours-valued`: the same, valued in EUR: the prices looked up as the statement job does, from a
 *   SQLite candle cache the parent filled (test mode's sandbox series), and applied.
 * - `bare`, `bare-plain`: the same transaction rows (computed and formatted first, untimed) written
 *   as a table with nothing but pdfkit's own `doc.text`, the same fonts and page size (below).
 * Prints `BENCH_RESULT {ms, peakMiB, startMiB, bytes, pages}`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { JWK } from 'jose';
import PDFDocument from 'pdfkit';
import { exchangeThrottles } from '../src/connect/providers/ccxt-instance.js';
import { loadCcxt } from '../src/connect/providers/registry.js';
import { systemClock } from '../src/platform/clock.js';
import { openDatabase } from '../src/platform/db/database.js';
import { createPriceSources } from '../src/prices/price-sources.js';
import { lookUpPrices, type PricedMoment, type PriceSourceDescription } from '../src/prices/price.service.js';
import { valuationMoments, valueStatement } from '../src/verify/statements/statement-valuation.js';
import type { StatementDocument } from '../src/verify/statements/statement-document.schemas.js';
import { statementFile } from '../src/verify/statements/statement-document.service.js';
// Loaded before the clock starts, as in a server that issued a PDF before.
import '../src/verify/statements/pdf/statement-pdf.js';
import { btc, btcOrBlank, MOVEMENT_WORDS, rowTime } from '../src/verify/statements/pdf/statement-words.js';
import { bigintReviver, computeBenchStatement, type StatementBenchInput, type StatementBenchResult } from './statement-pdf-input.js';

/** Page objects in a PDF as pdfkit writes it (no object streams). */
const pageCount = (pdf: Buffer) => pdf.toString('latin1').match(/\/Type \/Page\b(?!s)/g)?.length ?? 0;

const FONT = (name: string) => new URL(`../src/verify/statements/pdf/fonts/${name}`, import.meta.url);

/** A price look-up as the statement job makes it, against a database whose candle cache holds every hour needed (filled by the parent before this process starts). */
type PriceLookUp = (moments: readonly number[]) => Promise<{ source: PriceSourceDescription; prices: PricedMoment[] }>;

function cachedPrices(file: string): PriceLookUp {
  const handle = openDatabase({ engine: 'sqlite', file });
  const deps = {
    db: handle.db,
    clock: systemClock,
    prices: createPriceSources({ configured: undefined, load: loadCcxt, throttles: exchangeThrottles() }),
  };
  return async (moments) => {
    const lookup = await lookUpPrices(deps, { mode: 'test', currency: 'EUR', instants: moments });
    if (!lookup.ok) throw new Error(`no prices: ${lookup.reason}`);
    return lookup;
  };
}

async function ours(
  input: StatementBenchInput,
  prices?: PriceLookUp,
): Promise<{ bytes: number; pages: number; computeMs: number; pricesMs?: number }> {
  const started = performance.now();
  let data = computeBenchStatement(input);
  const computeMs = performance.now() - started;
  let pricesMs: number | undefined;
  if (prices) {
    const asked = performance.now();
    const lookup = await prices(valuationMoments(data));
    pricesMs = performance.now() - asked;
    data = valueStatement(data, 'EUR', lookup.source, lookup.prices);
  }
  const document: StatementDocument = {
    iss: 'https://ownproof.example.com',
    document: { format: 'monthly', page_size: 'A4', issued_at: 1_790_000_000 },
    statement: {
      id: 'stmt_bench0000000000000000',
      livemode: true,
      requested_by: 'Bench Lending',
      account_holder: { id: 'ah_bench000000000000000000', email: 'bench@example.com', name: 'Bench Holder', external_ref: null },
      created_at: 1_790_000_000,
      completed_at: 1_790_000_000,
    },
    claims: [
      {
        claim: {
          id: 'clm_bench',
          account_holder_id: 'ah_bench000000000000000000',
          subject: { type: 'address', address: input.address },
          address_type: 'p2wpkh',
          network: 'testnet',
          label: null,
          proof: { format: 'bip322-simple', message: 'bench', address: input.address, signature: 'AA==' },
          verified_at: 1_790_000_000,
          chain: { height: 1, block_hash: '00'.repeat(32) },
          livemode: true,
        },
        receipt: 'eyJ.bench.receipt',
      },
    ],
    data,
  };
  const { privateKey } = generateKeyPairSync('ed25519');
  const key = { kid: 'rk_bench', privateJwk: privateKey.export({ format: 'jwk' }) as JWK };
  // What a first download issues: the signed document, the PDF, its file signature.
  const { pdf } = await statementFile(key, document, 'https://ownproof.example.com/verify');
  return { bytes: pdf.length, pages: pageCount(pdf), computeMs, ...(pricesMs === undefined ? {} : { pricesMs }) };
}

/** A transaction as the statement prints it: the cells of its first line, and under them its time and its detail (full id, counterparties). */
interface BareRow {
  cells: string[];
  time: string;
  detail: string;
}

/**
 * The transaction rows as the statement prints them, written the plain pdfkit way, a new page when
 * one is full: `aligned` writes each cell with `doc.text(cell, x, y, {width, align})` (how pdfkit
 * aligns a column of amounts), `plain` with `doc.text(cell, x, y)` alone (its cheapest text call;
 * every cell left-aligned). The second line of a row (time, then the id and counterparties in
 * monospace, as one string) is written the same way in both.
 */
async function bare(rows: BareRow[], variant: 'aligned' | 'plain'): Promise<{ bytes: number; pages: number }> {
  const doc = new PDFDocument({ size: 'A4', margin: 42, bufferPages: true, font: null as unknown as string });
  doc.registerFont('regular', readFileSync(FONT('DejaVuSans.ttf')));
  doc.registerFont('bold', readFileSync(FONT('DejaVuSans-Bold.ttf')));
  doc.registerFont('mono', readFileSync(FONT('DejaVuSansMono.ttf')));
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => doc.on('end', resolve));
  const widths = [52, 60, 30, 64, 64, 56, 70];
  const titles = ['Date and time', 'Movement', 'Block', 'In (BTC)', 'Out (BTC)', 'Fee (BTC)', 'Balance (BTC)'];
  let y = 58;
  const line = (cells: string[], font: string) => {
    doc.font(font).fontSize(7.5);
    let x = 42;
    cells.forEach((cell, i) => {
      if (variant === 'aligned') doc.text(cell, x, y, { width: widths[i], align: i < 2 ? 'left' : 'right', lineBreak: false });
      else doc.text(cell, x, y, { lineBreak: false });
      x += (widths[i] as number) + 9;
    });
    y += 9;
  };
  line(titles, 'bold');
  y += 4.5;
  for (const row of rows) {
    if (y > doc.page.height - 80) {
      doc.addPage();
      y = 58;
      line(titles, 'bold');
      y += 4.5;
    }
    line(row.cells, 'regular');
    doc.font('regular').fontSize(7.5).text(row.time, 42, y, { lineBreak: false });
    doc
      .font('mono')
      .fontSize(6.5)
      .text(row.detail, 103, y + 0.5, { lineBreak: false });
    y += 13.5;
  }
  doc.end();
  await ended;
  const pdf = Buffer.concat(chunks);
  return { bytes: pdf.length, pages: pageCount(pdf) };
}

const [mode, file, pricesFile] = process.argv.slice(2);
const input = JSON.parse(readFileSync(file as string, 'utf8'), bigintReviver) as StatementBenchInput;
let rows: BareRow[] = [];
// The candle cache as a first statement over these months left it (the parent filled it): the timed look-up reads it.
const prices = mode === 'ours-valued' ? cachedPrices(pricesFile as string) : undefined;
if (mode === 'bare' || mode === 'bare-plain') {
  // The same rows, made before the clock starts: the bare table is pdfkit's share alone.
  rows = computeBenchStatement(input).months.flatMap((m) =>
    m.transactions.map((tx) => {
      const { date, time } = rowTime(tx.block_time_local, false);
      const counterparties = tx.counterparties?.length ? ` ${tx.kind === 'received' ? 'from' : 'to'} ${tx.counterparties.join(', ')}` : '';
      return {
        cells: [
          date,
          tx.kind ? MOVEMENT_WORDS[tx.kind] : '',
          String(tx.block_height),
          btcOrBlank(tx.amount_in),
          btcOrBlank(tx.amount_out),
          btcOrBlank(tx.fee),
          btc(tx.balance),
        ],
        time,
        detail: `${tx.txid}${counterparties}`,
      };
    }),
  );
}
const startMiB = process.memoryUsage().rss / 2 ** 20;
const started = performance.now();
const made =
  mode === 'ours' || mode === 'ours-valued' ? await ours(input, prices) : await bare(rows, mode === 'bare-plain' ? 'plain' : 'aligned');
const ms = performance.now() - started;
const result: StatementBenchResult = { ms, peakMiB: process.resourceUsage().maxRSS / 1024, startMiB, ...made };
process.stdout.write(`BENCH_RESULT ${JSON.stringify(result)}\n`);
