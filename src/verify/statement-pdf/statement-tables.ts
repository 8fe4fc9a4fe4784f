/**
 * The tables of a statement PDF, built from its data: the transaction columns (a column exists
 * when the data has its facts: a version-1 statement has no movement names), the rows of a span
 * between its opening balance and its totals, the transactions left out, and the totals of months
 * and claims. A column is a title, an alignment and how to read its cell from a transaction, an
 * opening balance or totals: adding one (a value in another currency) is adding an entry.
 */
import type { StatementData, StatementExclusion, StatementTotals, StatementTransaction } from '../statement.schemas.js';
import type { Column, DetailPart, Row } from './pdf-table.js';
import { btc, btcOrBlank, isUtcZone, MOVEMENT_WORDS, rowTime, signedBtc } from './statement-words.js';

/** A column of the transaction tables. */
export interface TransactionColumn extends Column {
  cell(tx: StatementTransaction): string | readonly string[];
  /** Its cell in a span's opening-balance row; blank when absent. */
  opening?(totals: StatementTotals): string;
  /** Its cell in a span's totals row; blank when absent. */
  totals?(totals: StatementTotals): string;
}

/** A stored local time as a date-and-time cell: the date above the time with its offset. */
function dateAndTime(iso: string, utc: boolean): string[] {
  const { date, time } = rowTime(iso, utc);
  return [date, time];
}

/** The transaction tables' columns for this statement's data. */
export function transactionColumns(data: StatementData): TransactionColumn[] {
  const utc = isUtcZone(data.timezone);
  const named = data.version >= 2;
  return [
    { title: 'Date and time', align: 'left', cell: (tx) => dateAndTime(tx.block_time_local, utc) },
    ...(named ? [{ title: 'Movement', align: 'left' as const, cell: (tx: StatementTransaction) => (tx.kind ? MOVEMENT_WORDS[tx.kind] : '') }] : []),
    { title: 'Block', align: 'right', cell: (tx) => String(tx.block_height) },
    { title: 'In (BTC)', align: 'right', cell: (tx) => btcOrBlank(tx.amount_in), totals: (t) => btc(t.total_in) },
    { title: 'Out (BTC)', align: 'right', cell: (tx) => btcOrBlank(tx.amount_out), totals: (t) => btc(t.total_out) },
    { title: 'Fee (BTC)', align: 'right', cell: (tx) => btcOrBlank(tx.fee), totals: (t) => btc(t.total_fees) },
    { title: 'Balance (BTC)', align: 'right', cell: (tx) => btc(tx.balance), opening: (t) => btc(t.opening_balance), totals: (t) => btc(t.closing_balance) },
  ];
}

/**
 * What is written under a transaction's date: its full id, then the outside addresses — "from"
 * those a receipt came from, "to" those a payment went to — and how many more there were.
 */
function transactionDetail(tx: StatementTransaction): Row['detail'] {
  const parts: DetailPart[] = [{ text: tx.txid, mono: true }];
  const counterparties = tx.counterparties ?? [];
  if (counterparties.length > 0) {
    parts.push({ text: tx.kind === 'received' ? 'from' : 'to', withNext: true });
    counterparties.forEach((address, i) => parts.push({ text: i < counterparties.length - 1 || tx.counterparties_more ? `${address},` : address, mono: true }));
    if (tx.counterparties_more) parts.push({ text: `and ${tx.counterparties_more.toLocaleString('en')} more` });
  }
  return { column: 0, parts };
}

/** `1 transaction`, `1,204 transactions`. */
export const plural = (count: number, noun: string) => `${count.toLocaleString('en')} ${noun}${count === 1 ? '' : 's'}`;


/** A span's transactions between its opening balance and its totals, as a bank statement lists them. */
export function transactionRows(columns: readonly TransactionColumn[], totals: StatementTotals, transactions: Iterable<StatementTransaction>): Row[] {
  // The labels run from the second column up to the first column with a figure in that row.
  const firstFigure = Math.max(2, columns.findIndex((c) => c.totals !== undefined));
  const label = (text: string) => ({ column: 1, span: firstFigure - 1, text });
  const rows: Row[] = [{ cells: columns.map((c) => c.opening?.(totals) ?? ''), bold: true, label: label('Opening balance') }];
  for (const tx of transactions) rows.push({ cells: columns.map((c) => c.cell(tx)), detail: transactionDetail(tx) });
  rows.push({ cells: columns.map((c) => c.totals?.(totals) ?? ''), bold: true, label: label(`Totals · ${plural(totals.transaction_count, 'transaction')}`) });
  return rows;
}

/** A month without transactions, as one line across the table. */
export function quietMonthRow(columns: readonly Column[], month: StatementTotals): Row {
  return { cells: [], label: { column: 0, span: columns.length, text: `No transactions. Balance throughout: ${btc(month.closing_balance)} BTC.` } };
}

export const EXCLUSION_COLUMNS: Column[] = [
  { title: 'Date and time', align: 'left' },
  { title: 'Movement', align: 'left' },
  { title: 'Block', align: 'right' },
  { title: 'Confirmations', align: 'right' },
  { title: 'Amount (BTC)', align: 'right' },
];

/** A transaction left out: when, what, where, how deep, how much, and under it its full id and why. */
export function exclusionRow(exclusion: StatementExclusion, utc: boolean): Row {
  return {
    cells: [dateAndTime(exclusion.block_time_local, utc), MOVEMENT_WORDS[exclusion.kind], String(exclusion.block_height), String(exclusion.confirmations), signedBtc(exclusion.net)],
    detail: { column: 0, parts: [{ text: exclusion.txid, mono: true }, { text: exclusion.reason }] },
  };
}

/** The totals tables (months, claims): the name of the span, then its figures. */
export function totalsColumns(first: string): Column[] {
  return [
    { title: first, align: 'left' },
    { title: 'Opening (BTC)', align: 'right' },
    { title: 'In (BTC)', align: 'right' },
    { title: 'Out (BTC)', align: 'right' },
    { title: 'Fees (BTC)', align: 'right' },
    { title: 'Closing (BTC)', align: 'right' },
    { title: 'Transactions', align: 'right' },
  ];
}

export function totalsRow(first: string, t: StatementTotals, bold = false): Row {
  return { cells: [first, btc(t.opening_balance), btc(t.total_in), btc(t.total_out), btc(t.total_fees), btc(t.closing_balance), t.transaction_count.toLocaleString('en')], bold };
}

