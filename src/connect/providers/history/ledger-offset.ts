import { fromLedgerEntry } from '../ccxt-records.js';
import { encodeCursor } from './cursor.js';
import { cursorAfter, ledgerStart, unseen, type WalkPages } from './walk.js';

/**
 * The ledger, page by page with an offset (Kraken). A whole-history walk (no `since`) goes newest
 * to oldest; where the exchange takes an end time (`source.end`), after each page it leaves a
 * checkpoint: the oldest time read (as the inclusive end of the rest, which entries booked
 * meanwhile cannot shift, unlike offsets) and the newest (for the cursor once done).
 */
export const ledgerOffsetPages: WalkPages<'ledger-offset'> = async function* (exchange, source, walk, book) {
  const { name } = walk;
  const { since, backfill, newest, previous } = ledgerStart('ledger-offset', walk);
  const endParam = source.end;
  const end = endParam === undefined ? undefined : backfill?.end;
  let oldest: number | undefined;
  const seen = new Set<string>();
  for (let offset = 0; ; offset += source.pageSize) {
    const page = await exchange.fetchLedger(undefined, since, source.pageSize, {
      [source.param]: offset,
      ...(end === undefined || endParam === undefined ? {} : { [endParam]: end }),
    });
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
    yield {
      transactions,
      ...(resumable ? { checkpoint: encodeCursor({ kind: 'ledger-offset', backfill: { end: (oldest as number) + 1, top } }) } : {}),
    };
    if (last) return cursorAfter('ledger-offset', previous, newest.value);
  }
};
