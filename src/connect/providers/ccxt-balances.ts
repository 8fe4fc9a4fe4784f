import type { Exchange } from 'ccxt';
import { addDecimals } from '../amounts.js';
import { apiMethod, currencyCode, rowPages } from './ccxt-api.js';
import { decimalOrNull } from './ccxt-records.js';
import { isBooks, isHoldings, type Book, type ExchangeRow } from './exchanges/row.js';
import type { ProviderBalance } from './provider.js';

/**
 * Every balance: every page of them where the exchange pages them (the row's `balancePages`), of
 * every book where it keeps several (added together).
 */
export async function allBalances(row: ExchangeRow, exchange: Exchange): Promise<ProviderBalance[]> {
  const books = isBooks(row.history)
    ? await presentBooks(exchange, row.history)
    : [{ balances: {} as Record<string, unknown>, mirrorPrefix: undefined }];
  const pages: ProviderBalance[][] = [];
  const mirrored: { prefix: string; pages: ProviderBalance[][] }[] = [];
  const holdings = new Set<string>();
  for (const { balances: params, mirrorPrefix } of books) {
    if (isHoldings(params)) {
      for (const list of params.holdings) {
        for await (const rows of rowPages(exchange, list.method, {}, list.pageSize)) {
          const held = rows.flatMap((r) => {
            const total = decimalOrNull(r[list.fields.amount]);
            return total === null || total === '0' ? [] : [{ asset: currencyCode(exchange, r[list.fields.asset]), total, available: '0' }];
          });
          for (const b of held) holdings.add(b.asset);
          pages.push(held);
        }
      }
      continue;
    }
    const own: ProviderBalance[][] = mirrorPrefix === undefined ? pages : [];
    if (mirrorPrefix !== undefined) mirrored.push({ prefix: mirrorPrefix, pages: own });
    let answer = await exchange.fetchBalance(params);
    own.push(balancesOf(answer));
    const asked = new Set<string>();
    for (
      let next = row.balancePages?.next(answer.info);
      next !== undefined && !asked.has(next);
      next = row.balancePages?.next(answer.info)
    ) {
      asked.add(next);
      answer = await exchange.fetchBalance({ ...params, [(row.balancePages as { param: string }).param]: next });
      own.push(balancesOf(answer));
    }
  }
  // A book's mirror of another's holding (Binance's LDUSDT for USDT held in Simple Earn) is left
  // out: the holding itself is counted.
  for (const { prefix, pages: own } of mirrored)
    pages.push(...own.map((page) => page.filter((b) => !(b.asset.startsWith(prefix) && holdings.has(b.asset.slice(prefix.length))))));
  return pages.length === 1 ? (pages[0] as ProviderBalance[]) : sumByAsset(pages.flat());
}

/** The books this account has: each book the row lists, unless its `onlyWhen` call says otherwise. */
export async function presentBooks(exchange: Exchange, books: readonly Book[]): Promise<Book[]> {
  const present: Book[] = [];
  for (const book of books) {
    const only = book.onlyWhen;
    if (only) {
      const answer = (await apiMethod(exchange, only.method)({})) as Record<string, unknown> | undefined;
      if (answer?.[only.field] !== true) continue;
    }
    present.push(book);
  }
  return present;
}

/** Balances of one asset on several pages (wallets of one currency) as one, by asset. */
function sumByAsset(balances: ProviderBalance[]): ProviderBalance[] {
  const byAsset = new Map<string, ProviderBalance>();
  for (const b of balances) {
    const seen = byAsset.get(b.asset);
    byAsset.set(
      b.asset,
      seen ? { asset: b.asset, total: addDecimals(seen.total, b.total), available: addDecimals(seen.available, b.available) } : b,
    );
  }
  return [...byAsset.values()].sort((a, b) => (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : 0));
}

/** ccxt's balance structure (parsed with `number = String`) → our balances, assets holding nothing left out. */
function balancesOf(balance: Awaited<ReturnType<Exchange['fetchBalance']>>): ProviderBalance[] {
  const totals = (balance.total ?? {}) as unknown as Record<string, unknown>;
  const free = (balance.free ?? {}) as unknown as Record<string, unknown>;
  const result: ProviderBalance[] = [];
  for (const asset of Object.keys(totals).sort()) {
    const total = decimalOrNull(totals[asset]);
    if (total === null || total === '0') continue;
    result.push({ asset, total, available: decimalOrNull(free[asset]) ?? total });
  }
  return result;
}
