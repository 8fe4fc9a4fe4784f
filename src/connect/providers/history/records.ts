import type { Exchange } from 'ccxt';
import { apiMethod, currencyCode, rowPages } from '../ccxt-api.js';
import { fromRecord, unsigned } from '../ccxt-records.js';
import { DAY_MS, type HistorySource, type RecordList } from '../exchanges/row.js';
import { encodeCursor } from './cursor.js';
import { byHalves, cursorOf, Newest, nextSince, QUIET_WINDOWS, type TimeRange, type WalkPages } from './walk.js';

/**
 * A pending record holds a records walk's cursor for this long at most: one whose status never
 * changes (a status we do not know as final, such as Binance's fiat "Refund Failed") would
 * otherwise have every later refresh read from its time on. Past it, the record stays pending.
 */
const HOLD_DAYS = 30;

/**
 * Lists of records (Binance's Simple Earn rewards, its Funding wallet's movements), list by list,
 * each range by range from the cursor's time (or the beginning) to now, every range page by page.
 * A range that read something leaves a checkpoint, as do a list's last range and every 30th quiet
 * one (`ranges`: the list being read and where its ranges still to read start; the newest time
 * read; the oldest pending record read). So does a full page followed by more of its range (`until`
 * and `page`: the range's end and the page to go on with): a list whose calls the exchange counts
 * per account (Binance's fiat orders: two a minute) may wait a minute a page, and a run out of time
 * must be able to stop between them. A checkpoint without a list (from before lists had ranges of
 * their own) is every list's. A record still pending holds the cursor at its time, so that the next
 * refresh reads it again until it completes or fails.
 */
export const recordPages: WalkPages<'records'> = async function* (exchange, source, walk) {
  const { name } = walk;
  const cursor = cursorOf('records', walk);
  const stored = cursor.ranges;
  // A place within a range is one list's.
  const within = stored?.list !== undefined && stored.until !== undefined && stored.page !== undefined && stored.until >= stored.from;
  const resumed = stored && {
    from: stored.from,
    list: stored.list,
    hold: stored.hold,
    ...(within ? { until: stored.until, page: stored.page } : {}),
  };
  const newest = new Newest(stored?.top);
  const begin = cursor.since ?? source.earliest;
  let hold = resumed?.hold;
  const checkpoint = (at: { list: number; from: number; until?: number; page?: number }) => ({
    transactions: [],
    checkpoint: encodeCursor({
      kind: 'records',
      ...(cursor.since === undefined ? {} : { since: cursor.since }),
      ranges: { ...at, ...(newest.value === undefined ? {} : { top: newest.value }), ...(hold === undefined ? {} : { hold }) },
    }),
  });
  for (const [index, list] of source.lists.entries()) {
    if (resumed?.list !== undefined && index < resumed.list) continue;
    const here = resumed !== undefined && (resumed.list === undefined || resumed.list === index) ? resumed : undefined;
    const now = exchange.milliseconds();
    // A range left between two pages goes on at its page, up to the end it had then (unless it
    // now starts past what the exchange keeps: then it is read again from there).
    const part =
      here?.until !== undefined && here.page !== undefined && here.from >= horizonOf(source, list, now)
        ? { from: here.from, until: here.until, page: here.page }
        : undefined;
    const ranges: (TimeRange & { page?: number })[] = part
      ? [part, ...recordRanges(source, list, part.until + 1, now)]
      : recordRanges(source, list, here?.from ?? begin, now);
    const size = list.paging?.pageSize ?? source.pageSize;
    let quiet = 0;
    for (const [i, range] of ranges.entries()) {
      let read = 0;
      let page = range.page ?? 1;
      for await (const rows of recordRows(exchange, list, range, size, page)) {
        const transactions = rows
          .flatMap((row) => legsOf(row, list))
          .map((row) => fromRecord(row, list, currencyCode(exchange, row[list.fields.asset]), name));
        for (const tx of transactions)
          if (tx.status === 'pending' && tx.occurredAt * 1000 > now - HOLD_DAYS * DAY_MS)
            hold = Math.min(hold ?? Infinity, tx.occurredAt * 1000);
        read += transactions.length;
        yield { transactions: newest.saw(transactions) };
        page += 1;
        if (!list.halves && rows.length >= size) yield checkpoint({ list: index, from: range.from, until: range.until, page });
      }
      // Quiet ranges (most, for most accounts) are passed over without a checkpoint of their own,
      // as quiet windows are; a list's last range always leaves one.
      const last = i === ranges.length - 1;
      quiet = read === 0 ? quiet + 1 : 0;
      if (!last && quiet > 0 && quiet < QUIET_WINDOWS) continue;
      quiet = 0;
      // The list's last range done, the next list's first is where the walk goes on.
      yield checkpoint(last ? { list: index + 1, from: begin } : { list: index, from: range.until + 1 });
    }
  }
  const since = nextSince(exchange, cursor.since, newest);
  return encodeCursor({ kind: 'records', since: hold === undefined ? since : Math.min(since, hold) });
};

