import type { Exchange } from 'ccxt';
import { isBooks, type Book, type HistorySource } from '../exchanges/row.js';
import type { TransactionPages } from '../provider.js';
import { decodeBooks, encodeBooks } from './cursor.js';
import { ledgerBeforeIdPages } from './ledger-before-id.js';
import { ledgerOffsetPages } from './ledger-offset.js';
import { ledgerPerAccountPages } from './ledger-per-account.js';
import { ledgerUntilPages } from './ledger-until.js';
import { ledgerWindowPages } from './ledger-windows.js';
import { recordPages } from './records.js';
import { rowsByIdPages } from './rows-by-id.js';
import { transferPages } from './transfers.js';
import type { Walk, WalkPages } from './walk.js';

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
  if (walked.length === 1 && only)
    return yield* sourcePages(exchange, only.history, walk, only.types || only.feeIncluded ? { ...only, plainRefs: true } : undefined);
  // One cursor per book (`{"books": {name: cursor}}`). A checkpoint also names the book being
  // walked (`at`): the books before it are done (their cursors are where the next refresh reads
  // from) and a walk resumed there starts with it.
  const { cursors, at } = decodeBooks(walk.cursor, walk.name, walked.find((book) => book.formerCursor)?.name);
  const checkpoint = (book: string, cursor: string | null) => encodeBooks({ ...cursors, [book]: cursor }, book);
  const start = Math.max(
    0,
    walked.findIndex((book) => book.name === at),
  );
  for (const [index, book] of walked.entries()) {
    if (index < start) continue;
    const pages = sourcePages(exchange, book.history, { ...walk, cursor: cursors[book.name] ?? null }, book);
    for (;;) {
      const next = await pages.next();
      if (next.done) {
        cursors[book.name] = next.value;
        break;
      }
      yield {
        transactions: next.value.transactions,
        ...(next.value.checkpoint === undefined ? {} : { checkpoint: checkpoint(book.name, next.value.checkpoint) }),
      };
    }
    // A book done is a place to resume from: a refresh out of time goes on with the next one.
    const following = walked[index + 1];
    if (following) yield { transactions: [], checkpoint: checkpoint(following.name, cursors[following.name] ?? null) };
  }
  return encodeBooks(cursors);
}

/** Each kind of history source's walk; a ledger paged back by time in bounded windows walks by windows. */
const WALKS: { [K in HistorySource['kind']]: WalkPages<K> } = {
  'ledger-offset': ledgerOffsetPages,
  'rows-by-id': rowsByIdPages,
  'ledger-until': (exchange, source, walk, book) =>
    source.window
      ? ledgerWindowPages(exchange, { ...source, window: source.window }, walk, book)
      : ledgerUntilPages(exchange, source, walk, book),
  'ledger-before-id': ledgerBeforeIdPages,
  'ledger-per-account': ledgerPerAccountPages,
  transfers: transferPages,
  records: recordPages,
};

/** One walk of the history (one book's, where there are several). */
function sourcePages(exchange: Exchange, source: HistorySource, walk: Walk, book?: Book): TransactionPages {
  return (WALKS[source.kind] as WalkPages<HistorySource['kind']>)(exchange, source as never, walk, book);
}
