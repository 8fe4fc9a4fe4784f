import type { Exchange, LedgerEntry } from 'ccxt';
import type { Book, HistorySource } from '../exchanges/row.js';
import type { ProviderTransaction, TransactionPages } from '../provider.js';
import { decodeCursor, encodeCursor, type CursorOf, type WalkKind } from './cursor.js';

/** What a history walk knows of the account: the exchange's name, the stored cursor, the assets held. */
export interface Walk {
  name: string;
  cursor: string | null;
  /** The assets held now (read only by walks that need them). */
  held: () => Promise<string[]>;
}

/**
 * One walk of an exchange's history (one book's, where there are several), page by page from the
 * walk's stored cursor; returns the cursor the next refresh reads from.
 */
export type WalkPages<K extends HistorySource['kind']> = (
  exchange: Exchange,
  source: Extract<HistorySource, { kind: K }>,
  walk: Walk,
  book?: Book,
) => TransactionPages;

/** The walk's stored cursor, decoded (a StoredCursorError where it is not one of the walk's forms). */
export function cursorOf<K extends WalkKind>(kind: K, walk: Walk): CursorOf<K> {
  return decodeCursor(kind, walk.cursor, walk.name);
}

/**
 * Where a ledger walk newest to oldest starts from its stored cursor: from `since` (an incremental
 * walk), or at the rest of an unfinished whole walk (`backfill`), knowing the newest time that walk
 * read; and the cursor to keep should nothing be read (an unfinished walk's checkpoint is no
 * cursor to keep once it is done).
 */
export function ledgerStart<K extends keyof Backfills>(
  kind: K,
  walk: Walk,
): { since: number | undefined; backfill: Backfills[K] | undefined; newest: Newest; previous: string | null } {
  // Each of these walks' cursors is `since` or a `backfill` (cursor.ts): read here as that pair.
  const cursor = cursorOf(kind, walk) as { since?: number; backfill?: Backfills[K] };
  const { since } = cursor;
  const backfill = since === undefined ? cursor.backfill : undefined;
  return { since, backfill, newest: new Newest(backfill?.top), previous: since === undefined ? null : walk.cursor };
}

/** The unfinished walk of each ledger walked newest to oldest: its boundary and the newest time read. */
type Backfills = { [K in 'ledger-offset' | 'ledger-until' | 'ledger-before-id']: NonNullable<CursorOf<K>['backfill']> };

/** The ledger entries of a page not seen before in this walk (now seen); an entry without an id is left out. */
export function unseen<T extends { id?: string | undefined }>(page: T[], seen: Set<string>): T[] {
  const fresh = page.filter((record) => record.id !== undefined && !seen.has(record.id));
  for (const record of fresh) seen.add(record.id as string);
  return fresh;
}

/** The newest time (seconds) of the transactions a walk read, from where an earlier run left it. */
export class Newest {
  constructor(public value: number | undefined) {}

  saw(transactions: ProviderTransaction[]): ProviderTransaction[] {
    for (const tx of transactions) this.value = Math.max(this.value ?? tx.occurredAt, tx.occurredAt);
    return transactions;
  }
}

/** An exchange's numeric id (ccxt hands some over as numbers, some as text) as a bigint; none fails the walk. */
export function numericId(name: string, id: unknown): bigint {
  const text = typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : id;
  if (typeof text !== 'string' || !/^\d+$/.test(text)) throw new TypeError(`${name}'s ledger entry has no numeric id`);
  return BigInt(text);
}

/** The oldest time of a page of ledger entries (none for an empty page). */
export function oldestTime(page: LedgerEntry[]): number | undefined {
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
export function pagedBack(name: string, page: LedgerEntry[], fresh: number, asked: number | undefined): number {
  const oldest = oldestTime(page);
  const inclusive = asked !== undefined && page.some((entry) => entry.timestamp === asked);
  const next = oldest === undefined ? undefined : inclusive ? oldest : oldest + 1;
  if (next === undefined || (fresh === 0 && (asked === undefined || next >= asked))) {
    throw new Error(`${name}'s ledger did not page back past ${oldest === undefined ? 'its newest page' : new Date(oldest).toISOString()}`);
  }
  return next;
}

/** How many quiet windows (or ranges) in a row a walk reads before it leaves a checkpoint all the same. */
export const QUIET_WINDOWS = 30;

/**
 * How far before the newest entry already read the next refresh starts again: entries an exchange
 * books late, and deposits that change status, show up within it. Re-read entries are the same
 * rows (upserted on the exchange id).
 */
const HISTORY_OVERLAP_SECONDS = 86_400;

/** The time (ms, whole seconds) the next refresh reads from, after reading up to `newestSeconds`. */
export const sinceAfter = (newestSeconds: number) => (newestSeconds - HISTORY_OVERLAP_SECONDS) * 1000;

/** The cursor a ledger walk stores: where the next refresh reads from; the previous one when nothing was read. */
export function cursorAfter(
  kind: 'ledger-offset' | 'ledger-until' | 'ledger-before-id' | 'ledger-per-account',
  previous: string | null,
  newestSeconds: number | undefined,
): string | null {
  return newestSeconds === undefined ? previous : encodeCursor({ kind, since: sinceAfter(newestSeconds) });
}

/**
 * The cursor's time after a walk of ranges up to now: a day before the newest time read or, with
 * nothing read, the cursor's time or a day before now — not the beginning again.
 */
export function nextSince(exchange: Exchange, since: number | undefined, newest: Newest): number {
  return newest.value !== undefined ? sinceAfter(newest.value) : (since ?? sinceAfter(Math.floor(exchange.milliseconds() / 1000)));
}

/** A time range, ms, both ends included. */
export interface TimeRange {
  from: number;
  until: number;
}

/**
 * A list the exchange answers for a bounded range only, `max` items at most and with no paging of
 * its own (Binance's Convert history and dust log): a range answering `max` is read again as two
 * halves, down to one millisecond, so nothing is cut off whatever order the exchange lists in. A
 * millisecond answering `max` fails the walk.
 */
export async function* byHalves<T>(
  range: TimeRange,
  max: number,
  read: (range: TimeRange) => Promise<T[]>,
  what: string,
): AsyncGenerator<T[]> {
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
