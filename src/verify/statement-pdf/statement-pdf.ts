/**
 * A statement as a PDF an accountant, lender or auditor reads like a bank statement: who and what
 * it covers, the summary, and the transactions (per month, or for the whole period), with the
 * signed data attached and its document hash printed so anyone can check it (docs/verify.md,
 * "Statement PDFs"). Pure apart from the fonts it reads once: the same input gives the same bytes.
 */
import encodeQR from 'qr';
import { PROOF_FORMAT_WORDS } from '../claim.schemas.js';
import { attachmentName, type StatementDocument } from '../statement-document.schemas.js';
import type { StatementTotals, StatementTransaction } from '../statement.schemas.js';
import { GRAY, grayColor, PdfLayout, type Column, type Row } from './pdf-layout.js';
import { btc, btcOrBlank, dateInWords, dateTimeInWords, holderText, localMinute, momentInWords, monthTitle, offsetAt, periodInWords, shortTxid } from './statement-words.js';

export interface StatementPdfInput {
  /** What the document states: the payload of `jws`. */
  document: StatementDocument;
  /** The signed data, attached to the PDF as it is. */
  jws: string;
  /** The signing key's id (the JWS `kid`), printed so a reader knows which published key to check with. */
  kid: string;
  /** SHA-256 of the JWS payload, lowercase hex. */
  documentHash: string;
  /** Where anyone checks a statement document (`PUBLIC_BASE_URL/verify`). */
  verifyUrl: string;
}

/** The URL the QR code holds: the check page with the document hash filled in. */
const verifyLink = (verifyUrl: string, documentHash: string) => `${verifyUrl}?document_hash=${documentHash}`;

const TRANSACTION_COLUMNS: Column[] = [
  { title: 'Date and time', align: 'left' },
  { title: 'Transaction', align: 'left' },
  { title: 'Block', align: 'right' },
  { title: 'In (BTC)', align: 'right' },
  { title: 'Out (BTC)', align: 'right' },
  { title: 'Fee (BTC)', align: 'right' },
  { title: 'Balance (BTC)', align: 'right' },
];

const transactionRow = (tx: StatementTransaction): Row => ({
  cells: [localMinute(tx.block_time_local), shortTxid(tx.txid), String(tx.block_height), btcOrBlank(tx.amount_in), btcOrBlank(tx.amount_out), btcOrBlank(tx.fee), btc(tx.balance)],
});

const plural = (count: number, noun: string) => `${count.toLocaleString('en')} ${noun}${count === 1 ? '' : 's'}`;

/** A span's transactions between its opening balance and its totals, as a bank statement lists them. */
function transactionRows(totals: StatementTotals, transactions: Iterable<StatementTransaction>): Row[] {
  const rows: Row[] = [{ cells: ['', '', '', '', '', '', btc(totals.opening_balance)], bold: true, label: { column: 1, span: 2, text: 'Opening balance' } }];
  for (const tx of transactions) rows.push(transactionRow(tx));
  rows.push({
    cells: ['', '', '', btc(totals.total_in), btc(totals.total_out), btc(totals.total_fees), btc(totals.closing_balance)],
    bold: true,
    label: { column: 1, span: 2, text: `Totals · ${plural(totals.transaction_count, 'transaction')}` },
  });
  return rows;
}

const TOTALS_COLUMNS = (first: string): Column[] => [
  { title: first, align: 'left' },
  { title: 'Opening (BTC)', align: 'right' },
  { title: 'In (BTC)', align: 'right' },
  { title: 'Out (BTC)', align: 'right' },
  { title: 'Fees (BTC)', align: 'right' },
  { title: 'Closing (BTC)', align: 'right' },
  { title: 'Transactions', align: 'right' },
];

const totalsRow = (first: string, t: StatementTotals, bold = false): Row => ({
  cells: [first, btc(t.opening_balance), btc(t.total_in), btc(t.total_out), btc(t.total_fees), btc(t.closing_balance), t.transaction_count.toLocaleString('en')],
  bold,
});

