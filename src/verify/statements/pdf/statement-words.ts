/**
 * How a statement's figures and times are written for people: amounts in BTC from integer
 * satoshis, dates and periods in the statement's time zone — every time with its zone — and each
 * movement's name. Pure.
 */
import { DateTime } from 'luxon';
import { formatUnits } from '../../../connect/amounts.js';
import type { StatementDocument } from '../statement-document.schemas.js';
import { offsetSpans } from '../statement-period.js';
import type { MovementKind, StatementPeriod } from '../statement.schemas.js';
import { FIAT_CURRENCIES, isFiatCurrency } from '../../../prices/currencies.js';

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

/** An amount that may be negative, with its sign always written: `+0.00004000`, `-0.00002000`. */
export function signedBtc(sats: string): string {
  return sats.startsWith('-') || sats === '0' ? btc(sats) : `+${btc(sats)}`;
}

/**
 * An amount of money or a price as the valuation stores it (decimal text in the currency: a value
 * with every digit of its minor unit, `-61234.50`, `123450` yen; a price as its source gave it)
 * with thousands separators: `-61,234.50`, `123,450`. String work only, as for BTC.
 */
export function fiat(amount: string): string {
  const negative = amount.startsWith('-');
  const [whole = '0', fraction] = (negative ? amount.slice(1) : amount).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/**
 * A price in a document: as its source gave it, with at least the currency's minor-unit digits
 * (`57506` → `57,506.00` in EUR), so a column of prices reads alike; digits the source gave beyond
 * those are kept, as the signed data holds them.
 */
export function price(amount: string, currency: string): string {
  const digits = isFiatCurrency(currency) ? FIAT_CURRENCIES[currency] : 0;
  const [whole = '', fraction = ''] = amount.split('.');
  const digitsShown = fraction.padEnd(digits, '0');
  return fiat(digitsShown === '' ? whole : `${whole}.${digitsShown}`);
}

/** A value column: blank for zero, like the BTC columns beside it. */
export function fiatOrBlank(amount: string | undefined): string {
  return amount === undefined || /^-?0(\.0+)?$/.test(amount) ? '' : fiat(amount);
}

/** Each movement as a statement names it. */
export const MOVEMENT_WORDS: Record<MovementKind, string> = {
  received: 'Received',
  sent: 'Sent',
  self_transfer: 'Sent to self',
  consolidation: 'Consolidation',
  deposit_proof: 'Deposit proof',
};

/** Whether the zone is UTC under another name (`Etc/UTC`, `GMT`, `Zulu`…): its times are written `UTC`, not `UTC+00:00`. */
export function isUtcZone(timezone: string): boolean {
  return new Intl.DateTimeFormat('en', { timeZone: timezone }).resolvedOptions().timeZone === 'UTC';
}

/**
 * A stored local time (`2026-10-20T08:00:00-04:00`) as a table row shows it: the date, and the
 * time to the minute with its offset (`08:00 -04:00`, or `08:00 UTC` in a UTC statement). String
 * slicing, no date arithmetic per row.
 */
export function rowTime(iso: string, utc: boolean): { date: string; time: string } {
  const offset = iso.slice(19);
  return { date: iso.slice(0, 10), time: `${iso.slice(11, 16)} ${utc || offset === 'Z' ? 'UTC' : offset}` };
}

const at = (seconds: number, timezone: string) => DateTime.fromSeconds(seconds, { zone: timezone }).setLocale('en-GB');

/** The zone of a moment as printed after its time: `UTC-05:00`, `UTC+05:30`, or `UTC` in a UTC statement. */
function zoneAt(seconds: number, timezone: string): string {
  return isUtcZone(timezone) ? 'UTC' : offsetAt(seconds, timezone);
}

/** `20 November 2026`. */
export function dateInWords(seconds: number, timezone: string): string {
  return at(seconds, timezone).toFormat('d LLLL yyyy');
}

/** `20 November 2026, 14:05 UTC-05:00`: a time is never written without its zone. */
export function dateTimeInWords(seconds: number, timezone: string): string {
  return `${at(seconds, timezone).toFormat('d LLLL yyyy, HH:mm')} ${zoneAt(seconds, timezone)}`;
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
 * the end of the day before, with the zone's offset then ("end of 31 August 2025 (UTC+01:00)");
 * any other is its date and time.
 */
export function momentInWords(seconds: number, timezone: string, side: 'start' | 'end'): string {
  if (!isMidnight(seconds, timezone)) return dateTimeInWords(seconds, timezone);
  const day = side === 'start' ? `start of ${dateInWords(seconds, timezone)}` : `end of ${dateInWords(seconds - 1, timezone)}`;
  return `${day} (${zoneAt(seconds, timezone)})`;
}

/**
 * A month section's title: `October 2026`, with where it starts or ends when the period cuts it
 * (`September 2026, from 30 September, 20:00 UTC-04:00`).
 */
export function monthTitle(span: { month: string; start: number; end: number }, timezone: string): string {
  const first = DateTime.fromISO(`${span.month}-01`, { zone: timezone }).setLocale('en-GB');
  const next = first.plus({ months: 1 });
  const dayAndTime = (seconds: number) => `${at(seconds, timezone).toFormat('d LLLL, HH:mm')} ${zoneAt(seconds, timezone)}`;
  const parts = [first.toFormat('LLLL yyyy')];
  if (span.start !== first.toSeconds())
    parts.push(`from ${isMidnight(span.start, timezone) ? at(span.start, timezone).toFormat('d LLLL') : dayAndTime(span.start)}`);
  if (span.end !== next.toSeconds())
    parts.push(isMidnight(span.end, timezone) ? `to ${at(span.end - 1, timezone).toFormat('d LLLL')}` : `until ${dayAndTime(span.end)}`);
  return parts.join(', ');
}

/** Minutes east of UTC as `+01:00`, `-05:00`, `+10:30`. */
function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/**
 * Which clock the statement's times use, from the zone's rules: every offset in force during the
 * period, and the instants (in UTC) the clocks change — "Times are in Europe/London, each with
 * its offset from UTC: +01:00 to 26 October 2025, 01:00 UTC, then +00:00 to …, then +01:00."
 */
export function offsetsInWords(period: StatementPeriod, timezone: string): string {
  if (isUtcZone(timezone)) return 'Times are in UTC.';
  const spans = offsetSpans(period, timezone);
  const intro = `Times are in ${timezone}, each with its offset from UTC:`;
  if (spans.length === 1) return `${intro} ${offsetText(spans[0]?.offset ?? 0)} throughout.`;
  const changes = spans.map((span, i) =>
    i < spans.length - 1
      ? `${offsetText(span.offset)} to ${at(span.end, 'UTC').toFormat('d LLLL yyyy, HH:mm')} UTC`
      : offsetText(span.offset),
  );
  return `${intro} ${changes.join(', then ')}.`;
}

/** `UTC+05:30` style offset name in force at an instant, for saying which clock the times use. */
export function offsetAt(seconds: number, timezone: string): string {
  return at(seconds, timezone).toFormat("'UTC'ZZ");
}

/** The account holder as the statement names them: `Ada Lovelace · ada@example.com`, or the address alone. */
export function holderText(holder: StatementDocument['statement']['account_holder']): string {
  return holder.name ? `${holder.name} · ${holder.email}` : holder.email;
}
