import type { Exchange, LedgerEntry, MarketInterface, Trade } from 'ccxt';
import { apiMethod, currencyCode, rowPages, walletsOf } from './ccxt-api.js';
import { fromColumnEntry, fromConversion, fromDust, fromLedgerEntry, fromRecord, fromTrade, fromTransfer, unsigned, type DustConversion } from './ccxt-records.js';
import { DAY_MS, isBooks, type Book, type HistorySource, type RecordList } from './exchanges.js';
import type { ProviderTransaction, TransactionPages } from './provider.js';

/** What a history walk knows of the account: the exchange's name, the stored cursor, the assets held. */
interface Walk {
  name: string;
  cursor: string | null;
  /** The assets held now (read only by walks that need them). */
  held: () => Promise<string[]>;
}

/**
 * An exchange's history as our transactions, page by page, from the stored cursor; returns the
 * cursor the next refresh reads from.
 *
 * Where the exchange keeps a ledger we read only the ledger: it is the complete record of every
 * balance change, one entry per asset leg (a trade is two entries, its fee is in them), with the
 * exchange's own id. Reading trades, deposits and withdrawals as well would count the same movement
 * twice. Exchanges without a ledger give their deposits and withdrawals and, where the row says
 * how, their trades market by market. Where the exchange keeps several books, each book's ledger
 * is walked in turn.
 */
export async function* historyPages(exchange: Exchange, history: HistorySource | readonly Book[], walk: Walk): TransactionPages {
  if (!isBooks(history)) return yield* sourcePages(exchange, history, walk);
  const walked = history.filter((book): book is Book & { history: HistorySource } => book.history !== undefined);
  // One walking book: its cursor, references and descriptions keep the one-book form (a row that
  // gains a balances-only book reads on from its stored cursor; Bitfinex's one ledger is every
  // wallet's, not its first wallet's). Only the book's own reading of its entries applies. A
  // cursor without books, met by several walking books, is the cursor of the book that says
  // `formerCursor`, the others reading from the beginning; without one, every book reads from
  // the beginning (re-read entries are upserted).
  const [only] = walked;
  if (walked.length === 1 && only) return yield* sourcePages(exchange, only.history, walk, only.types || only.feeIncluded ? { ...only, plainRefs: true } : undefined);
  // One cursor per book (`{"books": {name: cursor}}`). A checkpoint also names the book being
  // walked (`at`): the books before it are done (their cursors are where the next refresh reads
  // from) and a walk resumed there starts with it.
  const { cursors, at } = bookCursors(walk.cursor, walked.find((book) => book.formerCursor)?.name);
  const checkpoint = (book: string, cursor: string | null) => JSON.stringify({ books: { ...cursors, [book]: cursor }, at: book });
  const start = Math.max(0, walked.findIndex((book) => book.name === at));
  for (const [index, book] of walked.entries()) {
    if (index < start) continue;
    const pages = sourcePages(exchange, book.history, { ...walk, cursor: cursors[book.name] ?? null }, book);
    for (;;) {
      const next = await pages.next();
      if (next.done) {
        cursors[book.name] = next.value;
        break;
      }
      yield { transactions: next.value.transactions, ...(next.value.checkpoint === undefined ? {} : { checkpoint: checkpoint(book.name, next.value.checkpoint) }) };
    }
    // A book done is a place to resume from: a refresh out of time goes on with the next one.
    const following = walked[index + 1];
    if (following) yield { transactions: [], checkpoint: checkpoint(following.name, cursors[following.name] ?? null) };
  }
  return JSON.stringify({ books: cursors });
}

/**
 * The books' cursors in a stored cursor (none: each book from the beginning), and the book a
 * checkpoint was taken in. A cursor of the one-book form is `former`'s, where a book says so.
 */
function bookCursors(cursor: string | null, former?: string): { cursors: Record<string, string | null>; at?: string } {
  try {
    const parsed = JSON.parse(cursor ?? 'null') as { books?: unknown; at?: unknown } | null;
    const books = parsed?.books;
    if (typeof books !== 'object' || books === null) return { cursors: cursor !== null && parsed !== null && former !== undefined ? { [former]: cursor } : {} };
    const cursors = Object.fromEntries(Object.entries(books).filter((entry): entry is [string, string | null] => typeof entry[1] === 'string' || entry[1] === null));
    return { cursors, ...(typeof parsed?.at === 'string' ? { at: parsed.at } : {}) };
  } catch {
    return { cursors: {} };
  }
}

