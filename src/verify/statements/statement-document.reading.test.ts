import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { pdfPages } from '../../../test/support/pdf.js';
import { at, makeStatementWorld, type StatementWorld } from '../../../test/support/statements.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';
import { createChainSources } from '../../bitcoin/chain-for-mode.js';
import { buildSandboxChain } from '../../bitcoin/sandbox/sandbox-chain.js';
import { sandboxWallet } from '../../bitcoin/sandbox/sandbox-wallet.js';
import type { StatementData } from './statement.schemas.js';

/**
 * Issue 23's statement, end to end through the API: the sandbox wallet (proven by a deposit) in
 * Europe/London from 1 June 2025 to 30 September 2026 — summer to summer, across GMT — with two
 * receipts at the end of September too recent to count, valued in EUR (the sandbox price series).
 * Read back page by page as an auditor would; the PDFs are written to artifacts/ to look at.
 */
describe.each(engines())('a London summer-to-summer statement of the sandbox wallet on %s', (engine) => {
  const sim = buildSandboxChain();
  const wallet = sandboxWallet();
  let t: TestApp;
  let world: StatementWorld;
  let deposit: { id: string; txid: string; depositAddress: string };
  let statement: { id: string; summary: { pending_transaction_count: number }; chain: { block_hash: string } };
  let data: StatementData;
  const pdfs: Record<'monthly' | 'custom', string[]> = { monthly: [], custom: [] };
  const period = { open: at('2025-06-01T00:00:00+01:00'), close: at('2026-10-01T00:00:00+01:00') };
  /** Received late in September, buried under 1 and 0 blocks at the tip. */
  const late: string[] = [];

  /** London's offset, from its rules written out: GMT from 01:00 UTC on the last Sunday of October to the last Sunday of March. */
  const londonOffset = (seconds: number) => (seconds >= at('2025-10-26T01:00:00Z') && seconds < at('2026-03-29T01:00:00Z') ? 0 : 60);
  /** `13:00 +01:00`: the time and offset a row must show for a block time. */
  const londonTime = (seconds: number) => {
    const offset = londonOffset(seconds);
    return `${new Date((seconds + offset * 60) * 1000).toISOString().slice(11, 16)} ${offset === 0 ? '+00:00' : '+01:00'}`;
  };
  /**
   * A transaction's row: its first line (date, movement, block, price, amounts), the lines from
   * there to the one with its id (the time, the amounts' EUR values, the id and counterparties),
   * and the line after.
   */
  const rowOf = (pages: string[], txid: string) => {
    const lines = pages.join('\n').split('\n');
    const i = lines.findIndex((line) => line.includes(txid));
    expect(i, `no line holds ${txid}`).toBeGreaterThan(0);
    let first = i - 1;
    while (first > 0 && !/^\s*\d{4}-\d{2}-\d{2}\s/.test(lines[first] as string)) first -= 1;
    return { first: lines[first] as string, second: lines.slice(first + 1, i + 1).join(' '), third: lines[i + 1] as string };
  };

  beforeAll(async () => {
    t = await startTestApp(engine, { seams: { chains: createChainSources({ esploraUrl: undefined, test: sim }) } });
    world = await makeStatementWorld(t, { holder: { email: 'ada@example.com', name: 'Ada Lovelace' } });
    deposit = await world.proveSandboxWalletByDeposit(sim, at('2026-09-20T10:00:00Z'));
    late.push(sim.fund(wallet.address('receive', 0), 2_500_000n, { time: at('2026-09-29T20:15:00Z') }));
    late.push(sim.fund(wallet.address('receive', 1), 700_000n, { time: at('2026-09-30T21:40:00Z') }));
    statement = (await world.completedStatement({
      claim_ids: [deposit.id],
      period,
      timezone: 'Europe/London',
      valuation_currency: 'EUR',
    })) as unknown as typeof statement;
    const row = await t.ctx.db.selectFrom('verify_statements').select('data').where('id', '=', statement.id).executeTakeFirstOrThrow();
    data = JSON.parse(row.data as string) as StatementData;
    for (const format of ['monthly', 'custom'] as const) {
      const res = await t.call(world.client.testKey, {
        method: 'GET',
        url: `/v1/verify/statements/${statement.id}/document/pdf?format=${format}`,
      });
      expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
      pdfs[format] = await pdfPages(res.rawPayload);
      if (engine === 'sqlite') {
        mkdirSync('artifacts', { recursive: true });
        writeFileSync(`artifacts/statement-london-eur-${format}.pdf`, res.rawPayload);
      }
    }
  });
  afterAll(() => t.close());

  const rows = () => data.months.flatMap((m) => m.transactions);

  it.each(['monthly', 'custom'] as const)(
    'shows in the %s layout the right offset on every row, GMT from November to March, and every offset the period crosses',
    (format) => {
      const pages = pdfs[format];
      const text = pages.join('\n').replace(/\s+/g, ' ');
      expect(text).toContain(
        'Times are in Europe/London, each with its offset from UTC: +01:00 to 26 October 2025, 01:00 UTC, then +00:00 to 29 March 2026, 01:00 UTC, then +01:00.',
      );
      expect(rows().length).toBe(10);
      for (const row of [...rows(), ...(data.excluded ?? [])]) {
        const { first, second } = rowOf(pages, row.txid);
        expect(first, row.txid).toContain(row.block_time_local.slice(0, 10));
        expect(second, row.txid).toContain(londonTime(row.block_time));
      }
      // Both clocks are there: the internal transfer of 20 November 2025 is GMT, the receipt of 1 April 2026 BST.
      expect(rowOf(pages, rows().find((r) => r.block_time === at('2025-11-20T08:45:00Z'))!.txid).second).toContain('08:45 +00:00');
      expect(rowOf(pages, rows().find((r) => r.block_time === at('2026-04-01T07:30:00Z'))!.txid).second).toContain('08:30 +01:00');
    },
  );

  it.each(['monthly', 'custom'] as const)(
    'prints in the %s layout every transaction id in full and the hash of the tip block counted to',
    (format) => {
      const text = pdfs[format].join('\n');
      for (const txid of [...rows().map((r) => r.txid), ...late]) expect(text.split(txid).length - 1, txid).toBe(1);
      expect(text.replace(/\s+/g, ' ')).toContain(`Tip block hash ${statement.chain.block_hash}`);
    },
  );

  it.each(['monthly', 'custom'] as const)(
    'names each movement in the %s layout: the internal transfer as sent to self, payments with where they went, the deposit proof',
    (format) => {
      const pages = pdfs[format];
      const named = (time: string) => rowOf(pages, rows().find((r) => r.block_time === at(time))!.txid);
      const transfer = named('2025-11-20T08:45:00Z');
      expect(transfer.first).toContain('Sent to self');
      expect(transfer.second).not.toMatch(/ (to|from) /);
      const payment = named('2025-07-15T09:15:00Z');
      expect(payment.first).toMatch(/Sent\s+\d+\s+[\d,.]+\s+0\.10000000/);
      expect(payment.second).toMatch(/ to tb1q[0-9a-z]{38}\b/);
      expect(named('2025-09-01T18:00:00Z').first).toMatch(/Received\s+\d+\s+[\d,.]+\s+1\.00000000/);
      const proof = rowOf(pages, deposit.txid);
      expect(proof.first).toContain('Deposit proof');
      expect(`${proof.second} ${proof.third}`).toContain(`to ${deposit.depositAddress}`);
    },
  );

  it('lists the two transactions it left out: time with offset, id, amount and why', () => {
    expect(statement.summary.pending_transaction_count).toBe(2);
    const text = pdfs.monthly.join('\n');
    expect(text).toContain('Not counted (2 transactions)');
    const [first, second] = late.map((txid) => rowOf(pdfs.monthly, txid));
    expect(first!.first).toMatch(/2026-09-29\s+Received\s+\d+\s+2\s+\+0\.02500000/);
    expect(first!.second).toContain('21:15 +01:00');
    expect(`${first!.second} ${first!.third}`).toContain(
      `2 confirmations at the tip the statement was computed at (block ${data.chain.height}); 6 needed`,
    );
    expect(second!.first).toMatch(/2026-09-30\s+Received\s+\d+\s+1\s+\+0\.00700000/);
    expect(second!.second).toContain('22:40 +01:00');
  });

  it.each(['monthly', 'custom'] as const)(
    'values the %s statement in EUR: each movement at its hour’s price, figures that add up, and where the prices come from',
    (format) => {
      const valuation = data.valuation;
      if (valuation?.status !== 'valued') throw new Error('the statement was not valued');
      const text = pdfs[format].join('\n').replace(/\s+/g, ' ');
      expect(text).toContain('Valuation in EUR');
      expect(text).toContain(`Prices: ${valuation.source.name} (sandbox), market BTC/EUR, hourly candles.`);
      expect(text).toContain('The close of the hourly candle (UTC) that contains the moment');
      // The summary: opening value + received − sent − fees + revaluation = closing value, each printed.
      const v = valuation.summary;
      const minor = (amount: string) => BigInt(amount.replace('.', ''));
      expect(minor(v.opening_value) + minor(v.value_in) - minor(v.value_out) - minor(v.value_fees) + minor(v.revaluation)).toBe(
        minor(v.closing_value),
      );
      const grouped = (amount: string) => amount.replace(/\B(?=(\d{3})+(?!\d))(?=[\d]*\.)/g, ',');
      for (const figure of [v.opening_value, v.value_in, v.value_out, v.value_fees, v.revaluation, v.closing_value])
        expect(text, figure).toContain(grouped(figure));
      // The payment of 15 July 2025: its price and its value on its row.
      const payment = rows().find((r) => r.block_time === at('2025-07-15T09:15:00Z'))!;
      const row = rowOf(pdfs[format], payment.txid);
      expect(`${row.first} ${row.second}`).toContain(grouped(payment.price as string));
      expect(`${row.first} ${row.second}`).toContain(grouped(payment.value_out as string));
    },
  );
});
