import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { pdfInfo, pdfPages } from '../../../test/support/pdf.js';
import { at, makeStatementWorld } from '../../../test/support/statements.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';
import { createChainSources } from '../../bitcoin/chain-for-mode.js';
import { buildSandboxChain } from '../../bitcoin/sandbox/sandbox-chain.js';
import { btc } from './pdf/statement-words.js';

/** A transaction's first line: its date, what it is, its block. */
const ROW = /^\s*\d{4}-\d{2}-\d{2}\s+Received\s+\d+\s/;
/** Its second line: its time with its zone, its full id. */
const DETAIL = /^\s*\d{2}:\d{2} UTC\s+([0-9a-f]{64})(?:\s|$)/;
const COLUMN_TITLES = /Date and time\s+Movement\s+Block\s+In \(BTC\)\s+Out \(BTC\)\s+Fee \(BTC\)\s+Balance \(BTC\)/;

/**
 * A statement of hundreds of transactions over two months, laid out on A4 and on Letter: its
 * tables run over many pages, and every page says which it is and carries the column titles of
 * the table it continues.
 */
describe.each(engines().flatMap((engine) => (['A4', 'Letter'] as const).map((size) => [engine, size] as const)))(
  'long statement PDFs on %s, %s paper',
  (engine, pageSize) => {
    const sim = buildSandboxChain();
    let t: TestApp;
    let txids: string[];
    let statement: { id: string; summary: { closing_balance: string; transaction_count: number } };
    let key: string;

    beforeAll(async () => {
      t = await startTestApp(engine, {
        seams: { chains: createChainSources({ esploraUrl: undefined, test: sim }) },
        config: { STATEMENT_PAGE_SIZE: pageSize.toLowerCase() },
      });
      const world = await makeStatementWorld(t);
      key = world.client.testKey;
      const claim = await world.proveAddress();
      txids = [
        ...sim.fundMany(claim.address, 250, 1_000n, { time: at('2026-10-10T00:00:00Z'), perBlock: 25 }),
        ...sim.fundMany(claim.address, 150, 2_000n, { time: at('2026-11-02T00:00:00Z'), perBlock: 25 }),
      ];
      sim.mine({ time: at('2026-11-05T00:00:00Z'), count: 6 });
      statement = (await world.completedStatement({
        claim_ids: [claim.id],
        period: { open: at('2026-10-01T00:00:00Z'), close: at('2026-11-20T00:00:00Z') },
        timezone: 'UTC',
      })) as typeof statement;
      expect(statement.summary.transaction_count).toBe(400);
    });
    afterAll(() => t.close());

    it.each(['monthly', 'custom'])(
      'breaks the %s tables across pages with the titles repeated, every transaction once, and page x of y on each page',
      async (format) => {
        const res = await t.call(key, { method: 'GET', url: `/v1/verify/statements/${statement.id}/document/pdf?format=${format}` });
        expect(res.statusCode).toBe(200);
        const info = await pdfInfo(res.rawPayload);
        expect(info['Page size']).toMatch(pageSize === 'A4' ? /^595\.\d+ x 841\.\d+ pts \(A4\)/ : /^612 x 792 pts \(letter\)/);
        const pages = await pdfPages(res.rawPayload);
        expect(pages.length).toBe(Number(info.Pages));
        expect(pages.length).toBeGreaterThan(6);
        const rows: string[] = [];
        const ids: string[] = [];
        pages.forEach((page, i) => {
          expect(page, `page ${i + 1}`).toContain(`Page ${i + 1} of ${pages.length}`);
          const lines = page.split('\n');
          const pageRows = lines.filter((line) => ROW.test(line));
          rows.push(...pageRows);
          // A row's two lines stay on one page: under each first line, its time and full id.
          lines.forEach((line, l) => {
            if (ROW.test(line)) ids.push(DETAIL.exec(lines[l + 1] ?? '')?.[1] ?? `no id under “${line.trim()}”`);
          });
          if (pageRows.length === 0) return;
          // Above the first transaction of every page: the column titles of its table, and its caption
          // marked "continued" unless the table starts on this page (with its opening balance).
          const above = lines
            .slice(
              0,
              lines.findIndex((line) => ROW.test(line)),
            )
            .join('\n');
          expect(above, `page ${i + 1}`).toMatch(COLUMN_TITLES);
          if (i > 0 && !above.includes('Opening balance')) expect(above, `page ${i + 1}`).toMatch(/\(continued\)/);
        });
        expect(rows).toHaveLength(400);
        expect(ids).toEqual(txids);
        // Running balances: the last row shows the closing balance.
        expect(rows.at(-1)?.trim().endsWith(btc(statement.summary.closing_balance))).toBe(true);
        const text = pages.join('\n');
        if (format === 'monthly') {
          expect(text).toMatch(/October 2026 \(continued\)/);
          expect(text).toContain('Totals · 250 transactions');
          expect(text).toContain('Totals · 150 transactions');
        } else {
          expect(text).toMatch(/Transactions \(continued\)/);
          expect(text).toContain('Totals · 400 transactions');
        }
      },
    );
  },
);
