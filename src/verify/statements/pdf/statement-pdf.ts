/**
 * A statement as a PDF an accountant, lender or auditor reads like a bank statement: who and what
 * it covers, the summary, what was left out, and the transactions (per month, or for the whole
 * period) — each named, with its full id and the offset of its time — with the signed data
 * attached and its document hash printed so anyone can check it (docs/verify.md, "Statement PDFs"
 * and "Reading a statement"). Pure apart from the fonts it reads once: the same input gives the
 * same bytes.
 */
import encodeQR from 'qr';
import { PROOF_FORMAT_WORDS } from '../../claims/claim.schemas.js';
import { attachmentName } from '@ownproof/verify';
import type { StatementDocument } from '../statement-document.schemas.js';
import type { StatementData, StatementMonth } from '../statement.schemas.js';
import type { StatementValueTotals } from '../statement-valuation.schemas.js';
import { GRAY, grayColor, PdfLayout } from './pdf-layout.js';
import type { CellFont } from './pdf-text.js';
import { table, tablePieces, tableShape, type Column, type Row, type TableSection } from './pdf-table.js';
import {
  EXCLUSION_COLUMNS,
  exclusionRow,
  plural,
  quietMonthRow,
  totalsColumns,
  totalsRow,
  transactionColumns,
  transactionRows,
  valueTotalsColumns,
  valueTotalsRow,
} from './statement-tables.js';
import {
  btc,
  dateInWords,
  fiat,
  dateTimeInWords,
  holderText,
  isUtcZone,
  momentInWords,
  monthTitle,
  offsetsInWords,
  periodInWords,
} from './statement-words.js';

export interface StatementPdfInput {
  /** What the document states: the payload of `jws`. */
  document: StatementDocument;
  /** The signed data (a compact JWS, its ASCII bytes), attached to the PDF as it is. */
  jws: Buffer;
  /** The signing key's id (the JWS `kid`), printed so a reader knows which published key to check with. */
  kid: string;
  /** SHA-256 of the JWS payload, lowercase hex. */
  documentHash: string;
  /** Where anyone checks a statement document (`PUBLIC_BASE_URL/verify`). */
  verifyUrl: string;
}

/** The URL the QR code holds: the check page with the document hash filled in. */
const verifyLink = (verifyUrl: string, documentHash: string) => `${verifyUrl}?document_hash=${documentHash}`;

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
  layout.block(26, (y) => {
    doc.font('bold').fontSize(18).fillColor(grayColor(GRAY.text)).text('Bitcoin statement', layout.left, y, { lineBreak: false });
    doc
      .font('bold')
      .fontSize(10)
      .text('ownproof', layout.left, y + 2, { width: layout.contentWidth, align: 'right', lineBreak: false });
    doc
      .font('regular')
      .fontSize(8)
      .fillColor(grayColor(GRAY.muted))
      .text(issuer, layout.left, y + 15, { width: layout.contentWidth, align: 'right', lineBreak: false });
  });
  layout.paragraph(`Prepared for ${statement.requested_by}`, { size: 10, gap: 10 });
  if (!statement.livemode) {
    layout.paragraph('TEST MODE: computed from the sandbox chain. This is not a statement of real bitcoin.', {
      font: 'bold',
      size: 9,
      gap: 8,
    });
  }
  const holder = statement.account_holder;
  layout.facts([
    [
      'Account holder',
      `${holderText(holder)}${holder.external_ref ? `\nYour reference: ${holder.external_ref}` : ''}\nAccount holder id: ${holder.id}`,
    ],
    ['Period', `${periodInWords(data.period, tz)}\n${offsetsInWords(data.period, tz)}`],
    [
      'Statement',
      `${statement.id}, computed ${dateTimeInWords(statement.completed_at, tz)} from the Bitcoin ${data.claims[0]?.network ?? ''} chain, its tip at block ${data.chain.height}. ` +
        `Counts transactions with at least ${data.chain.min_confirmations} confirmations at that tip.`,
    ],
    ['Tip block hash', data.chain.block_hash, 'mono'],
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
    layout.space(4);
  });

  summary(layout, data);
  notCounted(layout, data);
  howToRead(layout, data);
  transactions(layout, data, document.document.format);

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
  doc.file(input.jws, attachment);

  // Every page's header and footer, as glyph runs: a long statement has hundreds of pages.
  const { writer, cell } = layout;
  const running = fitText(cell.regular, 7, `Bitcoin statement ${statement.id} · ${holderText(holder)}`, layout.contentWidth - 60);
  return layout.finish((page, pages) => {
    const footerY = layout.height - 34;
    writer.text(cell.regular, 6.5, `Document hash (SHA-256) ${documentHash}`, layout.left, footerY, { gray: GRAY.muted });
    writer.text(cell.regular, 6.5, `Check at ${input.verifyUrl}`, layout.left, footerY + 9, { gray: GRAY.muted });
    writer.text(cell.bold, 7.5, `Page ${page} of ${pages}`, layout.right, footerY + 2, { align: 'right' });
    if (page > 1) {
      writer.text(cell.regular, 7, running, layout.left, 30, { gray: GRAY.muted });
      writer.text(cell.bold, 7, 'ownproof', layout.right, 30, { align: 'right', gray: GRAY.muted });
      writer.fill(layout.left, 41, layout.contentWidth, 0.5, GRAY.rule);
    }
    writer.fill(layout.left, footerY - 6, layout.contentWidth, 0.5, GRAY.rule);
  });
}