/** One walk of the history (one book's, where there are several). */
async function* sourcePages(exchange: Exchange, source: HistorySource, walk: Walk, book?: Book): TransactionPages {
  const { name, cursor } = walk;
  const position = positionOf(cursor);
  const newest = new Newest(position.walk?.top ?? position.backfill?.top ?? position.ranges?.top);
  // An unfinished walk's checkpoint is no cursor to keep once it is done.
  const previous = position.since === undefined ? null : cursor;
  switch (source.kind) {
    case 'ledger-offset': {
      // A whole-history walk (no `since`) goes newest to oldest; where the exchange takes an end
      // time (`source.end`), after each page it leaves a checkpoint: the oldest time read (as the
      // inclusive end of the rest, which entries booked meanwhile cannot shift, unlike offsets)
      // and the newest (for the cursor once done).
      const { since } = position;
      const endParam = source.end;
      const end = endParam === undefined ? undefined : position.backfill?.end;
      let oldest: number | undefined;
      const seen = new Set<string>();
      for (let offset = 0; ; offset += source.pageSize) {
        const page = await exchange.fetchLedger(undefined, since, source.pageSize, { [source.param]: offset, ...(end === undefined || endParam === undefined ? {} : { [endParam]: end }) });
        const fresh = unseen(page, seen);
        const transactions = newest.saw(fresh.map((entry) => fromLedgerEntry(entry, name, book)));
        for (const tx of transactions) oldest = Math.min(oldest ?? tx.occurredAt, tx.occurredAt);
        // A short page is the last; a page with nothing new means the exchange ignored the offset
        // (walking on would loop forever). The last page needs no checkpoint: the walk ends with it.
        const last = page.length < source.pageSize || fresh.length === 0;
        const top = newest.value;
        const resumable = !last && since === undefined && endParam !== undefined && top !== undefined && oldest !== undefined;
        // `occurredAt` is whole seconds, rounded down: the next second as the inclusive end keeps
        // every entry of the oldest second (re-read ones are upserted again).
        yield { transactions, ...(resumable ? { checkpoint: JSON.stringify({ backfill: { end: (oldest as number) + 1, top } }) } : {}) };
        if (last) return cursorAfter(previous, newest.value);
      }
    }
    case 'rows-by-id':
      return yield* rowsById(exchange, source, { name, cursor, position });
    case 'ledger-until': {
      if (source.window) return yield* windowPages(exchange, { ...source, window: source.window }, { name, position, newest, book });
      // Newest to oldest, each page ending at the oldest time read so far (ccxt's `until`, ms; see
      // pagedBack for the millisecond past it: entries of that millisecond are asked again and
      // de-duplicated). This is
      // ccxt's own backward pagination, walked here page by page with checkpoints, and without
      // its silent stop after ten calls (`paginationCalls`), which would pass a partial history
      // off as complete.
      const { since } = position;
      let until = position.backfill?.until;
      const seen = new Set<string>();
      for (;;) {
        const page = await exchange.fetchLedger(undefined, since, source.pageSize, { ...source.params, ...(until === undefined ? {} : { until }) });
        const fresh = unseen(page, seen);
        const transactions = newest.saw(fresh.map((entry) => fromLedgerEntry(entry, name, book)));
        const oldest = oldestTime(page);
        // The last page: an empty one; one reaching back to `since`; or a short one holding only
        // entries read already (everything up to the boundary came, and nothing older is left).
        const short = page.length < source.pageSize;
        const last = oldest === undefined || (since !== undefined && oldest <= since) || (short && fresh.length === 0);
        if (!last) until = pagedBack(name, page, fresh.length, until);
        const top = newest.value;
        const resumable = !last && since === undefined && top !== undefined;
        yield { transactions, ...(resumable ? { checkpoint: JSON.stringify({ backfill: { until, top } }) } : {}) };
        if (last) return cursorAfter(previous, newest.value);
      }
    }
    case 'ledger-before-id': {
      // Newest to oldest, each page the entries before the oldest id read: the exchange's own
      // paging, with no time boundary for entries of one millisecond to straddle.
      const list = apiMethod(exchange, source.method);
      const { since } = position;
      let after = position.backfill?.after;
      const seen = new Set<string>();
      for (;;) {
        const answer = (await list({ ...source.params, limit: String(source.pageSize), ...(after === undefined ? {} : { [source.param]: after }) })) as { data?: unknown };
        if (!Array.isArray(answer?.data)) throw new TypeError(`${name}'s ledger answer has no data list`);
        const page = exchange.parseLedger(answer.data) as LedgerEntry[];
        // Entries from before `since` (read by an earlier refresh) are left out of an incremental walk.
        const fresh = unseen(page, seen).filter((entry) => since === undefined || (entry.timestamp ?? 0) >= since);
        const transactions = newest.saw(fresh.map((entry) => fromLedgerEntry(entry, name, book)));
        const ids = page.map((entry) => numericId(name, entry.id));
        const oldestId = ids.length === 0 ? undefined : ids.reduce((a, b) => (b < a ? b : a));
        const oldest = oldestTime(page);
        // A short page is the last; so is one reaching back to `since`.
        const last = oldestId === undefined || page.length < source.pageSize || (since !== undefined && oldest !== undefined && oldest <= since);
        if (!last) {
          // Ids only go down: a page not below the last asked-for id means the exchange ignored it.
          if (after !== undefined && oldestId >= BigInt(after)) throw new Error(`${name}'s ledger did not page back past entry ${after}`);
          after = oldestId.toString();
        }
        const top = newest.value;
        const resumable = !last && since === undefined && top !== undefined;
        yield { transactions, ...(resumable ? { checkpoint: JSON.stringify({ backfill: { after, top } }) } : {}) };
        if (last) return cursorAfter(previous, newest.value);
      }
    }
    case 'ledger-per-account': {
      // A book whose amounts hold their fees marks its cursor so (`feeIncluded`): a cursor without
      // the mark was stored when such fees were read on top of the amounts, and the rows stored
      // then are read again from the beginning, once, to correct them in place.
      const since = book?.feeIncluded && !position.feeIncluded ? undefined : position.since;
      for (const account of await walletsOf(exchange)) {
        // Page by page, newest first. ccxt hands the next page's cursor over on the last entry
        // (and drops entries before `since`, so a page with none left ends the wallet's walk).
        let after: string | undefined;
        do {
          const entries = await exchange.fetchLedger(account.code, since, source.pageSize, { account_id: account.id, ...(after === undefined ? {} : { [source.param]: after }) });
          const next: unknown = entries.at(-1)?.info?.[`next_${source.param}`];
          after = typeof next === 'string' && next !== '' && next !== after ? next : undefined;
          yield { transactions: newest.saw(entries.map((entry) => fromLedgerEntry(entry, name, book))) };
        } while (after !== undefined);
      }
      const top = newest.value;
      if (top === undefined || !book?.feeIncluded) return cursorAfter(previous, top);
      return JSON.stringify({ since: sinceAfter(top), feeIncluded: true });
    }
    case 'transfers':
      return yield* transfersAndTrades(exchange, source, { name, position, newest, held: walk.held });
    case 'records':
      return yield* recordPages(exchange, source, { name, position, newest });
  }
}

