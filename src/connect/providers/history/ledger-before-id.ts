import type { LedgerEntry } from 'ccxt';
import { apiMethod } from '../ccxt-api.js';
import { fromLedgerEntry } from '../ccxt-records.js';
import { encodeCursor } from './cursor.js';
import { cursorAfter, ledgerStart, numericId, oldestTime, unseen, type WalkPages } from './walk.js';

/**
 * The ledger newest to oldest through the exchange's own call (OKX's bills, KuCoin's HF ledger),
 * each page the entries before the oldest id read: the exchange's own paging, with no time boundary
 * for entries of one millisecond to straddle.
 */
export const ledgerBeforeIdPages: WalkPages<'ledger-before-id'> = async function* (exchange, source, walk, book) {
  const { name } = walk;
  const list = apiMethod(exchange, source.method);
  const { since, backfill, newest, previous } = ledgerStart('ledger-before-id', walk);
  let after = backfill?.after;
  const seen = new Set<string>();
  for (;;) {
    const answer = (await list({
      ...source.params,
      limit: String(source.pageSize),
      ...(after === undefined ? {} : { [source.param]: after }),
    })) as { data?: unknown };
    if (!Array.isArray(answer?.data)) throw new TypeError(`${name}'s ledger answer has no data list`);
    const page = exchange.parseLedger(answer.data) as LedgerEntry[];
    // Entries from before `since` (read by an earlier refresh) are left out of an incremental walk.
    const fresh = unseen(page, seen).filter((entry) => since === undefined || (entry.timestamp ?? 0) >= since);
    const transactions = newest.saw(fresh.map((entry) => fromLedgerEntry(entry, name, book)));
    const ids = page.map((entry) => numericId(name, entry.id));
    const oldestId = ids.length === 0 ? undefined : ids.reduce((a, b) => (b < a ? b : a));
    const oldest = oldestTime(page);
    // A short page is the last; so is one reaching back to `since`.
    const last =
      oldestId === undefined || page.length < source.pageSize || (since !== undefined && oldest !== undefined && oldest <= since);
    if (!last) {
      // Ids only go down: a page not below the last asked-for id means the exchange ignored it.
      if (after !== undefined && oldestId >= BigInt(after)) throw new Error(`${name}'s ledger did not page back past entry ${after}`);
      after = oldestId.toString();
    }
    const top = newest.value;
    const resumable = !last && since === undefined && top !== undefined;
    yield {
      transactions,
      ...(resumable ? { checkpoint: encodeCursor({ kind: 'ledger-before-id', backfill: { after: after as string, top } }) } : {}),
    };
    if (last) return cursorAfter('ledger-before-id', previous, newest.value);
  }
};
