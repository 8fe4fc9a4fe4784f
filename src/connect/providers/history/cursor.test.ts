import { describe, expect, it } from 'vitest';
import { decodeBooks, decodeCursor, encodeBooks, encodeCursor, StoredCursorError, type WalkKind } from './cursor.js';

/**
 * Every form of stored cursor the walks have written, as stored (the text an account's
 * `transaction_cursor` or a page's checkpoint holds), with the walk that reads it: each decodes,
 * and a cursor written today reads back as the same text.
 */
const STORED: [WalkKind, string][] = [
  ['ledger-offset', '{"since":1767139200000}'],
  ['ledger-offset', '{"backfill":{"end":1767225601,"top":1767312000}}'],
  ['rows-by-id', '{"fromId":"412345678"}'],
  // The walk by time before the walk by id: read from the beginning, once.
  ['rows-by-id', '{"since":1767139200000}'],
  ['ledger-until', '{"since":1767139200000}'],
  ['ledger-until', '{"backfill":{"until":1767225600123,"top":1767312000}}'],
  ['ledger-windows', '{"since":1767139200000,"windowed":true}'],
  ['ledger-windows', '{"windowed":true,"backfill":{"until":1767225600123,"top":1767312000}}'],
  ['ledger-windows', '{"since":1767139200000,"windowed":true,"backfill":{"until":1767225600123,"top":1767312000}}'],
  // From the walk by end time alone, before the windows.
  ['ledger-windows', '{"since":1767139200000}'],
  ['ledger-windows', '{"backfill":{"until":1767225600123,"top":1767312000}}'],
  ['ledger-before-id', '{"since":1767139200000}'],
  ['ledger-before-id', '{"backfill":{"after":"696837060589600769","top":1767312000}}'],
  ['ledger-per-account', '{"since":1767139200000,"feeIncluded":true}'],
  // Stored while network fees were read on top of the amounts.
  ['ledger-per-account', '{"since":1767139200000}'],
  ['transfers', '{"since":1767139200000}'],
  ['transfers', '{"since":1767139200000,"assets":["BNB","USDT"],"trades":{"BNB/USDT":"123456"},"converted":true}'],
  ['transfers', '{"assets":["USDT"],"trades":{},"converted":true,"walk":{"checked":["BNB/USDT"],"top":1767312000}}'],
  ['transfers', '{"since":1767139200000,"walk":{"transfersFrom":1508198400000,"checked":[],"top":1767312000}}'],
  ['transfers', '{"walk":{"convertsFrom":1508198400000,"checked":[]}}'],
  ['records', '{"since":1767139200000}'],
  ['records', '{"ranges":{"list":2,"from":1672531200000,"until":1675123199999,"page":3,"top":1767312000,"hold":1766000000000}}'],
  // From before each list had ranges of its own: every list's.
  ['records', '{"since":1767139200000,"ranges":{"from":1672531200000,"top":1767312000}}'],
];

describe('the history cursor', () => {
  it.each(STORED)('reads a %s cursor as stored, and writes it back as the same text: %s', (kind, stored) => {
    const cursor = decodeCursor(kind, stored, 'Kraken');
    expect(cursor).toEqual({ kind, ...JSON.parse(stored) });
    expect(encodeCursor(cursor)).toBe(stored);
  });

  it('reads no stored cursor as an empty one: everything is read', () => {
    expect(decodeCursor('transfers', null, 'Binance')).toEqual({ kind: 'transfers' });
  });

  it.each([
    ['ledger-offset', 'not json', 'it is not JSON'],
    ['ledger-offset', '[1767139200000]', 'it is not a JSON object'],
    ['ledger-offset', '"since"', 'it is not a JSON object'],
    // Another walk's position, read into this one, would start it anywhere.
    ['ledger-offset', '{"backfill":{"until":1767225600123,"top":1767312000}}', '/backfill/end Expected required property'],
    ['ledger-before-id', '{"backfill":{"after":1767225600123,"top":1767312000}}', '/backfill/after'],
    ['ledger-until', '{"since":"yesterday"}', '/since'],
    ['ledger-until', '{"since":0}', '/since'],
    ['rows-by-id', '{"fromId":"41a"}', '/fromId'],
    ['transfers', '{"walk":{"transfersFrom":1508198400000}}', '/walk/checked'],
    ['transfers', '{"trades":{"BNB/USDT":123456}}', '/trades/BNB~1USDT'],
    ['records', '{"ranges":{"list":-1,"from":1672531200000}}', '/ranges/list'],
    ['ledger-per-account', '{"books":{"wallet":null}}', '/books Unexpected property'],
  ] as [WalkKind, string, string][])('refuses a %s cursor that is not one of its forms: %s', (kind, stored, why) => {
    const decoding = () => decodeCursor(kind, stored, 'Kraken');
    expect(decoding).toThrow(StoredCursorError);
    expect(decoding).toThrow(`Kraken's stored history cursor is not one of the ${kind} walk's: `);
    expect(decoding).toThrow(why);
  });

  it('refuses to write a cursor it could not read back', () => {
    expect(() => encodeCursor({ kind: 'ledger-until', since: Number.NaN })).toThrow(
      'a ledger-until cursor that does not fit its form: /since',
    );
  });

  it('reads the books form: one cursor per book, and the book a checkpoint was taken in', () => {
    const spot = '{"since":1767139200000,"assets":[],"trades":{},"converted":true}';
    const stored = JSON.stringify({ books: { spot, earn: null }, at: 'earn' });
    expect(decodeBooks(stored, 'Binance')).toEqual({ cursors: { spot, earn: null }, at: 'earn' });
    expect(encodeBooks({ spot, earn: null }, 'earn')).toBe(stored);
    expect(encodeBooks({ spot })).toBe(JSON.stringify({ books: { spot } }));
  });

  it('reads a one-book cursor met by books as the former book’s, where one says so, else as no book’s', () => {
    const former = '{"since":1767139200000}';
    expect(decodeBooks(former, 'Binance', 'spot')).toEqual({ cursors: { spot: former } });
    expect(decodeBooks(former, 'OKX')).toEqual({ cursors: {} });
    expect(decodeBooks(null, 'OKX')).toEqual({ cursors: {} });
  });

  it.each([
    ['not json', 'it is not JSON'],
    ['{"books":{"spot":{"since":1}}}', '/books/spot'],
    ['{"books":{"spot":null},"at":2}', '/at'],
  ])('refuses a books cursor that is not the books form: %s', (stored, why) => {
    expect(() => decodeBooks(stored, 'OKX')).toThrow(StoredCursorError);
    expect(() => decodeBooks(stored, 'OKX')).toThrow(why);
  });
});