/**
 * A ledger of rows with an amount column per currency (Bitstamp), oldest to newest, listed raw and
 * read by us (fromColumnEntry). Each call asks from the newest id read, which the exchange may
 * answer with or without that row (it is left out). Every page leaves that id as its checkpoint
 * and, once a short page ends the walk, as the cursor: so each page must hold the rows after it in
 * rising id order, with none missing in between that a later page could bring. A page that does not
 * rise (an answer newest first, one that ignored the id asked from, rows out of id order) fails the
 * walk: taking its highest id would pass over rows for good.
 */
async function* rowsById(exchange: Exchange, source: Extract<HistorySource, { kind: 'rows-by-id' }>, { name, cursor, position }: { name: string; cursor: string | null; position: HistoryPosition }): TransactionPages {
  const list = apiMethod(exchange, source.method);
  let from = position.fromId === undefined ? undefined : BigInt(position.fromId);
  for (;;) {
    const rows = (await list({ ...source.params, limit: source.pageSize, ...(from === undefined ? {} : { [source.param]: from.toString() }) })) as unknown;
    if (!Array.isArray(rows)) throw new TypeError(`${name}'s ledger answer is no list`);
    const ids = (rows as Record<string, unknown>[]).map((row) => numericId(name, row.id));
    const skip = from !== undefined && ids[0] === from ? 1 : 0;
    const fresh = (rows as Record<string, unknown>[]).slice(skip);
    for (const id of ids.slice(skip)) {
      if (from !== undefined && id <= from) throw new Error(`${name}'s ledger did not list its entries in rising id order after entry ${from}`);
      from = id;
    }
    const last = rows.length < source.pageSize;
    const transactions = fresh.flatMap((row) => fromColumnEntry(row, name, (column) => currencyCode(exchange, column), source.types));
    // Nothing read, ever (an empty account): the stored cursor stays as it was.
    const reached = from === undefined ? cursor : JSON.stringify({ fromId: from.toString() });
    yield { transactions, ...(last || reached === null ? {} : { checkpoint: reached }) };
    if (last) return reached;
  }
}

/** An exchange's numeric id (ccxt hands some over as numbers, some as text) as a bigint; none fails the walk. */
function numericId(name: string, id: unknown): bigint {
  const text = typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : id;
  if (typeof text !== 'string' || !/^\d+$/.test(text)) throw new TypeError(`${name}'s ledger entry has no numeric id`);
  return BigInt(text);
}

/** The oldest time of a page of ledger entries (none for an empty page). */
function oldestTime(page: LedgerEntry[]): number | undefined {
  const times = page.map((entry) => entry.timestamp).filter((time): time is number => typeof time === 'number');
  return times.length === 0 ? undefined : Math.min(...times);
}

