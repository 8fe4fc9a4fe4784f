/**
 * The tables of a statement PDF, built from its data: the transaction columns (a column exists
 * when the data has its facts: a version-1 statement has no movement names), the rows of a span
 * between its opening balance and its totals, the transactions left out, and the totals of months
 * and claims. A column is a title, an alignment and how to read its cell from a transaction, an
 * opening balance or totals: adding one (a value in another currency) is adding an entry.
 */
import type { StatementData, StatementExclusion, StatementTotals, StatementTransaction } from '../statement.schemas.js';
import type { StatementValueTotals } from '../statement-valuation.schemas.js';
import type { Column, DetailPart, Row } from './pdf-table.js';
import { btc, btcOrBlank, fiat, fiatOrBlank, isUtcZone, MOVEMENT_WORDS, price, rowTime, signedBtc } from './statement-words.js';

/** What a span (a month, the period) shows around its transactions: its BTC totals, and with a valuation its values. */
export interface SpanFigures {
  totals: StatementTotals;
  values?: StatementValueTotals;
}

/** A column of the transaction tables. */
export interface TransactionColumn extends Column {
  cell(tx: StatementTransaction): string | readonly string[];
  /** Its cell in a span's opening-balance row; blank when absent. */
  opening?(span: SpanFigures): string | readonly string[];
  /** Its cell in a span's totals row; blank when absent. */
  totals?(span: SpanFigures): string | readonly string[];
  /** Its cell in a valued span's revaluation row; blank when absent. */
  revaluation?(values: StatementValueTotals): string | readonly string[];
}

/** A stored local time as a date-and-time cell: the date above the time with its offset. */
function dateAndTime(iso: string, utc: boolean): string[] {
  const { date, time } = rowTime(iso, utc);
  return [date, time];
}

/**
 * An amount column: the BTC figure, and under it, with a valuation, its value in the currency
 * (each movement at the price of its time).
 */
function amountColumn(
  title: string,
  currency: string | undefined,
  figure: (tx: StatementTransaction) => [string, string | undefined],
  total: (span: SpanFigures) => [string, string | undefined],
): TransactionColumn {
  if (currency === undefined) {
    return { title: `${title} (BTC)`, align: 'right', cell: (tx) => btcOrBlank(figure(tx)[0]), totals: (span) => btc(total(span)[0]) };
  }
  return {
    title: `${title} (BTC, ${currency})`,
    align: 'right',
    cell: (tx) => {
      const [sats, value] = figure(tx);
      return [btcOrBlank(sats), fiatOrBlank(value)];
    },
    totals: (span) => {
      const [sats, value] = total(span);
      return [btc(sats), value === undefined ? '' : fiat(value)];
    },
  };
}

/** The transaction tables' columns for this statement's data. */
export function transactionColumns(data: StatementData): TransactionColumn[] {
  const utc = isUtcZone(data.timezone);
  const named = data.version >= 2;
  const currency = data.valuation?.status === 'valued' ? data.valuation.currency : undefined;
  return [
    { title: 'Date and time', align: 'left', cell: (tx) => dateAndTime(tx.block_time_local, utc) },
    ...(named
      ? [{ title: 'Movement', align: 'left' as const, cell: (tx: StatementTransaction) => (tx.kind ? MOVEMENT_WORDS[tx.kind] : '') }]
      : []),
    { title: 'Block', align: 'right', cell: (tx) => String(tx.block_height) },
    ...(currency === undefined
      ? []
      : [
          {
            title: `Price (${currency})`,
            align: 'right' as const,
            cell: (tx: StatementTransaction) => (tx.price === undefined ? '' : price(tx.price, currency)),
            opening: (span: SpanFigures) => (span.values ? price(span.values.opening_price, currency) : ''),
            totals: (span: SpanFigures) => (span.values ? price(span.values.closing_price, currency) : ''),
          },
        ]),
    amountColumn(
      'In',
      currency,
      (tx) => [tx.amount_in, tx.value_in],
      (span) => [span.totals.total_in, span.values?.value_in],
    ),
    amountColumn(
      'Out',
      currency,
      (tx) => [tx.amount_out, tx.value_out],
      (span) => [span.totals.total_out, span.values?.value_out],
    ),
    amountColumn(
      'Fee',
      currency,
      (tx) => [tx.fee, tx.value_fee],
      (span) => [span.totals.total_fees, span.values?.value_fees],
    ),
    {
      title: currency === undefined ? 'Balance (BTC)' : `Balance (BTC, ${currency})`,
      align: 'right',
      cell: (tx) => btc(tx.balance),
      opening: (span) =>
        span.values ? [btc(span.totals.opening_balance), fiat(span.values.opening_value)] : btc(span.totals.opening_balance),
      totals: (span) =>
        span.values ? [btc(span.totals.closing_balance), fiat(span.values.closing_value)] : btc(span.totals.closing_balance),
      revaluation: (values) => ['', fiat(values.revaluation)],
    },
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
    counterparties.forEach((address, i) =>
      parts.push({ text: i < counterparties.length - 1 || tx.counterparties_more ? `${address},` : address, mono: true }),
    );
    if (tx.counterparties_more) parts.push({ text: `and ${tx.counterparties_more.toLocaleString('en')} more` });
  }
  return { column: 0, parts };
}

