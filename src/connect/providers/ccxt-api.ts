import type { Exchange } from 'ccxt';

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
