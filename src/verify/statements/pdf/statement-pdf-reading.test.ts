import { describe, expect, it } from 'vitest';
import { pdfPages, pdfWordBoxes } from '../../../../test/support/pdf.js';
import { addressClaim, chainOf, change, outsider, receive, tx, walletClaim } from '../../../../test/support/statement-chain.js';
import { documentOf, renderDocument } from '../../../../test/support/statement-documents.js';
import { computeStatement } from '../statement-computation.js';
import type { StatementData } from '../statement.schemas.js';

/**
 * A statement PDF read page by page as an accountant or auditor reads it (issue 23): the offset
 * of every time, every transaction id and the tip's hash in full, each movement named, every
 * transaction left out listed, and no page that is nearly empty.
 */

const at = (iso: string) => Date.parse(iso) / 1000;
/** Running header and footer bands (statement-pdf.ts). */
const HEADER_RULE = 41;
const FOOTER_RULE = 40;

/** All the text of the pages, every run of white space one space: a value wrapped over lines reads as one. */
const flat = (pages: string[]) => pages.join('\n').replace(/\s+/g, ' ');

/** Each transaction of the statement, as data. */
const rowsOf = (data: StatementData) => data.months.flatMap((m) => m.transactions);

/** The text lines of `pages` from the one holding `needle` on: the row it starts and what follows. */
function linesFrom(pages: string[], needle: string, count = 2): string {
  const lines = pages.join('\n').split('\n');
  const index = lines.findIndex((line) => line.includes(needle));
  expect(index, `no line holds ${needle}`).toBeGreaterThanOrEqual(0);
  return lines
    .slice(index, index + count)
    .join(' ')
    .replace(/\s+/g, ' ');
}

describe('a statement PDF states the UTC offset of every time', () => {
  /** One receipt at 12:00 UTC on the 15th of every month from `first` (YYYY-MM), `count` months. */
  function monthly(first: string, count: number) {
    const [year, month] = first.split('-').map(Number) as [number, number];
    return Array.from({ length: count }, (_, i) => {
      const date = new Date(Date.UTC(year, month - 1 + i, 15, 12));
      return tx(100 + i, date.getTime() / 1000, [[outsider(0), 10_000n]], [[receive(0), 10_000n]]);
    });
  }

  it.each([
    {
      zone: 'Europe/London',
      period: { open: at('2025-06-01T00:00:00+01:00'), close: at('2026-10-01T00:00:00+01:00') },
      first: '2025-06',
      months: 16,
      // The 15th at 12:00 UTC: GMT from November to March, BST otherwise.
      local: (month: number) => ([11, 12, 1, 2, 3].includes(month) ? '12:00 +00:00' : '13:00 +01:00'),
      header:
        'Times are in Europe/London, each with its offset from UTC: +01:00 to 26 October 2025, 01:00 UTC, then +00:00 to 29 March 2026, 01:00 UTC, then +01:00.',
    },
    {
      zone: 'America/New_York',
      period: { open: at('2025-06-01T00:00:00-04:00'), close: at('2026-10-01T00:00:00-04:00') },
      first: '2025-06',
      months: 16,
      local: (month: number) => ([11, 12, 1, 2].includes(month) ? '07:00 -05:00' : '08:00 -04:00'),
      header:
        'Times are in America/New_York, each with its offset from UTC: -04:00 to 2 November 2025, 06:00 UTC, then -05:00 to 8 March 2026, 07:00 UTC, then -04:00.',
    },
    {
      // Lord Howe Island's summer is the southern one; its clocks move by half an hour.
      zone: 'Australia/Lord_Howe',
      period: { open: at('2025-12-01T00:00:00+11:00'), close: at('2027-03-01T00:00:00+11:00') },
      first: '2025-12',
      months: 15,
      local: (month: number) => ([4, 5, 6, 7, 8, 9].includes(month) ? '22:30 +10:30' : '23:00 +11:00'),
      header:
        'Times are in Australia/Lord_Howe, each with its offset from UTC: +11:00 to 4 April 2026, 15:00 UTC, then +10:30 to 3 October 2026, 15:30 UTC, then +11:00.',
    },
  ])(
    'in $zone, for a period that begins and ends in summer: every offset it crosses in the header, and each row’s own',
    async ({ zone, period, first, months, local, header }) => {
      const history = monthly(first, months);
      const data = computeStatement({
        period,
        timezone: zone,
        claims: [addressClaim('clm_a', receive(0))],
        transactions: history,
        chain: chainOf(history),
      });
      expect(rowsOf(data)).toHaveLength(months);
      for (const format of ['monthly', 'custom'] as const) {
        const pages = await pdfPages(await renderDocument(documentOf(data, { format })));
        expect(flat(pages), format).toContain(header);
        for (const row of history) {
          const utc = new Date((row.status as { blockTime: number }).blockTime * 1000);
          const date = utc.toISOString().slice(0, 10);
          expect(linesFrom(pages, date), `${format}: ${date}`).toContain(local(utc.getUTCMonth() + 1));
        }
      }
    },
  );
});

