/**
 * Statement documents as the document service builds them, around computed data, and their PDFs
 * rendered without a server: for tests of what a statement PDF shows.
 */
import { sandboxWallet } from '../../src/bitcoin/sandbox/sandbox-wallet.js';
import type { ClaimStatement } from '../../src/verify/claims/claim.schemas.js';
import type { StatementDocument, StatementPdfFormat } from '../../src/verify/statements/statement-document.schemas.js';
import { renderStatementPdf } from '../../src/verify/statements/pdf/statement-pdf.js';
import type { StatementData } from '../../src/verify/statements/statement.schemas.js';

export const DOCUMENT_HASH = 'cd'.repeat(32);
export const VERIFY_URL = 'https://proofs.example.com/verify';
const at = (iso: string) => Date.parse(iso) / 1000;

/** The claim statement of each claim section of `data`, as its receipt would sign it. */
function claimOf(section: StatementData['claims'][number]): ClaimStatement {
  const subject: ClaimStatement['subject'] =
    section.subject.type === 'address'
      ? section.subject
      : { type: 'wallet', descriptor: section.subject.descriptor, addresses_derived_to: { receive: 20, change: 20 } };
  return {
    id: section.claim_id,
    account_holder_id: 'ah_1',
    subject,
    address_type: 'p2wpkh',
    network: section.network,
    label: null,
    proof: {
      format: 'bip322-simple',
      message: 'challenge',
      address: section.addresses[0] ?? sandboxWallet().address('receive', 0),
      signature: 'c2ln',
    },
    verified_at: at('2025-01-02T00:00:00Z'),
    chain: { height: 100, block_hash: DOCUMENT_HASH },
    livemode: false,
  };
}

/** The document of `data` in `format`, issued and computed at `issuedAt`. */
export function documentOf(
  data: StatementData,
  options: { format?: StatementPdfFormat; pageSize?: 'A4' | 'Letter'; issuedAt?: number } = {},
): StatementDocument {
  const issuedAt = options.issuedAt ?? data.period.close + 3600;
  return {
    iss: 'https://proofs.example.com',
    document: { format: options.format ?? 'monthly', page_size: options.pageSize ?? 'A4', issued_at: issuedAt },
    statement: {
      id: 'stmt_read',
      livemode: false,
      requested_by: 'Acme Lending',
      account_holder: { id: 'ah_1', email: 'ada@example.com', name: 'Ada Lovelace', external_ref: null },
      created_at: issuedAt,
      completed_at: issuedAt,
    },
    claims: data.claims.map((section) => ({ claim: claimOf(section), receipt: 'receipt' })),
    data,
  };
}

/** The PDF of a document, as the document service renders it (not sealed). */
export function renderDocument(document: StatementDocument): Promise<Buffer> {
  return renderStatementPdf({ document, jws: Buffer.from('a.b.c'), kid: 'key_1', documentHash: DOCUMENT_HASH, verifyUrl: VERIFY_URL });
}
