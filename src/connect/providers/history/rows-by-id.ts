import { apiMethod, currencyCode } from '../ccxt-api.js';
import { fromColumnEntry } from '../ccxt-records.js';
import { encodeCursor } from './cursor.js';
import { cursorOf, numericId, type WalkPages } from './walk.js';

/**
 * A ledger of rows with an amount column per currency (Bitstamp), oldest to newest, listed raw and
 * read by us (fromColumnEntry). Each call asks from the newest id read, which the exchange may
 * answer with or without that row (it is left out). Every page leaves that id as its checkpoint
 * and, once a short page ends the walk, as the cursor: so each page must hold the rows after it in
 * rising id order, with none missing in between that a later page could bring. A page that does not
 * rise (an answer newest first, one that ignored the id asked from, rows out of id order) fails the
 * walk: taking its highest id would pass over rows for good. A cursor of the walk by time before
 * it (`since`, no id) reads the whole history once.
 */
export const rowsByIdPages: WalkPages<'rows-by-id'> = async function* (exchange, source, walk) {
  const { name } = walk;
  const list = apiMethod(exchange, source.method);
  const { fromId } = cursorOf('rows-by-id', walk);
  let from = fromId === undefined ? undefined : BigInt(fromId);
  for (;;) {
    const rows = (await list({
      ...source.params,
      limit: source.pageSize,
      ...(from === undefined ? {} : { [source.param]: from.toString() }),
    })) as unknown;
    if (!Array.isArray(rows)) throw new TypeError(`${name}'s ledger answer is no list`);
    const ids = (rows as Record<string, unknown>[]).map((row) => numericId(name, row.id));
    const skip = from !== undefined && ids[0] === from ? 1 : 0;
    const fresh = (rows as Record<string, unknown>[]).slice(skip);
    for (const id of ids.slice(skip)) {
      if (from !== undefined && id <= from)
        throw new Error(`${name}'s ledger did not list its entries in rising id order after entry ${from}`);
      from = id;
    }
    const last = rows.length < source.pageSize;
    const transactions = fresh.flatMap((row) => fromColumnEntry(row, name, (column) => currencyCode(exchange, column), source.types));
    // Nothing read, ever (an empty account): the stored cursor stays as it was.
    const reached = from === undefined ? walk.cursor : encodeCursor({ kind: 'rows-by-id', fromId: from.toString() });
    yield { transactions, ...(last || reached === null ? {} : { checkpoint: reached }) };
    if (last) return reached;
  }
};