/** `1 transaction`, `1,204 transactions`. */
export const plural = (count: number, noun: string) => `${count.toLocaleString('en')} ${noun}${count === 1 ? '' : 's'}`;

/**
 * A span's transactions between its opening balance and its totals, as a bank statement lists
 * them; with a valuation, the revaluation (what the price's change made of the balance) before the
 * totals, so the value column adds up as the BTC one does.
 */
export function transactionRows(
  columns: readonly TransactionColumn[],
  span: SpanFigures,
  transactions: Iterable<StatementTransaction>,
): Row[] {
  // The labels run from the second column up to the first column with a figure in that row.
  const firstFigure = Math.max(
    2,
    columns.findIndex((c) => c.totals !== undefined),
  );
  const label = (text: string) => ({ column: 1, span: firstFigure - 1, text });
  const rows: Row[] = [{ cells: columns.map((c) => c.opening?.(span) ?? ''), bold: true, label: label('Opening balance') }];
  for (const tx of transactions) rows.push({ cells: columns.map((c) => c.cell(tx)), detail: transactionDetail(tx) });
  const values = span.values;
  if (values) rows.push({ cells: columns.map((c) => c.revaluation?.(values) ?? ''), label: label('Revaluation (price change)') });
  rows.push({
    cells: columns.map((c) => c.totals?.(span) ?? ''),
    bold: true,
    label: label(`Totals · ${plural(span.totals.transaction_count, 'transaction')}`),
  });
  return rows;
}

/** A month without transactions, as one line across the table. */
export function quietMonthRow(columns: readonly Column[], month: StatementTotals): Row {
  return {
    cells: [],
    label: { column: 0, span: columns.length, text: `No transactions. Balance throughout: ${btc(month.closing_balance)} BTC.` },
  };
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
    cells: [
      dateAndTime(exclusion.block_time_local, utc),
      MOVEMENT_WORDS[exclusion.kind],
      String(exclusion.block_height),
      String(exclusion.confirmations),
      signedBtc(exclusion.net),
    ],
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
  return {
    cells: [
      first,
      btc(t.opening_balance),
      btc(t.total_in),
      btc(t.total_out),
      btc(t.total_fees),
      btc(t.closing_balance),
      t.transaction_count.toLocaleString('en'),
    ],
    bold,
  };
}

/** The totals tables in the valuation currency (the months): opening value, movements, revaluation, closing value. */
export function valueTotalsColumns(first: string, currency: string): Column[] {
  return [
    { title: first, align: 'left' },
    { title: `Opening (${currency})`, align: 'right' },
    { title: 'In', align: 'right' },
    { title: 'Out', align: 'right' },
    { title: 'Fees', align: 'right' },
    { title: 'Revaluation', align: 'right' },
    { title: `Closing (${currency})`, align: 'right' },
  ];
}

export function valueTotalsRow(first: string, v: StatementValueTotals, bold = false): Row {
  return {
    cells: [
      first,
      fiat(v.opening_value),
      fiat(v.value_in),
      fiat(v.value_out),
      fiat(v.value_fees),
      fiat(v.revaluation),
      fiat(v.closing_value),
    ],
    bold,
  };
}