/** One range of a record list, page by page (`size` rows) from `page`, or by halves where the list has no pages. */
function recordRows(
  exchange: Exchange,
  list: RecordList,
  range: TimeRange,
  size: number,
  page: number,
): AsyncGenerator<Record<string, unknown>[]> {
  const bounds = (r: TimeRange) => ({
    ...list.params,
    [list.range?.start ?? 'startTime']: r.from,
    [list.range?.end ?? 'endTime']: r.until,
  });
  const halves = list.halves;
  if (!halves) return rowPages(exchange, list.method, bounds(range), size, list.paging, page);
  const call = apiMethod(exchange, list.method);
  const read = async (r: TimeRange) => {
    const answer = (await call({ ...bounds(r), [halves.param]: halves.max })) as { data?: unknown } | undefined;
    if (!Array.isArray(answer?.data)) throw new TypeError(`${exchange.id}'s ${list.method} answer has no data`);
    return answer.data as Record<string, unknown>[];
  };
  return byHalves(range, halves.max, read, `${exchange.id}'s ${list.label} history`);
}

/** A row paying out from several assets (see RecordList `legs`) as one row per asset, each with its amount as paid out. */
function legsOf(row: Record<string, unknown>, list: RecordList): Record<string, unknown>[] {
  const legs = list.legs;
  const detail = legs && String(row[list.fields.amount]).startsWith('-') ? row[legs.field] : undefined;
  if (!legs || !Array.isArray(detail) || detail.length === 0) return [row];
  return (detail as Record<string, unknown>[]).map((leg) => ({
    ...row,
    [list.fields.asset]: leg[legs.asset],
    [list.fields.amount]: `-${unsigned(String(leg[legs.amount]))}`,
  }));
}

/** The oldest time a list is asked for: the source's beginning, or the list's horizon back from now. */
function horizonOf(source: Extract<HistorySource, { kind: 'records' }>, list: RecordList, now: number): number {
  return list.range?.horizonDays === undefined ? source.earliest : Math.max(source.earliest, now - list.range.horizonDays * DAY_MS);
}

/**
 * The ranges a list is asked for, from `from` to `now`: the source's `days` a call or the list's
 * own (`all`: one range), none before the source's beginning or the list's horizon.
 */
function recordRanges(source: Extract<HistorySource, { kind: 'records' }>, list: RecordList, from: number, now: number): TimeRange[] {
  const horizon = horizonOf(source, list, now);
  const days = list.range?.days ?? source.days;
  const first = Math.max(from, horizon);
  if (days === 'all') return first < now ? [{ from: first, until: now }] : [];
  const span = days * DAY_MS;
  const ranges: TimeRange[] = [];
  for (let start = first; start < now; start += span) ranges.push({ from: start, until: Math.min(start + span - 1, now) });
  return ranges;
}
