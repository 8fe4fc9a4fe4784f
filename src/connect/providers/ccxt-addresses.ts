import type { Exchange } from 'ccxt';
import { apiMethod, walletsOf } from './ccxt-api.js';
import type { Ccxt } from './ccxt-errors.js';
import type { ExchangeRow } from './exchanges/row.js';
import type { ProviderAddress, ProviderBalance } from './provider.js';

/** At most this many assets get a deposit-address lookup per refresh (one or two calls each). */
const MAX_ADDRESS_ASSETS = 20;

/** How a row reads deposit addresses, where it reads any. */
export type AddressSource = Exclude<NonNullable<ExchangeRow['depositAddresses']>, { kind: 'none' }>;

/** The deposit addresses of the assets held, read as `source` says. */
export async function depositAddresses(
  row: ExchangeRow,
  source: AddressSource,
  exchange: Exchange,
  ccxt: Ccxt,
  held: readonly ProviderBalance[],
): Promise<ProviderAddress[]> {
  // Only assets ccxt lists can be looked up (one only held, of a market since removed, cannot).
  const assets = held
    .map((b) => b.asset)
    .filter((asset) => asset in (exchange.currencies ?? {}))
    .slice(0, MAX_ADDRESS_ASSETS);
  return source.kind === 'wallet-list'
    ? listedAddresses(row, exchange, source, assets)
    : lookedUpAddresses(row, exchange, ccxt, assets, source);
}

/** A deposit address as ccxt parsed it, for one asset (none where the exchange listed none: OKX, for an asset never deposited). */
function depositAddress(
  row: ExchangeRow,
  found: { address?: string | undefined; network?: string | undefined; tag?: string | undefined } | undefined,
  asset: string,
): ProviderAddress[] {
  if (!found?.address) return [];
  const label = `${row.name} ${asset} deposit${found.tag ? ` (memo/tag: ${found.tag})` : ''}`;
  return [{ address: found.address, asset, network: found.network ?? asset, kind: 'deposit', label }];
}

/**
 * One lookup per asset (ccxt's fetchDepositAddress, or fetchDepositAddressesByNetwork for
 * `everyNetwork`), skipping assets that have none; with `networks`, only the assets listed,
 * each on its network.
 */
async function lookedUpAddresses(
  row: ExchangeRow,
  exchange: Exchange,
  ccxt: Ccxt,
  assets: string[],
  { networks, everyNetwork }: { networks?: Readonly<Record<string, string>>; everyNetwork?: boolean },
): Promise<ProviderAddress[]> {
  const addresses: ProviderAddress[] = [];
  for (const asset of assets) {
    const network = networks?.[asset];
    if (networks && network === undefined) continue;
    try {
      const found = everyNetwork
        ? Object.values(await exchange.fetchDepositAddressesByNetwork(asset))
        : [await exchange.fetchDepositAddress(asset, network === undefined ? {} : { network })];
      for (const one of found) addresses.push(...depositAddress(row, one, asset));
    } catch (error) {
      // An asset without a deposit method (fiat, delisted) has no address. A key without the
      // exchange's deposit permission (Kraken's "Deposit Funds"; a Gemini role that may not
      // list addresses, `MissingRole`, which ccxt reports as an authentication failure) gets
      // none at all: the key still reads balances, so this is no reason to ask the person to
      // connect again. Any other authentication failure is one.
      if (error instanceof ccxt.PermissionDenied || (error instanceof ccxt.AuthenticationError && missingRole(exchange))) return [];
      if (
        error instanceof ccxt.BadRequest ||
        error instanceof ccxt.InvalidAddress ||
        error instanceof ccxt.NotSupported ||
        error instanceof ccxt.ArgumentsRequired
      )
        continue;
      throw error;
    }
  }
  return addresses;
}

/**
 * The addresses the wallets of these assets already have, listed (one call per wallet), each with
 * its memo or tag from the source's `tag` field or, failing that, from where ccxt reads it.
 */
async function listedAddresses(
  row: ExchangeRow,
  exchange: Exchange,
  { method, tag }: { method: string; tag?: string },
  assets: string[],
): Promise<ProviderAddress[]> {
  const list = apiMethod(exchange, method) as (params: object) => Promise<{ data?: Record<string, unknown>[] }>;
  const wanted = new Set(assets);
  const addresses: ProviderAddress[] = [];
  for (const wallet of await walletsOf(exchange)) {
    if (!wallet.code || !wanted.has(wallet.code)) continue;
    const answer = await list({ account_id: wallet.id, limit: 100 });
    for (const item of answer.data ?? []) {
      const parsed = exchange.parseDepositAddress(item);
      const own = tag === undefined ? undefined : item[tag];
      addresses.push(...depositAddress(row, { ...parsed, tag: typeof own === 'string' && own !== '' ? own : parsed.tag }, wallet.code));
    }
  }
  return addresses;
}

/** The exchange's last answer said the key's role may not make the call (Gemini's reason `MissingRole`). */
function missingRole(exchange: Exchange): boolean {
  const answer: unknown = exchange.last_json_response;
  return typeof answer === 'object' && answer !== null && (answer as { reason?: unknown }).reason === 'MissingRole';
}