describe('a statement PDF names what each transaction is, in full', () => {
  const period = { open: at('2026-01-01T00:00:00Z'), close: at('2026-04-01T00:00:00Z') };
  const history = [
    tx(
      100,
      at('2026-01-05T10:00:00Z'),
      [[outsider(0), 200_000n]],
      [
        [receive(0), 150_000n],
        [outsider(2), 49_000n],
      ],
    ),
    tx(
      110,
      at('2026-01-10T10:00:00Z'),
      [[receive(0), 150_000n]],
      [
        [outsider(3), 60_000n],
        [change(0), 89_000n],
      ],
    ),
    tx(
      120,
      at('2026-02-01T10:00:00Z'),
      [[change(0), 89_000n]],
      [
        [receive(1), 30_000n],
        [change(0), 58_500n],
      ],
    ),
    tx(
      130,
      at('2026-02-10T10:00:00Z'),
      [
        [receive(1), 30_000n],
        [change(0), 58_500n],
      ],
      [[receive(0), 88_000n]],
    ),
    tx(
      140,
      at('2026-03-01T10:00:00Z'),
      [[receive(0), 88_000n]],
      [
        [outsider(5), 700n],
        [receive(0), 86_800n],
      ],
    ),
    // Left out: 2 confirmations at the tip (9,995 + 1 … 9,996), 6 needed.
    tx(9_995, at('2026-03-31T21:00:00Z'), [[outsider(6), 5_000n]], [[receive(0), 4_000n]]),
  ];
  const data = computeStatement({
    period,
    timezone: 'Europe/London',
    claims: [walletClaim('clm_w', [receive(0), receive(1), change(0)])],
    transactions: history,
    depositProofTxids: [history[4]!.txid],
    chain: chainOf(history, 9_996),
  });

  it.each(['monthly', 'custom'] as const)(
    'prints in the %s layout every transaction id in full, once, and the hash of the tip it was computed at',
    async (format) => {
      const pages = await pdfPages(await renderDocument(documentOf(data, { format })));
      const text = pages.join('\n');
      for (const row of history) expect(text.split(row.txid).length - 1, row.txid).toBe(1);
      expect(flat(pages)).toContain(`Tip block hash ${data.chain.block_hash}`);
    },
  );

  it.each(['monthly', 'custom'] as const)(
    'names each movement in the %s layout, with the outside addresses of a payment and a receipt',
    async (format) => {
      const pages = await pdfPages(await renderDocument(documentOf(data, { format })));
      const [received, sent, self, consolidation, deposit] = history;
      expect(linesFrom(pages, '2026-01-05')).toMatch(/Received/);
      expect(linesFrom(pages, received!.txid, 1)).toContain(`from ${outsider(0)}`);
      expect(linesFrom(pages, '2026-01-10')).toMatch(/Sent\b/);
      expect(linesFrom(pages, sent!.txid, 1)).toContain(`to ${outsider(3)}`);
      expect(linesFrom(pages, '2026-02-01')).toContain('Sent to self');
      expect(linesFrom(pages, self!.txid, 1)).not.toMatch(/ (to|from) /);
      expect(linesFrom(pages, '2026-02-10')).toContain('Consolidation');
      expect(linesFrom(pages, consolidation!.txid, 1)).not.toMatch(/ (to|from) /);
      expect(linesFrom(pages, '2026-03-01')).toContain('Deposit proof');
      expect(linesFrom(pages, deposit!.txid, 1)).toContain(`to ${outsider(5)}`);
    },
  );

  it('lists every transaction it left out: id, time with its offset, amount and why', async () => {
    expect(data.summary.pending_transaction_count).toBe(1);
    const pages = await pdfPages(await renderDocument(documentOf(data)));
    const left = history[5]!;
    // 21:00 UTC on 31 March is 22:00 in London (BST).
    const row = linesFrom(pages, '2026-03-31', 3);
    expect(row).toContain('22:00 +01:00');
    expect(row).toContain(left.txid);
    expect(row).toContain('Received');
    expect(row).toContain('0.00004000');
    expect(row).toContain('2 confirmations at the tip the statement was computed at (block 9996); 6 needed');
    expect(flat(pages)).toContain('Not counted (1 transaction)');
  });
});

