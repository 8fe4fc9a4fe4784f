/**
 * How a statement's figures and times are written for people: amounts in BTC from integer
 * satoshis, dates and periods in the statement's time zone, shortened transaction ids. Pure.
 */
import { DateTime } from 'luxon';
import { formatUnits } from '../../connect/amounts.js';
import type { StatementDocument } from '../statement-document.schemas.js';
import type { StatementPeriod } from '../statement.schemas.js';

/**
 * Satoshis (decimal text, as the statement stores them) as BTC with exactly 8 decimals and
 * thousands separators: "150000000" → "1.50000000", "2100000000000000" → "21,000,000.00000000".
 * String and bigint arithmetic only: an amount never passes through a float.
 */
export function btc(sats: string | bigint): string {
  const [whole = '0', fraction = ''] = formatUnits(BigInt(sats), 8).split('.');
  const negative = whole.startsWith('-');
  const digits = negative ? whole.slice(1) : whole;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${grouped}.${fraction.padEnd(8, '0')}`;
}

/** An amount column: blank for zero, as bank statements leave the unused column empty. */
export function btcOrBlank(sats: string): string {
  return sats === '0' ? '' : btc(sats);
}

/** A transaction id as a table shows it: the first and last 8 hex digits (the whole id is in the attached data). */
export function shortTxid(txid: string): string {
  return txid.length <= 19 ? txid : `${txid.slice(0, 8)}…${txid.slice(-8)}`;
}

/** `2026-10-20T08:00:00-04:00` (the stored local time) → `2026-10-20 08:00`: no date arithmetic per row. */
export function localMinute(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

const at = (seconds: number, timezone: string) => DateTime.fromSeconds(seconds, { zone: timezone }).setLocale('en-GB');

/** `20 November 2026`. */
export function dateInWords(seconds: number, timezone: string): string {
  return at(seconds, timezone).toFormat('d LLLL yyyy');
}

/** `20 November 2026, 14:05`. */
export function dateTimeInWords(seconds: number, timezone: string): string {
  return at(seconds, timezone).toFormat('d LLLL yyyy, HH:mm');
}

const isMidnight = (seconds: number, timezone: string) => {
  const local = at(seconds, timezone);
  return local.equals(local.startOf('day'));
};

/**
 * The period as a person reads it. It covers [open, close): when both ends fall on local
 * midnight it is a run of whole days, written with the last day included ("1 October 2026 to
 * 19 November 2026"); otherwise with the times and the end marked as not included.
 */
export function periodInWords(period: StatementPeriod, timezone: string): string {
  if (isMidnight(period.open, timezone) && isMidnight(period.close, timezone)) {
    return `${dateInWords(period.open, timezone)} to ${dateInWords(period.close - 1, timezone)}`;
  }
  return `${dateTimeInWords(period.open, timezone)} to ${dateTimeInWords(period.close, timezone)} (the end not included)`;
}

/**
 * Where a balance is taken, in words: an instant at local midnight is the start of that day or
 * the end of the day before ("end of 31 August 2025"); any other is its date and time.
 */
export function momentInWords(seconds: number, timezone: string, side: 'start' | 'end'): string {
  if (!isMidnight(seconds, timezone)) return dateTimeInWords(seconds, timezone);
  return side === 'start' ? `start of ${dateInWords(seconds, timezone)}` : `end of ${dateInWords(seconds - 1, timezone)}`;
}

/**
 * A month section's title: `October 2026`, with where it starts or ends when the period cuts it
 * (`September 2026, from 30 September, 20:00`).
 */
export function monthTitle(span: { month: string; start: number; end: number }, timezone: string): string {
  const first = DateTime.fromISO(`${span.month}-01`, { zone: timezone }).setLocale('en-GB');
  const next = first.plus({ months: 1 });
  const parts = [first.toFormat('LLLL yyyy')];
  if (span.start !== first.toSeconds()) parts.push(`from ${at(span.start, timezone).toFormat(isMidnight(span.start, timezone) ? 'd LLLL' : 'd LLLL, HH:mm')}`);
  if (span.end !== next.toSeconds()) {
    parts.push(isMidnight(span.end, timezone) ? `to ${at(span.end - 1, timezone).toFormat('d LLLL')}` : `until ${at(span.end, timezone).toFormat('d LLLL, HH:mm')}`);
  }
  return parts.join(', ');
}

/** `UTC+05:30` style offset name in force at an instant, for saying which clock the times use. */
export function offsetAt(seconds: number, timezone: string): string {
  return at(seconds, timezone).toFormat("'UTC'ZZ");
}

/** The account holder as the statement names them: `Ada Lovelace · ada@example.com`, or the address alone. */
export function holderText(holder: StatementDocument['statement']['account_holder']): string {
  return holder.name ? `${holder.name} · ${holder.email}` : holder.email;
}