/** The period's opening and closing balances, what moved in between, and each claim on its own. */
function summary(layout: PdfLayout, data: StatementData): void {
  const tz = data.timezone;
  const s = data.summary;
  layout.heading('Summary');
  const v = data.valuation?.status === 'valued' ? data.valuation : undefined;
  // With a valuation, a second figure per line: its value in the currency.
  const line = (label: string, sats: string, value?: string, bold = false): Row => ({
    cells: [label, sats, ...(v ? [value === undefined ? '' : fiat(value)] : [])],
    bold,
  });
  const rows: Row[] = [
    line(`Opening balance, ${momentInWords(data.period.open, tz, 'start')}`, btc(s.opening_balance), v?.summary.opening_value, true),
    line('Received', btc(s.total_in), v?.summary.value_in),
    line('Sent', btc(s.total_out), v?.summary.value_out),
    line('Network fees paid', btc(s.total_fees), v?.summary.value_fees),
    ...(v ? [line('Revaluation (the price’s change on the balance held)', '', v.summary.revaluation)] : []),
    line(`Closing balance, ${momentInWords(data.period.close, tz, 'end')}`, btc(s.closing_balance), v?.summary.closing_value, true),
    line('Transactions', s.transaction_count.toLocaleString('en')),
  ];
  const columns: Column[] = [
    { title: '', align: 'left' },
    { title: 'BTC', align: 'right' },
    ...(v ? [{ title: v.currency, align: 'right' as const }] : []),
  ];
  table(layout, tableShape(layout, columns, rows), rows);
  layout.paragraph(
    'Opening + received − sent − fees = closing. A balance is the confirmed balance just before that moment.' +
      (v
        ? ` In ${v.currency}, the revaluation is added too: the balances are valued at the prices of the period’s bounds, each movement at the price of its time.`
        : ''),
    { size: 7, gray: GRAY.muted },
  );
  valuationText(layout, data);
  if (data.claims.length > 1) {
    const claimRows = data.claims.map((c) => totalsRow(c.claim_id, c.summary));
    table(
      layout,
      tableShape(layout, totalsColumns('Claim'), claimRows),
      claimRows,
      'Per claim (a transfer between two claims is out of one and into the other)',
    );
  }
}

/**
 * Where the valuation's prices come from and how its values are rounded, so anyone can recompute
 * every figure; or, when it could not be made, that it is missing and why.
 */
function valuationText(layout: PdfLayout, data: StatementData): void {
  const valuation = data.valuation;
  if (!valuation) return;
  if (valuation.status === 'unavailable') {
    layout.paragraph(`Valuation in ${valuation.currency}: not included. ${valuation.reason}`, { size: 8, font: 'bold' });
    return;
  }
  const { source } = valuation;
  layout.heading(`Valuation in ${valuation.currency}`, 9.5);
  layout.paragraph(
    `Prices: ${source.name} (${source.exchange}), market ${source.market}, ${source.interval === '1h' ? 'hourly' : source.interval} candles. ${source.rule} ` +
      `${valuation.rounding} The ${plural(valuation.prices.length, 'price')} used, by candle, are in the signed data attached to this PDF.`,
    { size: 7.5, gap: 4 },
  );
}

/** The transactions of the period the statement left out: each one (from version 2), or how many (version 1). */
function notCounted(layout: PdfLayout, data: StatementData): void {
  const count = data.summary.pending_transaction_count;
  if (count === 0) return;
  const why = `in blocks with fewer than ${data.chain.min_confirmations} confirmations at the tip the statement was computed at`;
  if (!data.excluded) {
    layout.paragraph(`Not counted: ${plural(count, 'transaction')} of the period ${why}.`, { size: 8, font: 'bold' });
    return;
  }
  layout.heading(`Not counted (${plural(count, 'transaction')})`, 9.5);
  layout.paragraph(
    `These transactions of the period are ${why}, or in blocks mined after it: they could still be reorganised away, so no figure of this statement includes them. ` +
      'A statement generated later counts them.',
    { size: 7.5, gap: 4 },
  );
  const utc = isUtcZone(data.timezone);
  const rows = data.excluded.map((exclusion) => exclusionRow(exclusion, utc));
  table(layout, tableShape(layout, EXCLUSION_COLUMNS, rows), rows);
}

