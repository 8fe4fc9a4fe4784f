import type { Exchange } from 'ccxt';
import { fromLedgerEntry } from '../ccxt-records.js';
import type { Book, HistorySource } from '../exchanges/row.js';
import type { TransactionPages } from '../provider.js';
import { encodeCursor } from './cursor.js';
import { cursorOf, Newest, pagedBack, QUIET_WINDOWS, sinceAfter, unseen, type Walk } from './walk.js';

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
export async function* ledgerWindowPages(
  exchange: Exchange,
  source: Extract<HistorySource, { kind: 'ledger-until' }> & { window: { span: number; horizon: number } },
  walk: Walk,
  book?: Book,
): TransactionPages {
  const { name } = walk;
  const cursor = cursorOf('ledger-windows', walk);
  // A walk by windows resumes an incremental walk too: its checkpoint keeps the cursor's time.
  const backfill = cursor.since === undefined || cursor.windowed ? cursor.backfill : undefined;
  const newest = new Newest(backfill?.top);
  const since = cursor.windowed ? cursor.since : undefined;
  const start = exchange.milliseconds();
  const floor = Math.max(since ?? 0, start - source.window.horizon);
  if (!backfill) newest.value = Math.max(newest.value ?? 0, Math.floor(start / 1000));
  let until = backfill?.until ?? start;
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
        return encodeCursor({ kind: 'ledger-windows', since: sinceAfter(newest.value as number), windowed: true });
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
    yield {
      transactions,
      checkpoint: encodeCursor({
        kind: 'ledger-windows',
        ...(since === undefined ? {} : { since }),
        windowed: true,
        backfill: { until, top: newest.value as number },
      }),
    };
  }
}
