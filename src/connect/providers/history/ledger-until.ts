import { fromLedgerEntry } from '../ccxt-records.js';
import { encodeCursor } from './cursor.js';
import { cursorAfter, ledgerStart, oldestTime, pagedBack, unseen, type WalkPages } from './walk.js';

/**
 * The ledger newest to oldest, each page ending at the oldest time read so far (ccxt's `until`, ms;
 * see pagedBack for the millisecond past it: entries of that millisecond are asked again and
 * de-duplicated). This is ccxt's own backward pagination, walked here page by page with
 * checkpoints, and without its silent stop after ten calls (`paginationCalls`), which would pass a
 * partial history off as complete. An exchange answering a bounded window a call walks by windows
 * instead (ledger-windows.ts).
 */
export const ledgerUntilPages: WalkPages<'ledger-until'> = async function* (exchange, source, walk, book) {
  const { name } = walk;
  const { since, backfill, newest, previous } = ledgerStart('ledger-until', walk);
  let until = backfill?.until;
  const seen = new Set<string>();
  for (;;) {
    const page = await exchange.fetchLedger(undefined, since, source.pageSize, {
      ...source.params,
      ...(until === undefined ? {} : { until }),
    });
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
    yield {
      transactions,
      ...(resumable ? { checkpoint: encodeCursor({ kind: 'ledger-until', backfill: { until: until as number, top } }) } : {}),
    };
    if (last) return cursorAfter('ledger-until', previous, newest.value);
  }
};