/**
 * Where a full page paged back by time leaves the walk: the end time of the next call (ms). Bitfinex
 * and KuCoin do not say whether they read an end time as inclusive. One millisecond past the page's
 * oldest time asks that millisecond again either way: the entries of it the page cut off come next,
 * those read already are left out, and every newer one was on the page (answers are newest first).
 * A page holding an entry at the very end time it was asked for shows the end is inclusive; then
 * the oldest time itself is the next end, so a page filled by two milliseconds read already still
 * moves on. A call that would ask what this one asked, on a page of nothing new, means a page's
 * worth share the boundary time, or the exchange ignored `until`: stepping past that time would skip
 * whatever else it holds there, so the walk fails rather than pass a partial ledger off as complete.
 */
function pagedBack(name: string, page: LedgerEntry[], fresh: number, asked: number | undefined): number {
  const oldest = oldestTime(page);
  const inclusive = asked !== undefined && page.some((entry) => entry.timestamp === asked);
  const next = oldest === undefined ? undefined : inclusive ? oldest : oldest + 1;
  if (next === undefined || (fresh === 0 && (asked === undefined || next >= asked))) {
    throw new Error(`${name}'s ledger did not page back past ${oldest === undefined ? 'its newest page' : new Date(oldest).toISOString()}`);
  }
  return next;
}

/** How many quiet windows in a row a walk by windows reads before it leaves a checkpoint all the same. */
const QUIET_WINDOWS = 30;

/**
 * A pending record holds a records walk's cursor for this long at most: one whose status never
 * changes (a status we do not know as final, such as Binance's fiat "Refund Failed") would
 * otherwise have every later refresh read from its time on. Past it, the record stays pending.
 */
const HOLD_DAYS = 30;

/**
 * A ledger the exchange answers one window a call (`span` ms; KuCoin: a day) and keeps `horizon`
 * ms of (a year): walked window by window from now back to the horizon, or to the cursor's time.
 * An empty window is a quiet day, not the end; inside a window, a full page moves its end back to
 * the oldest time read (pagedBack), as the walk by `until` does. Every window with entries leaves a
 * checkpoint, and every 30th quiet one. The walk's
 * start counts as the newest time it read: its cursor is the start less the overlap, whether or
 * not anything was read, so a quiet account's next refresh reads a day or two, not the year again.
 * A cursor without `windowed` predates the windows (that walk ended at the first quiet day): it is
 * read afresh once.
 */