/** Renders the statement document as a PDF (monthly or custom layout, as `document.document.format` says). */
export async function renderStatementPdf(input: StatementPdfInput): Promise<Buffer> {
  const { document, documentHash } = input;
  const { data, statement } = document;
  const tz = data.timezone;
  const issuer = new URL(document.iss).host;
  const layout = new PdfLayout(document.document.page_size, {
    Title: `Bitcoin statement ${statement.id}`,
    Author: `ownproof (${issuer})`,
    Subject: `Confirmed Bitcoin activity, ${periodInWords(data.period, tz)}, for ${statement.requested_by}`,
    Creator: 'ownproof',
    Producer: 'ownproof (pdfkit)',
    CreationDate: new Date(document.document.issued_at * 1000),
    ModDate: new Date(document.document.issued_at * 1000),
  });
  const { doc } = layout;

  // Title, parties, verification.
  doc.font('bold').fontSize(18).fillColor(grayColor(GRAY.text)).text('Bitcoin statement', layout.left, layout.y, { lineBreak: false });
  doc.font('bold').fontSize(10).text('ownproof', layout.left, layout.y + 2, { width: layout.contentWidth, align: 'right', lineBreak: false });
  doc.font('regular').fontSize(8).fillColor(grayColor(GRAY.muted)).text(issuer, layout.left, layout.y + 15, { width: layout.contentWidth, align: 'right', lineBreak: false });
  layout.y += 26;
  layout.paragraph(`Prepared for ${statement.requested_by}`, { size: 10, gap: 10 });
  if (!statement.livemode) {
    layout.paragraph('TEST MODE: computed from the sandbox chain. This is not a statement of real bitcoin.', { font: 'bold', size: 9, gap: 8 });
  }
  const holder = statement.account_holder;
  const offsets = [...new Set([offsetAt(data.period.open, tz), offsetAt(data.period.close - 1, tz)])].join(' / ');
  layout.facts([
    ['Account holder', `${holderText(holder)}${holder.external_ref ? `\nYour reference: ${holder.external_ref}` : ''}\nAccount holder id: ${holder.id}`],
    ['Period', `${periodInWords(data.period, tz)}\nTimes are in ${tz} (${offsets}).`],
    [
      'Statement',
      `${statement.id}, computed ${dateTimeInWords(statement.completed_at, tz)} from the Bitcoin ${data.claims[0]?.network ?? ''} chain at block ${data.chain.height}. ` +
        `Counts transactions with at least ${data.chain.min_confirmations} confirmations.`,
    ],
    [
      'Layout',
      document.document.format === 'monthly'
        ? 'Monthly: the summary, then each calendar month with its transactions.'
        : 'Custom: the summary, then every transaction of the period in one table.',
    ],
    ['Issued', `${dateTimeInWords(document.document.issued_at, tz)} by ${issuer}`],
  ]);
  verificationBox(layout, input, issuer);

  // The claims.
  layout.heading(`Claims covered (${document.claims.length})`);
  document.claims.forEach(({ claim }, i) => {
    const section = data.claims.find((c) => c.claim_id === claim.id);
    const subject = claim.subject.type === 'address' ? `Address ${claim.subject.address}` : `Wallet ${claim.subject.descriptor}`;
    const label = claim.label ? ` · “${claim.label}”` : '';
    layout.paragraph(`${i + 1}. ${subject}`, { font: 'bold', size: 8.5, gap: 1 });
    layout.paragraph(
      `${claim.network} · ${claim.address_type}${label} · claim ${claim.id}\n` +
        `Control proven by ${PROOF_FORMAT_WORDS[claim.proof.format]} on ${dateInWords(claim.verified_at, tz)} (block ${claim.chain.height}); its receipt is in the attached data.`,
      { size: 8, indent: 12, gap: 1 },
    );
    if (claim.subject.type === 'wallet' && section) {
      layout.list(`Addresses read (${section.addresses.length})`, section.addresses, { size: 6.5, gray: GRAY.muted, indent: 12, gap: 1 });
    }
    layout.y += 4;
  });

  // The summary.
  layout.heading('Summary');
  const s = data.summary;
  const summaryRows: Row[] = [
    { cells: [`Opening balance, ${momentInWords(data.period.open, tz, 'start')}`, btc(s.opening_balance)], bold: true },
    { cells: ['Received', btc(s.total_in)] },
    { cells: ['Sent', btc(s.total_out)] },
    { cells: ['Network fees paid', btc(s.total_fees)] },
    { cells: [`Closing balance, ${momentInWords(data.period.close, tz, 'end')}`, btc(s.closing_balance)], bold: true },
    { cells: ['Transactions', s.transaction_count.toLocaleString('en')] },
  ];
  const summaryColumns: Column[] = [
    { title: '', align: 'left' },
    { title: 'BTC', align: 'right' },
  ];
  await layout.table(layout.shape(summaryColumns, summaryRows), summaryRows);
  layout.paragraph('Opening + received − sent − fees = closing. A balance is the confirmed balance just before that moment.', { size: 7, gray: GRAY.muted });
  if (s.pending_transaction_count > 0) {
    layout.paragraph(
      `Not counted: ${plural(s.pending_transaction_count, 'transaction')} of the period in blocks with fewer than ${data.chain.min_confirmations} confirmations when the statement was computed.`,
      { size: 8, font: 'bold' },
    );
  }
  if (data.claims.length > 1) {
    const rows = data.claims.map((c) => totalsRow(c.claim_id, c.summary));
    await layout.table(layout.shape(TOTALS_COLUMNS('Claim'), rows), rows, { caption: 'Per claim (a transfer between two claims is out of one and into the other)' });
  }

  // The transactions.
  if (document.document.format === 'monthly') {
    const overview = [...data.months.map((m) => totalsRow(monthTitle(m, tz), m)), totalsRow('Whole period', s, true)];
    await layout.table(layout.shape(TOTALS_COLUMNS('Month'), overview), overview, { caption: 'Months' });
    const sections = data.months.map((month) => {
      const title = monthTitle(month, tz);
      return { month, title, rows: transactionRows(month, month.transactions) };
    });
    // One shape for every month, so the columns line up from month to month.
    const shape = layout.shape(TRANSACTION_COLUMNS, sections.flatMap((section) => section.rows));
    for (const { month, title, rows } of sections) {
      if (month.transaction_count === 0) {
        layout.ensure(40);
        layout.caption(title);
        layout.paragraph(`No transactions. Balance throughout: ${btc(month.closing_balance)} BTC.`, { size: 8, gap: 8 });
      } else {
        await layout.table(shape, rows, { caption: title });
      }
    }
  } else {
    const rows = transactionRows(s, data.months.flatMap((m) => m.transactions));
    await layout.table(layout.shape(TRANSACTION_COLUMNS, rows), rows, { caption: 'Transactions' });
  }

  layout.heading('How to read this statement', 9);
  layout.paragraph(
    'Amounts are in BTC (1 BTC = 100,000,000 satoshis), computed exactly in satoshis. “In” is what the claimed addresses received from outside them, ' +
      '“Out” what they sent outside them, the fee what they paid for the transaction; a transfer between addresses of the same claim is neither in nor out, ' +
      'only its fee leaves. A transaction belongs to the period by the time of its block; times are those of the block, in the statement’s time zone. ' +
      `Each transaction’s full id and each claim’s share are in the signed data attached to this PDF.`,
    { size: 7, gray: GRAY.muted },
  );

  const issued = new Date(document.document.issued_at * 1000);
  // PDF/A-3's name for data the visible document is drawn from; readers list it as an attachment.
  const attachment: PDFKit.Mixins.PDFAttachmentOptions & { relationship: string } = {
    name: attachmentName(statement.id),
    type: 'application/jose',
    description: `The statement’s data as JSON, signed by ${issuer} (compact JWS, EdDSA, key ${input.kid}); its payload’s SHA-256 is the document hash ${documentHash}.`,
    creationDate: issued,
    modifiedDate: issued,
    relationship: 'Data',
  };
  doc.file(Buffer.from(input.jws, 'ascii'), attachment);

  const running = `Bitcoin statement ${statement.id} · ${holderText(holder)}`;
  return layout.finish((page, pages) => {
    const footerY = layout.height - 34;
    doc.font('regular').fontSize(6.5).fillColor(grayColor(GRAY.muted));
    doc.text(`Document hash (SHA-256) ${documentHash}`, layout.left, footerY, { lineBreak: false });
    doc.text(`Check at ${input.verifyUrl}`, layout.left, footerY + 9, { lineBreak: false });
    doc.font('bold').fontSize(7.5).fillColor(grayColor(GRAY.text)).text(`Page ${page} of ${pages}`, layout.left, footerY + 2, { width: layout.contentWidth, align: 'right', lineBreak: false });
    if (page > 1) {
      doc.font('regular').fontSize(7).fillColor(grayColor(GRAY.muted)).text(running, layout.left, 30, { width: layout.contentWidth - 60, lineBreak: false, ellipsis: true });
      doc.font('bold').fontSize(7).text('ownproof', layout.left, 30, { width: layout.contentWidth, align: 'right', lineBreak: false });
      layout.writer.fill(layout.left, 41, layout.contentWidth, 0.5, GRAY.rule);
    }
    layout.writer.fill(layout.left, footerY - 6, layout.contentWidth, 0.5, GRAY.rule);
  });
}

