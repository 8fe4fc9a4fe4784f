import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * The history cursor: where a walk of an exchange's history goes on from, stored as JSON text on
 * the account (`transaction_cursor`) and in each page's checkpoint. Each walk has its own form,
 * one schema each below; in memory a cursor is tagged with its walk (`kind`), stored it is not:
 * the walk is the row's, and the stored text stays what the walks have always written, so
 * cursors stored by earlier versions decode as they are (each form they wrote is one of these:
 * docs/exchanges.md names them with the walks).
 *
 * A stored cursor that is not one of its walk's forms (not JSON, a field of another walk, a field
 * of the wrong type) is a StoredCursorError naming the exchange, the walk and the field: the
 * refresh fails with it (the job logs it), rather than read some other position into it.
 */

/** A time (ms or s) or a count: a whole number above zero. */
const Whole = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
/** An exchange's id written as text, digits only. */
const Digits = Type.String({ pattern: '^\\d+$' });
/** The next refresh reads from this time (ms): the walk was complete. */
const Since = Type.Optional(Whole);
const only = { additionalProperties: false } as const;
/** The rest of an unfinished walk newest to oldest: its boundary (below) and the newest time it read (s). */
const backfill = <B extends Record<string, TSchema>>(boundary: B) => Type.Optional(Type.Object({ ...boundary, top: Whole }, only));

const CURSORS = {
  /** `since`, or an unfinished walk: entries up to `end` (s, inclusive). */
  'ledger-offset': Type.Object({ since: Since, backfill: backfill({ end: Whole }) }, only),
  /** The newest id read; a `since` is the walk by time's before it (read from the beginning, once). */
  'rows-by-id': Type.Object({ fromId: Type.Optional(Digits), since: Since }, only),
  /** `since`, or an unfinished walk: the next call's end time `until` (ms). */
  'ledger-until': Type.Object({ since: Since, backfill: backfill({ until: Whole }) }, only),
  /** As ledger-until, marked `windowed` (a cursor without it predates the windows: read afresh, once); a checkpoint keeps `since`. */
  'ledger-windows': Type.Object({ since: Since, windowed: Type.Optional(Type.Literal(true)), backfill: backfill({ until: Whole }) }, only),
  /** `since`, or an unfinished walk: the entries before the entry `after`. */
  'ledger-before-id': Type.Object({ since: Since, backfill: backfill({ after: Digits }) }, only),
  /** `since`; `feeIncluded` where the book reads fees inside the amounts (without it, read again from the beginning, once). */
  'ledger-per-account': Type.Object({ since: Since, feeIncluded: Type.Optional(Type.Literal(true)) }, only),
  /**
   * `since`, the assets known and the last trade (id or time) per market, `converted` once the
   * conversions were read; an unfinished walk's `walk`: its ranges still to read (transfers,
   * then conversions), the markets checked, the newest time read (s).
   */
  transfers: Type.Object(
    {
      since: Since,
      assets: Type.Optional(Type.Array(Type.String())),
      trades: Type.Optional(Type.Record(Type.String(), Digits)),
      converted: Type.Optional(Type.Literal(true)),
      walk: Type.Optional(
        Type.Object(
          {
            transfersFrom: Type.Optional(Whole),
            convertsFrom: Type.Optional(Whole),
            checked: Type.Array(Type.String()),
            top: Type.Optional(Whole),
          },
          only,
        ),
      ),
    },
    only,
  ),
  /**
   * `since`; an unfinished walk's `ranges`: the list being read (none: every list, a checkpoint
   * from before lists had ranges of their own) and its next range's start, within a range its end
   * and the page to go on with, the newest time read (s) and the oldest pending record's time (ms).
   */
  records: Type.Object(
    {
      since: Since,
      ranges: Type.Optional(
        Type.Object(
          {
            list: Type.Optional(Type.Integer({ minimum: 0 })),
            from: Whole,
            until: Type.Optional(Whole),
            page: Type.Optional(Whole),
            top: Type.Optional(Whole),
            hold: Type.Optional(Whole),
          },
          only,
        ),
      ),
    },
    only,
  ),
};

/** The walks, each with a cursor form of its own. */
export type WalkKind = keyof typeof CURSORS;

/** A decoded cursor, tagged with its walk. */
export type HistoryCursor = { [K in WalkKind]: { kind: K } & Static<(typeof CURSORS)[K]> }[WalkKind];

/** The cursor of one walk. */
export type CursorOf<K extends WalkKind> = Extract<HistoryCursor, { kind: K }>;

/** One cursor per book, and the book a checkpoint was taken in. */
const BOOKS = Type.Object(
  { books: Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()])), at: Type.Optional(Type.String()) },
  only,
);

/** A stored cursor that is not one of its walk's forms. */
export class StoredCursorError extends Error {
  constructor(exchange: string, walk: string, why: string) {
    super(`${exchange}'s stored history cursor is not one of the ${walk} walk's: ${why}`);
    this.name = 'StoredCursorError';
  }
}

/** The JSON object a stored cursor holds. */
function parsed(stored: string, exchange: string, walk: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    throw new StoredCursorError(exchange, walk, 'it is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new StoredCursorError(exchange, walk, 'it is not a JSON object');
  return value as Record<string, unknown>;
}

/** Why `value` does not fit `schema`: the first field that does not, and how. */
function misfit(schema: TSchema, value: unknown): string {
  const first = Value.Errors(schema, value).First();
  return first ? `${first.path || '/'} ${first.message}` : 'it does not fit';
}

/** A walk's stored cursor, decoded; none (null) is the empty cursor: everything is read. */
export function decodeCursor<K extends WalkKind>(kind: K, stored: string | null, exchange: string): CursorOf<K> {
  if (stored === null) return { kind } as CursorOf<K>;
  const value = parsed(stored, exchange, kind);
  const schema = CURSORS[kind];
  if (!Value.Check(schema, value)) throw new StoredCursorError(exchange, kind, misfit(schema, value));
  return { kind, ...value } as CursorOf<K>;
}

/** A cursor as stored: its fields in the order they were set, without the tag. */
export function encodeCursor(cursor: HistoryCursor): string {
  const { kind, ...stored } = cursor;
  // A cursor we cannot read back would fail every later refresh: refuse to write one.
  if (!Value.Check(CURSORS[kind], stored))
    throw new TypeError(`a ${kind} cursor that does not fit its form: ${misfit(CURSORS[kind], stored)}`);
  return JSON.stringify(stored);
}

/**
 * The books' cursors in a stored cursor (none: each book from the beginning), and the book a
 * checkpoint was taken in. A cursor of the one-book form (an object without `books`, stored while
 * one book walked) is `former`'s, where a book says so; else no book's (each reads from the
 * beginning), as the row decided when it gained books.
 */
export function decodeBooks(
  stored: string | null,
  exchange: string,
  former?: string,
): { cursors: Record<string, string | null>; at?: string } {
  if (stored === null) return { cursors: {} };
  const value = parsed(stored, exchange, 'books');
  if (!('books' in value)) return { cursors: former === undefined ? {} : { [former]: stored } };
  if (!Value.Check(BOOKS, value)) throw new StoredCursorError(exchange, 'books', misfit(BOOKS, value));
  return { cursors: value.books, ...(value.at === undefined ? {} : { at: value.at }) };
}

/** The books' cursors as stored, with the book being walked (`at`) in a checkpoint. */
export function encodeBooks(cursors: Record<string, string | null>, at?: string): string {
  return JSON.stringify({ books: cursors, ...(at === undefined ? {} : { at }) });
}