describe('a statement PDF gives every time its zone, and no page is nearly empty', () => {
  it('writes every time on the document with its zone: the period, the computation, the issue, the months and the rows', async () => {
    // Bounds that are not at local midnight, so the period and the month titles carry times.
    const period = { open: at('2026-10-01T00:00:00Z'), close: at('2026-11-20T00:00:00Z') };
    const history = [tx(100, at('2026-10-05T12:00:00Z'), [[outsider(0), 10_000n]], [[receive(0), 10_000n]])];
    const data = computeStatement({
      period,
      timezone: 'America/New_York',
      claims: [addressClaim('clm_a', receive(0))],
      transactions: history,
      chain: chainOf(history),
    });
    for (const format of ['monthly', 'custom'] as const) {
      const text = flat(await pdfPages(await renderDocument(documentOf(data, { format, issuedAt: at('2026-11-27T14:56:00Z') }))));
      expect(text).toContain('computed 27 November 2026, 09:56 UTC-05:00');
      expect(text).toContain('Issued 27 November 2026, 09:56 UTC-05:00');
      // Any hh:mm on the page is followed by its zone: UTC, UTC±hh:mm or ±hh:mm (an offset itself is not a time).
      const times = [...text.matchAll(/(?<![\d:+-])(\d{1,2}:\d{2})(?::\d{2})?(?!\d)(.{0,10})/g)];
      expect(times.length, format).toBeGreaterThan(5);
      for (const [match, , after] of times) expect(after, `${format}: “${match}”`).toMatch(/^,? ?(UTC[+-]\d{2}:\d{2}|UTC|[+-]\d{2}:\d{2})/);
    }
  });

  /**
   * Pages whose body (between the running header and footer) is less than a fifth of the space:
   * a page a reader turns to for almost nothing. Transactions of 1 to 2 pages’ worth, so every
   * place a table can end on a page is tried.
   */
  it.each(['custom', 'monthly'] as const)(
    'leaves no page of the %s layout nearly empty, however many transactions there are',
    async (format) => {
      const period = { open: at('2026-01-01T00:00:00Z'), close: at('2026-04-01T00:00:00Z') };
      const all = Array.from({ length: 50 }, (_, i) =>
        tx(100 + i, at('2026-01-02T00:00:00Z') + i * 3600, [[outsider(0), 10_000n]], [[receive(0), 10_000n]]),
      );
      const nearlyEmpty: string[] = [];
      for (let count = 1; count <= all.length; count += 1) {
        const history = all.slice(0, count);
        const data = computeStatement({
          period,
          timezone: 'UTC',
          claims: [addressClaim('clm_a', receive(0))],
          transactions: history,
          chain: chainOf(history),
        });
        const pages = await pdfWordBoxes(await renderDocument(documentOf(data, { format })));
        pages.forEach(({ height, words }, i) => {
          const body = words.filter((w) => w.yMin >= HEADER_RULE && w.yMax <= height - FOOTER_RULE);
          const used = Math.max(...body.map((w) => w.yMax)) - Math.min(...body.map((w) => w.yMin));
          if (used < (height - HEADER_RULE - FOOTER_RULE) / 5)
            nearlyEmpty.push(`${count} transactions: page ${i + 1} of ${pages.length} (${Math.round(used)} pt used)`);
        });
      }
      expect(nearlyEmpty).toEqual([]);
    },
    120_000,
  );
});
