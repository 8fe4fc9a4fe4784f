/**
 * A statement's period in its time zone: which zone names are taken, how far a period may reach,
 * and where its month sections begin and end. Pure (luxon's time-zone rules, no clock, no I/O).
 */
import { DateTime, IANAZone } from 'luxon';
import { MAX_STATEMENT_YEARS, type StatementPeriod } from './statement.schemas.js';

/**
 * An IANA zone name the runtime knows (`UTC`, `America/New_York`, `Etc/GMT+5`). The shape check
 * comes first because newer runtimes also accept fixed offsets (`+05:30`) as time zones, and those
 * are not names: a statement asks for a place's calendar, daylight-saving changes included.
 */
export function isTimeZoneName(name: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name) && IANAZone.isValidZone(name);
}

/** The latest `close` a period starting at `open` may have: the same local date and time ten years later. */
export function latestClose(open: number, timezone: string): number {
  return DateTime.fromSeconds(open, { zone: timezone }).plus({ years: MAX_STATEMENT_YEARS }).toSeconds();
}

/** One month section of a period: a calendar month of the time zone, cut to the period at its ends. */
export interface MonthSpan {
  /** `YYYY-MM` in the time zone. */
  month: string;
  /** Included. */
  start: number;
  /** Excluded. */
  end: number;
}

/**
 * The period cut at every local midnight that starts a month. DST-correct: each boundary is
 * computed from the calendar (luxon), so a month that changes offset is simply an hour shorter or
 * longer (30 minutes on Lord Howe Island), and zones such as Pacific/Chatham (+12:45/+13:45) or
 * Asia/Kolkata (+05:30) start months at their own midnight.
 */
export function monthSpans(period: StatementPeriod, timezone: string): MonthSpan[] {
  const spans: MonthSpan[] = [];
  let monthStart = DateTime.fromSeconds(period.open, { zone: timezone }).startOf('month');
  let start = period.open;
  while (start < period.close) {
    // From the month's first moment each time, so a short month never shifts the next boundary.
    const next = monthStart.plus({ months: 1 });
    const end = Math.min(next.toSeconds(), period.close);
    spans.push({ month: monthStart.toFormat('yyyy-LL'), start, end });
    monthStart = next;
    start = end;
  }
  return spans;
}

/** A moment as ISO 8601 in the time zone, with the offset in force then (`2026-03-08T01:59:59-05:00`). */
export function localTime(seconds: number, timezone: string): string {
  return DateTime.fromSeconds(seconds, { zone: timezone }).toISO({ suppressMilliseconds: true }) as string;
}

/**
 * Every instant the statement's figures are cut at: the period's open, each month start inside it,
 * and its close. The balance before each is read from the chain at these instants.
 */
export function periodBoundaries(period: StatementPeriod, timezone: string): number[] {
  return [period.open, ...monthSpans(period, timezone).map((span) => span.end)];
}

/** A stretch of a period during which the time zone keeps one UTC offset. */
export interface OffsetSpan {
  /** Minutes east of UTC (`60` for +01:00, `-300` for −05:00, `630` for +10:30). */
  offset: number;
  /** Included. */
  start: number;
  /** Excluded: the instant the clocks change, or the period's close. */
  end: number;
}

const DAY_SECONDS = 86_400;

/**
 * Every UTC offset in force during the period, in order, with the instants the clocks change:
 * from the zone's rules (luxon over the runtime's tz database), not from the transactions, so a
 * statement says which clock its times use even where it has none. The period is probed once a
 * day and each change found is narrowed to its second; no zone changes its offset twice within a
 * day, so none is missed.
 */
export function offsetSpans(period: StatementPeriod, timezone: string): OffsetSpan[] {
  const zone = IANAZone.create(timezone);
  const offsetAt = (seconds: number) => zone.offset(seconds * 1000);
  const spans: OffsetSpan[] = [];
  let start = period.open;
  let offset = offsetAt(start);
  for (let probed = start; probed < period.close - 1;) {
    const next = Math.min(probed + DAY_SECONDS, period.close - 1);
    if (offsetAt(next) === offset) {
      probed = next;
      continue;
    }
    // The change lies in (probed, next]: the first second whose offset differs.
    let before = probed;
    let after = next;
    while (after - before > 1) {
      const middle = Math.floor((before + after) / 2);
      if (offsetAt(middle) === offset) before = middle;
      else after = middle;
    }
    spans.push({ offset, start, end: after });
    start = after;
    offset = offsetAt(after);
    probed = after;
  }
  spans.push({ offset, start, end: period.close });
  return spans;
}