/** What each column of the transaction tables says (docs/verify.md, "Reading a statement", says it at length). */
function howToRead(layout: PdfLayout, data: StatementData): void {
  const named = data.version >= 2;
  layout.heading('How to read this statement', 9);
  layout.paragraph(
    [
      'Amounts are in BTC (1 BTC = 100,000,000 satoshis), computed exactly in satoshis. A transaction belongs to the period by the time of its block; ' +
        'each is listed at that time in the statement’s time zone, with the offset from UTC in force then.',
      named
        ? 'On each row’s second line, beside the time, are the transaction’s full id (look it up in any block explorer) and the outside addresses involved: ' +
          '“to” those a payment went to, “from” those a receipt came from (at most three, and how many more).'
        : 'On each row’s second line, beside the time, is the transaction’s full id (look it up in any block explorer).',
      named
        ? '“Movement” says what it is: Received; Sent; Sent to self (between the claimed addresses: only the fee leaves); Consolidation (several of their coins into one); ' +
          'Deposit proof (the payment that proved control of a claim).'
        : '',
      '“In” is what the claimed addresses received from outside them, “Out” what they sent outside them, “Fee” what they paid for the transaction, ' +
        '“Balance” their confirmed balance after it; a transfer between addresses of the statement is neither in nor out. Each claim’s share is in the signed data attached to this PDF.',
      data.valuation?.status === 'valued'
        ? `Under each BTC amount is its value in ${data.valuation.currency}: a movement at the price of its time (“Price”), an opening or closing balance at the price of that moment ` +
          '(in the opening and totals rows, “Price” is the price at the start and at the end); ' +
          '“Revaluation” is what the price’s change made of the balance held, so that the values add up as the BTC amounts do.'
        : '',
    ]
      .filter((sentence) => sentence !== '')
      .join(' '),
    { size: 7, gray: GRAY.muted },
  );
}

/** The transactions: a section per month (monthly) or one table (custom), all on one set of columns. */
function transactions(layout: PdfLayout, data: StatementData, format: StatementDocument['document']['format']): void {
  const tz = data.timezone;
  const columns = transactionColumns(data);
  const valuation = data.valuation?.status === 'valued' ? data.valuation : undefined;
  let sections: TableSection[];
  if (format === 'monthly') {
    const overview = [...data.months.map((m) => totalsRow(monthTitle(m, tz), m)), totalsRow('Whole period', data.summary, true)];
    table(layout, tableShape(layout, totalsColumns('Month'), overview), overview, 'Months');
    if (valuation) {
      const valued = [
        ...valuation.months.map((v, i) => valueTotalsRow(monthTitle(data.months[i] as StatementMonth, tz), v)),
        valueTotalsRow('Whole period', valuation.summary, true),
      ];
      table(layout, tableShape(layout, valueTotalsColumns('Month', valuation.currency), valued), valued, `Months in ${valuation.currency}`);
    }
    sections = data.months.map((month, i) => {
      const span = { totals: month, ...(valuation ? { values: valuation.months[i] as StatementValueTotals } : {}) };
      return month.transaction_count === 0 && !valuation
        ? { caption: monthTitle(month, tz), titles: false, rows: [quietMonthRow(columns, month)] }
        : { caption: monthTitle(month, tz), rows: transactionRows(columns, span, month.transactions) };
    });
  } else {
    const span = { totals: data.summary, ...(valuation ? { values: valuation.summary } : {}) };
    sections = [
      {
        caption: 'Transactions',
        rows: transactionRows(
          columns,
          span,
          data.months.flatMap((m) => m.transactions),
        ),
      },
    ];
  }
  // One shape for every section, so the columns line up from month to month.
  const shape = tableShape(
    layout,
    columns,
    sections.flatMap((section) => section.rows),
  );
  layout.add(tablePieces(layout, shape, sections));
}

/** The box that says how to check the document: the QR code, the URL, the hash, the attachment. */
function verificationBox(layout: PdfLayout, input: StatementPdfInput, issuer: string): void {
  const { doc } = layout;
  const qrSize = 74;
  const padding = 8;
  const height = qrSize + 2 * padding;
  layout.block(4 + height + 8, (y) => {
    const top = y + 4;
    layout.writer.fill(layout.left, top, layout.contentWidth, height, GRAY.shade);
    layout.writer.flush();
    layout.qr(
      encodeQR(verifyLink(input.verifyUrl, input.documentHash), 'raw', { ecc: 'medium', border: 1 }),
      layout.left + padding,
      top + padding,
      qrSize,
    );
    // The QR code's own quiet zone is white; the box around it is shaded.
    const textX = layout.left + qrSize + 2 * padding + 4;
    const textWidth = layout.right - textX - padding;
    doc
      .font('bold')
      .fontSize(9)
      .fillColor(grayColor(GRAY.text))
      .text('Check this document', textX, top + padding, { width: textWidth });
    doc
      .font('regular')
      .fontSize(7.5)
      .text(`Scan the code, or open ${input.verifyUrl} and give it this PDF or its document hash:`, textX, doc.y + 2, { width: textWidth });
    doc
      .font('bold')
      .fontSize(7.5)
      .text(input.documentHash, textX, doc.y + 2, { width: textWidth });
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
  });
}

/** `text`, cut with an ellipsis where it would be wider than `width` points (a long account holder name in the running header). */
function fitText(font: CellFont, size: number, text: string, width: number): string {
  if (font.width(text, size) <= width) return text;
  const characters = [...text];
  while (characters.length > 0 && font.width(`${characters.join('')}…`, size) > width) characters.pop();
  return `${characters.join('')}…`;
}