async function* windowPages(
  exchange: Exchange,
  source: Extract<HistorySource, { kind: 'ledger-until' }> & { window: { span: number; horizon: number } },
  { name, position, newest, book }: { name: string; position: HistoryPosition; newest: Newest; book: Book | undefined },
): TransactionPages {
  const since = position.windowed ? position.since : undefined;
  const start = exchange.milliseconds();
  const floor = Math.max(since ?? 0, start - source.window.horizon);
  if (!position.backfill) newest.value = Math.max(newest.value ?? 0, Math.floor(start / 1000));
  let until = position.backfill?.until ?? start;
  let quiet = 0;
  const seen = new Set<string>();
  for (;;) {
    const from = Math.max(until - source.window.span, floor);
    const page = await exchange.fetchLedger(undefined, from, source.pageSize, { ...source.params, until });
    const fresh = unseen(page, seen);
    const transactions = newest.saw(fresh.map((entry) => fromLedgerEntry(entry, name, book)));
    if (page.length < source.pageSize) {
      if (from <= floor) {
        yield { transactions };
        return JSON.stringify({ since: sinceAfter(newest.value as number), windowed: true });
      }
      // The window is read: the next ends one millisecond past where it began, so that
      // millisecond is asked again however KuCoin reads its start and end times.
      until = from + 1;
    } else until = pagedBack(name, page, fresh.length, until);
    // Quiet windows are passed over without a page of their own (each stored page is a database
    // transaction), but never more than QUIET_WINDOWS in a row: a walk cut short loses that many
    // calls at most.
    quiet = transactions.length === 0 ? quiet + 1 : 0;
    if (quiet > 0 && quiet < QUIET_WINDOWS) continue;
    quiet = 0;
    yield { transactions, checkpoint: JSON.stringify({ ...(since === undefined ? {} : { since }), windowed: true, backfill: { until, top: newest.value } }) };
  }
}

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
async function* recordPages(
  exchange: Exchange,
  source: Extract<HistorySource, { kind: 'records' }>,
  { name, position, newest }: { name: string; position: HistoryPosition; newest: Newest },
): TransactionPages {
  const begin = position.since ?? source.earliest;
  const resumed = position.ranges;
  let hold = resumed?.hold;
  const checkpoint = (at: { list: number; from: number; until?: number; page?: number }) => ({
    transactions: [],
    checkpoint: JSON.stringify({
      ...(position.since === undefined ? {} : { since: position.since }),
      ranges: { ...at, ...(newest.value === undefined ? {} : { top: newest.value }), ...(hold === undefined ? {} : { hold }) },
    }),
  });
  for (const [index, list] of source.lists.entries()) {
    if (resumed?.list !== undefined && index < resumed.list) continue;
    const here = resumed !== undefined && (resumed.list === undefined || resumed.list === index) ? resumed : undefined;
    const now = exchange.milliseconds();
    // A range left between two pages goes on at its page, up to the end it had then (unless it
    // now starts past what the exchange keeps: then it is read again from there).
    const part = here?.until !== undefined && here.page !== undefined && here.from >= horizonOf(source, list, now) ? { from: here.from, until: here.until, page: here.page } : undefined;
    const ranges: (TimeRange & { page?: number })[] = part ? [part, ...recordRanges(source, list, part.until + 1, now)] : recordRanges(source, list, here?.from ?? begin, now);
    const size = list.paging?.pageSize ?? source.pageSize;
    let quiet = 0;
    for (const [i, range] of ranges.entries()) {
      let read = 0;
      let page = range.page ?? 1;
      for await (const rows of recordRows(exchange, list, range, size, page)) {
        const transactions = rows.flatMap((row) => legsOf(row, list)).map((row) => fromRecord(row, list, currencyCode(exchange, row[list.fields.asset]), name));
        for (const tx of transactions) if (tx.status === 'pending' && tx.occurredAt * 1000 > now - HOLD_DAYS * DAY_MS) hold = Math.min(hold ?? Infinity, tx.occurredAt * 1000);
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
  const since = nextSince(exchange, position, newest);
  return JSON.stringify({ since: hold === undefined ? since : Math.min(since, hold) });
}

/** One range of a record list, page by page (`size` rows) from `page`, or by halves where the list has no pages. */
function recordRows(exchange: Exchange, list: RecordList, range: TimeRange, size: number, page: number): AsyncGenerator<Record<string, unknown>[]> {
  const bounds = (r: TimeRange) => ({ ...list.params, [list.range?.start ?? 'startTime']: r.from, [list.range?.end ?? 'endTime']: r.until });
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
  return (detail as Record<string, unknown>[]).map((leg) => ({ ...row, [list.fields.asset]: leg[legs.asset], [list.fields.amount]: `-${unsigned(String(leg[legs.amount]))}` }));
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

/**
 * The cursor's time after a walk of ranges up to now: a day before the newest time read or, with
 * nothing read, the cursor's time or a day before now — not the beginning again.
 */
function nextSince(exchange: Exchange, position: HistoryPosition, newest: Newest): number {
  return newest.value !== undefined ? sinceAfter(newest.value) : (position.since ?? sinceAfter(Math.floor(exchange.milliseconds() / 1000)));
}

type TransferPaging = NonNullable<Extract<HistorySource, { kind: 'transfers' }>['paging']>;

/**
 * Deposits and withdrawals (range by range where the exchange answers for a bounded range only),
 * then, where the row says how, trades market by market. Each range and each page of trades leaves
 * a checkpoint (`walk`: what is still to read), so a first walk — 40 ranges and hundreds of markets
 * on Binance, at its pace — goes on across jobs.
 */
async function* transfersAndTrades(
  exchange: Exchange,
  source: Extract<HistorySource, { kind: 'transfers' }>,
  { name, position, newest, held }: { name: string; position: HistoryPosition; newest: Newest; held: () => Promise<string[]> },
): TransactionPages {
  const assets = new Set(position.assets);
  const trades = { ...position.trades };
  const checked = new Set(position.walk?.checked);
  let converted = position.converted === true;
  const known = () => ({ ...(source.trades ? { assets: [...assets].sort(), trades } : {}), ...(converted ? { converted } : {}) });
  const checkpoint = (walk: Omit<NonNullable<HistoryPosition['walk']>, 'checked' | 'top'>) =>
    JSON.stringify({ ...(position.since === undefined ? {} : { since: position.since }), ...known(), walk: { ...walk, checked: [...checked].sort(), top: newest.value } });
  // Only transfers move the cursor's time: a deposit still pending must be read again until it
  // completes, however many trades come after it.
  const seen = (transactions: ProviderTransaction[], moving: 'transfers' | 'trades') => {
    for (const tx of transactions) assets.add(tx.asset);
    return moving === 'transfers' ? newest.saw(transactions) : transactions;
  };

  const window = source.window;
  const resumeFrom = position.walk ? position.walk.transfersFrom : (position.since ?? window?.earliest);
  if (!window) {
    if (!position.walk) for await (const page of transferPages(exchange, name, position.since, source.paging)) yield { transactions: seen(page, 'transfers') };
  } else if (resumeFrom !== undefined) {
    // Range by range up to now: each call covers `days` from its start (ccxt sets the end).
    const span = window.days * DAY_MS;
    for (let from = Math.max(resumeFrom, window.earliest); from < exchange.milliseconds(); from += span) {
      for await (const page of transferPages(exchange, name, from, source.paging)) yield { transactions: seen(page, 'transfers') };
      yield { transactions: [], checkpoint: checkpoint({ transfersFrom: from + span }) };
    }
  }
  // The transfers are done: the checkpoints below say so by carrying no `transfersFrom`.

  // Conversions (Binance Convert and its dust log), range by range like the transfers. Their
  // checkpoints carry `convertsFrom`; every cursor after them says `converted`. A cursor without
  // it predates them: they are read from the beginning once.
  const conversions = source.conversions;
  const inTrades = position.walk !== undefined && position.walk.transfersFrom === undefined;
  const convertsFrom = position.walk?.convertsFrom ?? (!converted ? conversions?.earliest : inTrades ? undefined : (position.since ?? conversions?.earliest));
  if (conversions && convertsFrom !== undefined) {
    const convert = (r: TimeRange) => exchange.fetchConvertTradeHistory(undefined, r.from, conversions.pageSize, { until: r.until });
    const dust = conversions.dust && { ...conversions.dust, read: dustLog(exchange, name, conversions.dust.method) };
    const span = conversions.days * DAY_MS;
    for (let from = Math.max(convertsFrom, conversions.earliest); from < exchange.milliseconds(); from += span) {
      const range = { from, until: Math.min(from + span, exchange.milliseconds()) };
      for await (const page of byHalves(range, conversions.pageSize, convert, `${name}'s Convert history`)) yield { transactions: seen(page.flatMap((c) => fromConversion(c, name)), 'transfers') };
      if (dust && range.until >= dust.earliest) {
        for await (const page of byHalves({ from: Math.max(range.from, dust.earliest), until: range.until }, dust.max, dust.read, `${name}'s dust log`)) {
          yield { transactions: seen(page.flatMap((c) => fromDust(c, name)), 'transfers') };
        }
      }
      yield { transactions: [], checkpoint: checkpoint({ convertsFrom: from + span }) };
    }
  }
  if (conversions) converted = true;

  const paging = source.trades;
  if (paging) {
    // Every trade spends an asset the account had: held now, held at an earlier refresh, moved
    // in or out, or got by another trade. So the markets of those assets, widened by each trade
    // found until nothing new turns up, hold every trade, without asking about all of them.
    for (const asset of await held()) assets.add(asset);
    // A trade's place in its market's order: its id, or its time (ms).
    const placeOf = (trade: Trade) => (paging.by === 'id' ? (trade.id !== undefined && /^\d+$/.test(trade.id) ? BigInt(trade.id) : undefined) : trade.timestamp === undefined ? undefined : BigInt(trade.timestamp));
    const spot = Object.values(exchange.markets as Record<string, MarketInterface>).filter((m) => m.spot && m.id !== undefined);
    for (;;) {
      const due = spot.filter((m) => !checked.has(m.symbol) && (assets.has(m.base) || assets.has(m.quote))).sort((a, b) => a.symbol.localeCompare(b.symbol));
      if (due.length === 0) break;
      for (const market of due) {
        for (;;) {
          const last = trades[market.symbol];
          const from = last === undefined ? 0n : BigInt(last) + 1n;
          const page = await exchange.fetchMyTrades(market.symbol, undefined, paging.pageSize, { [paging.param]: paging.by === 'id' ? from.toString() : Number(from) });
          // Only trades from `from` on count: an exchange that ignored the parameter cannot make us loop.
          const fresh = page.filter((trade) => (placeOf(trade) ?? -1n) >= from && trade.id !== undefined);
          const transactions = fresh.flatMap((trade) => fromTrade(trade, { id: market.id as string, base: market.base, quote: market.quote }, name));
          for (const trade of fresh) if ((placeOf(trade) as bigint) > BigInt(trades[market.symbol] ?? -1)) trades[market.symbol] = String(placeOf(trade));
          // Pages by id end short; Gemini's time pages end empty (its documented walk).
          const done = fresh.length === 0 || (paging.by === 'id' && page.length < paging.pageSize);
          if (done) checked.add(market.symbol);
          yield { transactions: seen(transactions, 'trades'), checkpoint: checkpoint({}) };
          if (done) break;
        }
      }
    }
  }
  // With no transfer at all, the next refresh still starts from now (less the overlap), not from
  // the beginning of the exchange again.
  return JSON.stringify({ since: nextSince(exchange, position, newest), ...known() });
}

/** A time range, ms, both ends included. */
interface TimeRange {
  from: number;
  until: number;
}

/**
 * A list the exchange answers for a bounded range only, `max` items at most and with no paging of
 * its own (Binance's Convert history and dust log): a range answering `max` is read again as two
 * halves, down to one millisecond, so nothing is cut off whatever order the exchange lists in. A
 * millisecond answering `max` fails the walk.
 */
async function* byHalves<T>(range: TimeRange, max: number, read: (range: TimeRange) => Promise<T[]>, what: string): AsyncGenerator<T[]> {
  const items = await read(range);
  if (items.length < max) {
    yield items;
    return;
  }
  if (range.until <= range.from) throw new Error(`${what} holds more than ${max} entries at ${new Date(range.from).toISOString()}`);
  const middle = Math.floor((range.from + range.until) / 2);
  yield* byHalves({ from: range.from, until: middle }, max, read, what);
  yield* byHalves({ from: middle + 1, until: range.until }, max, read, what);
}

/** Reads one range of Binance's dust log through the ccxt API method `method`. */
function dustLog(exchange: Exchange, name: string, method: string): (range: TimeRange) => Promise<DustConversion[]> {
  const call = apiMethod(exchange, method);
  return async (range) => {
    const answer = (await call({ startTime: range.from, endTime: range.until })) as { userAssetDribblets?: unknown };
    if (!Array.isArray(answer?.userAssetDribblets)) throw new TypeError(`${name}'s dust log answer has no list`);
    return answer.userAssetDribblets as DustConversion[];
  };
}

/**
 * Deposits, then withdrawals (or both in one list), from `since`; page by page where the exchange
 * pages them (`paging`).
 */
async function* transferPages(exchange: Exchange, name: string, since: number | undefined, paging: TransferPaging | undefined): AsyncGenerator<ProviderTransaction[]> {
  const lists =
    exchange.has.fetchDeposits && exchange.has.fetchWithdrawals
      ? [exchange.fetchDeposits.bind(exchange), exchange.fetchWithdrawals.bind(exchange)]
      : [exchange.fetchDepositsWithdrawals.bind(exchange)];
  for (const list of lists) {
    const seen = new Set<string>();
    let offset = 0;
    let from = since ?? 0;
    for (;;) {
      const params = !paging ? {} : { [paging.param]: paging.by === 'offset' ? offset : from };
      const page = await list(undefined, since, paging?.pageSize, params);
      // A transfer without an id is kept: fromTransfer refuses it, failing the refresh.
      const fresh = page.filter((t) => t.id === undefined || !seen.has(t.id));
      for (const t of fresh) if (t.id !== undefined) seen.add(t.id);
      yield fresh.map((t) => fromTransfer(t, name));
      if (!paging || fresh.length === 0) break;
      if (paging.by === 'offset') {
        // A short page is the last.
        if (page.length < paging.pageSize) break;
        offset += paging.pageSize;
      } else {
        from = Math.max(...fresh.map((t) => t.timestamp ?? from)) + 1;
      }
    }
  }
}

/** The ledger entries of a page not seen before in this walk (now seen); an entry without an id is left out. */
function unseen<T extends { id?: string | undefined }>(page: T[], seen: Set<string>): T[] {
  const fresh = page.filter((record) => record.id !== undefined && !seen.has(record.id));
  for (const record of fresh) seen.add(record.id as string);
  return fresh;
}

/** The newest time (seconds) of the transactions a walk read, from where an earlier run left it. */
class Newest {
  constructor(public value: number | undefined) {}

  saw(transactions: ProviderTransaction[]): ProviderTransaction[] {
    for (const tx of transactions) this.value = Math.max(this.value ?? tx.occurredAt, tx.occurredAt);
    return transactions;
  }
}

/**
 * How far before the newest entry already read the next refresh starts again: entries an exchange
 * books late, and deposits that change status, show up within it. Re-read entries are the same
 * rows (upserted on the exchange id).
 */
const HISTORY_OVERLAP_SECONDS = 86_400;

/** The time (ms, whole seconds) the next refresh reads from, after reading up to `newestSeconds`. */
const sinceAfter = (newestSeconds: number) => (newestSeconds - HISTORY_OVERLAP_SECONDS) * 1000;

/** The cursor we store: where the next refresh reads from; the previous one when nothing was read. */
function cursorAfter(previous: string | null, newestSeconds: number | undefined): string | null {
  return newestSeconds === undefined ? previous : JSON.stringify({ since: sinceAfter(newestSeconds) });
}

/**
 * Where a stored cursor says to read:
 * - `since` (ms): from then on, after a complete walk;
 * - `backfill`: the rest of an unfinished ledger walk, newest to oldest: entries up to `end`
 *   (seconds, inclusive: offset-paged ledgers), up to `until` (ms, the next call's end time: ledgers paged back
 *   by time) or before the entry `after` (ledgers paged back by id); `top` the newest time it read;
 * - `trades` (per market symbol, the id or time of the last trade read) and `assets` (every asset the
 *   account is known to have had): for exchanges whose trades are read market by market;
 * - `walk`: the rest of an unfinished transfers-and-trades walk (ranges from `transfersFrom`, ms,
 *   absent once they are done; then conversion ranges from `convertsFrom`, likewise; the markets
 *   `checked` already; `top` the newest time it read);
 * - `converted`: the conversions were read (a walk that has them), so later walks read them from
 *   `since` only.
 * Nothing (everything) for no cursor or one we cannot read.
 */
export interface HistoryPosition {
  since?: number;
  backfill?: { end?: number; until?: number; after?: string; top: number };
  trades?: Record<string, string>;
  assets?: string[];
  walk?: { transfersFrom?: number; convertsFrom?: number; checked: string[]; top?: number };
  converted?: boolean;
  /** The cursor of a walk by windows (see windowPages). */
  windowed?: boolean;
  /**
   * An unfinished walk of record ranges: the list being read (none: every list) and its next
   * range's start, the newest time read, the oldest pending record's time, ms; within a range, its
   * end and the page to go on with (see recordPages).
   */
  ranges?: { from: number; list?: number; top?: number; hold?: number; until?: number; page?: number };
  /** A walk forward by id (see rowsById): the newest id read. */
  fromId?: string;
  /** Read with the fee inside the amounts, where a book says so (see the walk of `ledger-per-account`). */
  feeIncluded?: boolean;
}

const whole = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

function tradeIds(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const entries = Object.entries(value);
  return entries.every(([, id]) => typeof id === 'string' && /^\d+$/.test(id)) ? (Object.fromEntries(entries) as Record<string, string>) : undefined;
}

export function positionOf(cursor: string | null): HistoryPosition {
  if (cursor === null) return {};
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(cursor) as Record<string, unknown>;
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const position: HistoryPosition = {};
  if (whole(parsed.since)) position.since = parsed.since;
  if (typeof parsed.fromId === 'string' && /^\d+$/.test(parsed.fromId)) position.fromId = parsed.fromId;
  const backfill = parsed.backfill as { end?: unknown; until?: unknown; after?: unknown; top?: unknown } | undefined;
  if (parsed.windowed === true) position.windowed = true;
  const ranges = parsed.ranges as { from?: unknown; list?: unknown; top?: unknown; hold?: unknown; until?: unknown; page?: unknown } | undefined;
  if (whole(ranges?.from)) {
    const list = ranges.list;
    const listed = typeof list === 'number' && Number.isSafeInteger(list) && list >= 0;
    position.ranges = {
      from: ranges.from,
      ...(listed ? { list } : {}),
      ...(whole(ranges.top) ? { top: ranges.top } : {}),
      ...(whole(ranges.hold) ? { hold: ranges.hold } : {}),
      // A place within a range is one list's.
      ...(listed && whole(ranges.until) && whole(ranges.page) && ranges.until >= ranges.from ? { until: ranges.until, page: ranges.page } : {}),
    };
  }
  // A walk by windows resumes an incremental walk too: its checkpoint keeps the cursor's time.
  if ((position.since === undefined || position.windowed) && whole(backfill?.top)) {
    if (whole(backfill.end)) position.backfill = { end: backfill.end, top: backfill.top };
    else if (whole(backfill.until)) position.backfill = { until: backfill.until, top: backfill.top };
    else if (typeof backfill.after === 'string' && /^\d+$/.test(backfill.after)) position.backfill = { after: backfill.after, top: backfill.top };
  }
  const trades = tradeIds(parsed.trades);
  if (trades) position.trades = trades;
  if (strings(parsed.assets)) position.assets = parsed.assets;
  if (parsed.converted === true) position.converted = true;
  if (parsed.feeIncluded === true) position.feeIncluded = true;
  const walk = parsed.walk as { transfersFrom?: unknown; convertsFrom?: unknown; checked?: unknown; top?: unknown } | undefined;
  const absentOrWhole = (value: unknown) => value === undefined || whole(value);
  if (walk && strings(walk.checked) && absentOrWhole(walk.transfersFrom) && absentOrWhole(walk.convertsFrom) && absentOrWhole(walk.top)) {
    position.walk = {
      checked: walk.checked,
      ...(whole(walk.transfersFrom) ? { transfersFrom: walk.transfersFrom } : {}),
      ...(whole(walk.convertsFrom) ? { convertsFrom: walk.convertsFrom } : {}),
      ...(whole(walk.top) ? { top: walk.top } : {}),
    };
  }
  return position;
}