/** The box that says how to check the document: the QR code, the URL, the hash, the attachment. */
function verificationBox(layout: PdfLayout, input: StatementPdfInput, issuer: string): void {
  const { doc } = layout;
  const qrSize = 74;
  const padding = 8;
  const height = qrSize + 2 * padding;
  layout.ensure(height + 8);
  const top = layout.y + 4;
  layout.writer.fill(layout.left, top, layout.contentWidth, height, GRAY.shade);
  layout.writer.flush();
  layout.qr(encodeQR(verifyLink(input.verifyUrl, input.documentHash), 'raw', { ecc: 'medium', border: 1 }), layout.left + padding, top + padding, qrSize);
  // The QR code's own quiet zone is white; the box around it is shaded.
  const textX = layout.left + qrSize + 2 * padding + 4;
  const textWidth = layout.right - textX - padding;
  doc.font('bold').fontSize(9).fillColor(grayColor(GRAY.text)).text('Check this document', textX, top + padding, { width: textWidth });
  doc.font('regular').fontSize(7.5).text(`Scan the code, or open ${input.verifyUrl} and give it this PDF or its document hash:`, textX, doc.y + 2, { width: textWidth });
  doc.font('bold').fontSize(7.5).text(input.documentHash, textX, doc.y + 2, { width: textWidth });
  doc
    .font('regular')
    .fontSize(6.5)
    .fillColor(grayColor(GRAY.muted))
    .text(
      `The statement’s data is attached to this PDF (${attachmentName(input.document.statement.id)}), signed by ${issuer} with key ${input.kid} ` +
        `(published at ${input.document.iss}/.well-known/jwks.json); the document hash is its SHA-256. The file is signed as a whole too: any changed copy fails the check.`,
      textX,
      doc.y + 3,
      { width: textWidth },
    );
  layout.y = top + height + 8;
}
