import { walletsOf } from '../ccxt-api.js';
import { fromLedgerEntry } from '../ccxt-records.js';
import { encodeCursor } from './cursor.js';
import { cursorAfter, cursorOf, Newest, sinceAfter, type WalkPages } from './walk.js';

/**
 * One ledger per wallet (Coinbase keeps one per currency), each page by page, newest first; the
 * wallets come from ccxt's fetchAccounts. A book whose amounts hold their fees marks its cursor so
 * (`feeIncluded`): a cursor without the mark was stored when such fees were read on top of the
 * amounts, and the rows stored then are read again from the beginning, once, to correct them in
 * place.
 */
export const ledgerPerAccountPages: WalkPages<'ledger-per-account'> = async function* (exchange, source, walk, book) {
  const { name } = walk;
  const cursor = cursorOf('ledger-per-account', walk);
  // An unfinished walk's checkpoint is no cursor to keep once it is done.
  const previous = cursor.since === undefined ? null : walk.cursor;
  const newest = new Newest(undefined);
  const since = book?.feeIncluded && !cursor.feeIncluded ? undefined : cursor.since;
  for (const account of await walletsOf(exchange)) {
    // Page by page, newest first. ccxt hands the next page's cursor over on the last entry
    // (and drops entries before `since`, so a page with none left ends the wallet's walk).
    let after: string | undefined;
    do {
      const entries = await exchange.fetchLedger(account.code, since, source.pageSize, {
        account_id: account.id,
        ...(after === undefined ? {} : { [source.param]: after }),
      });
      const next: unknown = entries.at(-1)?.info?.[`next_${source.param}`];
      after = typeof next === 'string' && next !== '' && next !== after ? next : undefined;
      yield { transactions: newest.saw(entries.map((entry) => fromLedgerEntry(entry, name, book))) };
    } while (after !== undefined);
  }
  const top = newest.value;
  if (top === undefined || !book?.feeIncluded) return cursorAfter('ledger-per-account', previous, top);
  return encodeCursor({ kind: 'ledger-per-account', since: sinceAfter(top), feeIncluded: true });
};
