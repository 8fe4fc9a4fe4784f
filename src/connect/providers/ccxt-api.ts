import type { Exchange } from 'ccxt';
import type { RowPaging } from './exchanges/row.js';

/** One of ccxt's methods for the exchange's own API, by name (`privatePostV1Roles`, …), bound to it. */
export function apiMethod(exchange: Exchange, name: string): (params: object) => Promise<unknown> {
  const method = (exchange as unknown as Record<string, unknown>)[name];
  if (typeof method !== 'function') throw new Error(`ccxt ${exchange.id} has no ${name}`);
  return (method as (params: object) => Promise<unknown>).bind(exchange);
}

/**
 * Every wallet of the account (Coinbase: one per currency), through ccxt's pagination. ccxt stops
 * that after ten calls unless told otherwise: 100 calls are 25,000 Coinbase wallets.
 */
export function walletsOf(exchange: Exchange) {
  return exchange.fetchAccounts({ paginate: true, paginationCalls: 100 });
}

/** Binance's Simple Earn paging: `current` from 1, `size` a page, the rows in `rows`. */
const EARN_PAGING: RowPaging = { page: 'current', size: 'size', rows: 'rows' };

/**
 * The rows of a list the exchange answers page by page (by default `current` from 1, `size` a
 * page; answer `{rows, total}`: Binance's Simple Earn), through the ccxt API method `method` with
 * `params`, from page `first`; a short page is the last.
 */
export async function* rowPages(
  exchange: Exchange,
  method: string,
  params: object,
  size: number,
  paging: RowPaging = EARN_PAGING,
  first = 1,
): AsyncGenerator<Record<string, unknown>[]> {
  const call = apiMethod(exchange, method);
  for (let page = first; ; page++) {
    const answer = (await call({ ...params, [paging.page]: page, [paging.size]: size })) as Record<string, unknown> | undefined;
    const rows = answer?.[paging.rows];
    if (!Array.isArray(rows)) throw new TypeError(`${exchange.id}'s ${method} answer has no ${paging.rows}`);
    yield rows as Record<string, unknown>[];
    if (rows.length < size) return;
  }
}

/** The exchange's asset id as ccxt's currency code (ccxt keeps an unknown id as it is). */
export function currencyCode(exchange: Exchange, id: unknown): string {
  const text = String(id);
  return exchange.safeCurrencyCode(text) ?? text;
}
