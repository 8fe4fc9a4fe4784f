import { TypeCompiler } from '@sinclair/typebox/compiler';
import { describe, expect, it } from 'vitest';
import { pdfFonts, pdfPages, pdfWordBoxes } from '../../../../test/support/pdf.js';
import { addressClaim, chainOf, outsider, receive, tx, walletClaim } from '../../../../test/support/statement-chain.js';
import { DOCUMENT_HASH, documentOf, renderDocument, VERIFY_URL } from '../../../../test/support/statement-documents.js';
import { SimulatedChain } from '../../../bitcoin/chain/index.js';
import { sandboxWallet } from '../../../bitcoin/sandbox/sandbox-wallet.js';
import { computeStatement } from '../statement-computation.js';
import { StatementDocument } from '../statement-document.schemas.js';
import type { StatementData } from '../statement.schemas.js';

const at = (iso: string) => Date.parse(iso) / 1000;
/** Where the running header and footer are drawn (statement-pdf.ts): above this line, and below `height` minus this. */
const HEADER_RULE = 41;
const FOOTER_RULE = 40;
/** The page margin left and right (pdf-layout.ts). */
const SIDE = 42;

/** Every page: the running header and footer alone in their bands, nothing past the side margins. */
async function expectFramed(pdf: Buffer): Promise<Awaited<ReturnType<typeof pdfWordBoxes>>> {
  const pages = await pdfWordBoxes(pdf);
  const running = ['Bitcoin', 'statement', 'stmt_read', '·', 'Ada', 'Lovelace', '·', 'ada@example.com', 'ownproof'];
  pages.forEach(({ width, height, words }, i) => {
    const footer = [
      'Document',
      'hash',
      '(SHA-256)',
      DOCUMENT_HASH,
      'Check',
      'at',
      VERIFY_URL,
      'Page',
      String(i + 1),
      'of',
      String(pages.length),
    ];
    const inFooter = words.filter((w) => w.yMax > height - FOOTER_RULE).map((w) => w.text);
    const inHeader = words.filter((w) => w.yMin < HEADER_RULE).map((w) => w.text);
    // The bands hold the running header and footer alone: anything else there was drawn over them (or off the page).
    expect(inFooter.sort(), `page ${i + 1} footer`).toEqual(footer.sort());
    expect(inHeader.sort(), `page ${i + 1} header`).toEqual(i === 0 ? [] : [...running].sort());
    expect(
      words.filter((w) => w.xMin < SIDE - 0.5 || w.xMax > width - SIDE + 0.5).map((w) => w.text),
      `page ${i + 1} margins`,
    ).toEqual([]);
  });
  return pages;
}

describe.each(['A4', 'Letter'] as const)('a statement PDF on %s paper', (pageSize) => {
  it('flows a wallet claim’s 600 addresses over the following pages, every one printed once, none over the running header or footer', async () => {
    const wallet = sandboxWallet();
    const addresses = Array.from({ length: 600 }, (_, i) => wallet.address(i % 2 === 0 ? 'receive' : 'change', Math.floor(i / 2)));
    const data = computeStatement({
      period: { open: at('2026-10-01T00:00:00Z'), close: at('2026-11-01T00:00:00Z') },
      timezone: 'UTC',
      claims: [walletClaim('clm_wallet', addresses)],
      transactions: [],
      chain: { tipHeight: 200, tipHash: 'ab'.repeat(32), minConfirmations: 6, heightBefore: () => 150 },
    });
    const pages = await expectFramed(await renderDocument(documentOf(data, { pageSize })));
    expect(pages.length).toBeGreaterThan(2);
    const printed = pages.flatMap(({ words }) => words.map((w) => w.text.replace(/,$/, '')));
    for (const address of addresses)
      expect(
        printed.filter((word) => word === address),
        address,
      ).toHaveLength(1);
  });

  it('wraps a transaction’s full id and its longest counterparties inside the margins, none cut', async () => {
    // Taproot addresses: 62 characters, the longest single-key kind; a payment to five of them lists three and "and 2 more".
    const sim = new SimulatedChain({ seed: 'statement-pdf-margins', network: 'testnet' });
    const taproot = Array.from({ length: 5 }, () => sim.newAddress('p2tr'));
    const history = [
      tx(100, at('2026-10-02T00:00:00Z'), [[taproot[0]!, 900_000n]], [[receive(0), 800_000n]]),
      tx(
        110,
        at('2026-10-03T00:00:00Z'),
        [[receive(0), 800_000n]],
        [...taproot.map((address): [string, bigint] => [address, 100_000n]), [receive(0), 290_000n]],
      ),
    ];
    const data = computeStatement({
      period: { open: at('2026-10-01T00:00:00Z'), close: at('2026-11-01T00:00:00Z') },
      timezone: 'UTC',
      claims: [addressClaim('clm_a', receive(0))],
      transactions: history,
      chain: chainOf(history),
    });
    const pages = await expectFramed(await renderDocument(documentOf(data, { pageSize, format: 'custom' })));
    const printed = pages.flatMap(({ words }) => words.map((w) => w.text.replace(/,$/, '')));
    for (const word of [...history.map((t) => t.txid), ...taproot.slice(0, 3)]) expect(printed, word).toContain(word);
    expect(printed).not.toContain(taproot[3]);
    expect((await pdfPages(await renderDocument(documentOf(data, { pageSize, format: 'custom' })))).join('\n')).toContain('and 2 more');
  });
});

describe('a statement of version 1 (computed before movements were named)', () => {
  /** The same statement as it was stored before version 2: no names, no counterparties, no list of what was left out. */
  function asVersion1(data: StatementData): StatementData {
    const { excluded: _excluded, ...rest } = data;
    return {
      ...rest,
      version: 1,
      months: data.months.map((month) => ({
        ...month,
        transactions: month.transactions.map(({ kind: _k, counterparties: _c, counterparties_more: _m, ...row }) => row),
      })),
    };
  }

  const history = [
    tx(100, at('2026-10-05T12:00:00Z'), [[outsider(0), 10_000n]], [[receive(0), 10_000n]]),
    tx(9_999, at('2026-10-30T12:00:00Z'), [[outsider(0), 5_000n]], [[receive(0), 5_000n]]),
  ];
  const data = computeStatement({
    period: { open: at('2026-10-01T00:00:00Z'), close: at('2026-11-01T00:00:00Z') },
    timezone: 'Europe/London',
    claims: [addressClaim('clm_a', receive(0))],
    transactions: history,
    chain: chainOf(history, 10_000),
  });
  const v1 = asVersion1(data);

  it('is still a statement document, as the check reads one', () => {
    const check = TypeCompiler.Compile(StatementDocument);
    expect(check.Check(documentOf(v1))).toBe(true);
    expect(check.Check(documentOf(data))).toBe(true);
    expect(check.Check(documentOf({ ...data, version: 3 as 2 }))).toBe(false);
  });

  it('still renders: its transactions with full ids and offsets, without the movement column, and the count of what was left out', async () => {
    const pdf = await renderDocument(documentOf(v1));
    const text = (await pdfPages(pdf)).join('\n');
    expect(text).toContain(history[0]!.txid);
    expect(text).toMatch(/2026-10-05\s[\s\S]*13:00 \+01:00/);
    expect(text).not.toContain('Movement');
    expect(text).toContain('Not counted: 1 transaction of the period in blocks with fewer than 6 confirmations');
    expect((await pdfFonts(pdf)).map((f) => f.name.replace(/^[A-Z]{6}\+/, '')).sort()).toEqual([
      'DejaVuSans',
      'DejaVuSans-Bold',
      'DejaVuSansMono',
    ]);
  });
});
