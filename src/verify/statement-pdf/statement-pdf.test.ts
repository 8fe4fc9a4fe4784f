import { describe, expect, it } from 'vitest';
import { pdfWordBoxes } from '../../../test/support/pdf.js';
import { sandboxWallet } from '../../bitcoin/sandbox/sandbox-wallet.js';
import { computeStatement } from '../statement-computation.js';
import type { StatementDocument } from '../statement-document.schemas.js';
import { renderStatementPdf } from './statement-pdf.js';

const at = (iso: string) => Date.parse(iso) / 1000;
const HASH = 'ab'.repeat(32);
const VERIFY_URL = 'https://proofs.example.com/verify';
/** Where the running header and footer are drawn (statement-pdf.ts): above this line, and below `height` minus this. */
const HEADER_RULE = 41;
const FOOTER_RULE = 40;
/** The page margin left and right (pdf-layout.ts). */
const SIDE = 42;

/** A statement of one wallet claim whose scan read `count` addresses, as the document service would build it. */
function walletStatement(pageSize: 'A4' | 'Letter', count: number): { document: StatementDocument; addresses: string[] } {
  const wallet = sandboxWallet();
  const addresses = Array.from({ length: count }, (_, i) => wallet.address(i % 2 === 0 ? 'receive' : 'change', Math.floor(i / 2)));
  const period = { open: at('2026-10-01T00:00:00Z'), close: at('2026-11-01T00:00:00Z') };
  const claim: StatementDocument['claims'][number]['claim'] = {
    id: 'clm_wallet',
    account_holder_id: 'ah_1',
    subject: { type: 'wallet', descriptor: wallet.descriptor, addresses_derived_to: { receive: count / 2 + 20, change: count / 2 + 20 } },
    address_type: 'p2wpkh',
    network: 'testnet',
    label: null,
    proof: { format: 'bip322-simple', message: 'challenge', address: addresses[0] as string, signature: 'c2ln', signed_path: '0/0' },
    verified_at: at('2026-09-01T00:00:00Z'),
    chain: { height: 100, block_hash: HASH },
    livemode: false,
  };
  const data = computeStatement({
    period,
    timezone: 'UTC',
    claims: [{ claim_id: claim.id, subject: claim.subject, network: claim.network, addresses }],
    transactions: [],
    chain: { tipHeight: 200, tipHash: HASH, minConfirmations: 6, heightBefore: () => 150 },
  });
  const document: StatementDocument = {
    iss: 'https://proofs.example.com',
    document: { format: 'monthly', page_size: pageSize, issued_at: at('2026-11-02T00:00:00Z') },
    statement: {
      id: 'stmt_many',
      livemode: false,
      requested_by: 'Acme Lending',
      account_holder: { id: 'ah_1', email: 'ada@example.com', name: 'Ada Lovelace', external_ref: null },
      created_at: at('2026-11-02T00:00:00Z'),
      completed_at: at('2026-11-02T00:00:00Z'),
    },
    claims: [{ claim, receipt: 'receipt' }],
    data,
  };
  return { document, addresses };
}

describe.each(['A4', 'Letter'] as const)('a statement PDF on %s paper', (pageSize) => {
  it('flows a wallet claim’s 600 addresses over the following pages, every one printed once, none over the running header or footer', async () => {
    const { document, addresses } = walletStatement(pageSize, 600);
    const pages = await pdfWordBoxes(await renderStatementPdf({ document, jws: 'a.b.c', kid: 'key_1', documentHash: HASH, verifyUrl: VERIFY_URL }));
    expect(pages.length).toBeGreaterThan(2);
    const running = ['Bitcoin', 'statement', 'stmt_many', '·', 'Ada', 'Lovelace', '·', 'ada@example.com', 'ownproof'];
    pages.forEach(({ width, height, words }, i) => {
      const footer = ['Document', 'hash', '(SHA-256)', HASH, 'Check', 'at', VERIFY_URL, 'Page', String(i + 1), 'of', String(pages.length)];
      const inFooter = words.filter((w) => w.yMax > height - FOOTER_RULE).map((w) => w.text);
      const inHeader = words.filter((w) => w.yMin < HEADER_RULE).map((w) => w.text);
      // The bands hold the running header and footer alone: anything else there was drawn over them (or off the page).
      expect(inFooter.sort(), `page ${i + 1} footer`).toEqual(footer.sort());
      expect(inHeader.sort(), `page ${i + 1} header`).toEqual(i === 0 ? [] : [...running].sort());
      expect(words.filter((w) => w.xMin < SIDE - 0.5 || w.xMax > width - SIDE + 0.5).map((w) => w.text), `page ${i + 1} margins`).toEqual([]);
    });
    const printed = pages.flatMap(({ words }) => words.map((w) => w.text.replace(/,$/, '')));
    for (const address of addresses) expect(printed.filter((word) => word === address), address).toHaveLength(1);
  });
});
