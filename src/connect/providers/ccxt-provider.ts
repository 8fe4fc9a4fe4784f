import type { Exchange } from 'ccxt';
import { connectFailure, refreshFailure, type Ccxt } from './ccxt-errors.js';
import { accountLimiters } from './account-limits.js';
import { apiMethod, currencyCode, rowPages, walletsOf } from './ccxt-api.js';
import { historyPages } from './ccxt-history.js';
import { openExchange, type ExchangeThrottles } from './ccxt-instance.js';
import { decimalOrNull } from './ccxt-records.js';
import { addDecimals } from '../amounts.js';
import type { OAuthServer, OAuthTokens } from '../oauth/oauth-client.js';
import { isBooks, isHoldings, type Book, type CcxtCredential, type ExchangeRow } from './exchanges.js';
import type { ConnectOutcome, CredentialField, Provider, ProviderAddress, ProviderBalance, TransactionPages } from './provider.js';

/**
 * ccxt constructor options laid over ours for one exchange. Production passes none; tests point
 * `urls.api` at a local fake exchange and lift the client-side rate limit (`rateLimit`), which
 * lifts the per-account limits (the row's accountLimits) in proportion.
 */
export type ExchangeOverrides = Record<string, unknown>;

/**
 * What ccxt is opened with, under its names: a key's credentials, or (signed in with OAuth) the
 * access token, which ccxt sends as `Authorization: Bearer`.
 */
type Credentials = Partial<Record<CcxtCredential | 'token', string>>;

const FIELDS: Record<CcxtCredential, Omit<CredentialField, 'name'>> = {
  // The key is not the secret, but it names the account to the exchange: it is not echoed either.
  apiKey: { label: 'API key', type: 'text', autocomplete: 'off', sensitive: true },
  secret: { label: 'API secret', type: 'password', autocomplete: 'off', sensitive: true },
  password: { label: 'Passphrase', type: 'password', autocomplete: 'off', sensitive: true },
  uid: { label: 'User ID', type: 'text', autocomplete: 'off' },
};

/** The form field of a credential: ccxt's name, our wording, and the row's own changes to it. */
function fieldFor(row: ExchangeRow, credential: CcxtCredential): CredentialField {
  return { name: credential, ...FIELDS[credential], ...row.fields?.[credential] };
}

/** How long loaded markets and currencies are reused before an exchange is asked again. */
const MARKETS_TTL_MS = 60 * 60 * 1000;
/** At most this many assets get a deposit-address lookup per refresh (one or two calls each). */
const MAX_ADDRESS_ASSETS = 20;

/**
 * A provider for one exchange of the table, through ccxt. `load` imports ccxt (lazily: it costs about
 * a second and 140 MB, so a server that never connects an exchange never pays it).
 */
export function ccxtProvider(
  row: ExchangeRow,
  deps: { load: () => Promise<Ccxt>; throttles: ExchangeThrottles; overrides?: ExchangeOverrides; oauthServer?: Partial<OAuthServer> },
): Provider {
  /** The exchange's markets, loaded once per TTL and shared: concurrent refreshes wait for one load. */
  let markets: { at: number; loaded: Promise<{ markets: unknown; currencies: unknown }> } | undefined;
  /** The limiters of the calls the exchange counts per account (the row's accountLimits). */
  const perAccount = row.accountLimits && accountLimiters(row.accountLimits);
  /** ccxt's pace for the exchange (its `rateLimit` before our overrides), read once. */
  let defaultRateLimit: number | undefined;

  /** A ccxt instance for these credentials (no request made yet). */
  function instance(ccxt: Ccxt, credentials: Credentials): Exchange {
    const exchange = openExchange(ccxt, row, { ...credentials, enableRateLimit: true, timeout: 20_000, ...row.ccxtOptions, ...deps.overrides }, deps.throttles);
    const account = credentials.apiKey ?? credentials.token;
    if (perAccount && account !== undefined) {
      defaultRateLimit ??= (exchange.describe() as { rateLimit: number }).rateLimit;
      perAccount.pace(exchange, ccxt, account, defaultRateLimit);
    }
    return exchange;
  }

  /** Gives the instance the exchange's markets: loaded by the first, reused by the rest. */
  async function withMarkets(exchange: Exchange): Promise<Exchange> {
    if (!markets || Date.now() - markets.at >= MARKETS_TTL_MS) {
      const loading = exchange.loadMarkets().then(() => ({ markets: exchange.markets, currencies: exchange.currencies }));
      const entry = { at: Date.now(), loaded: loading };
      markets = entry;
      // A failed load is not kept: the next call loads again.
      loading.catch(() => {
        if (markets === entry) markets = undefined;
      });
      await loading;
      return exchange;
    }
    const loaded = await markets.loaded;
    exchange.setMarkets(loaded.markets, loaded.currencies as undefined);
    return exchange;
  }

  /**
   * Runs a data call with the account's credentials, turning every exchange failure into one the
   * refresh state can tell (with the wait the exchange's last answer asked for, if longer than ours).
   */
  async function read<T>(connection: Record<string, unknown>, call: (exchange: Exchange, ccxt: Ccxt) => Promise<T>): Promise<T> {
    const ccxt = await deps.load();
    let exchange: Exchange | undefined;
    try {
      exchange = instance(ccxt, credentialsOf(connection));
      return await call(await withMarkets(exchange), ccxt);
    } catch (error) {
      throw refreshFailure(ccxt, error, row.name, exchange?.last_response_headers);
    }
  }

  /**
   * Proves the credentials work before anything is stored (balances first) and, where the exchange
   * tells, that a key cannot trade or withdraw (an OAuth sign-in is granted our read scopes only).
   * Undefined when they pass.
   */
  async function checkAccess(credentials: Credentials): Promise<ConnectOutcome | undefined> {
    const ccxt = await deps.load();
    try {
      const exchange = await withMarkets(instance(ccxt, credentials));
      // Balances first: they prove the key works before anything is stored.
      await exchange.fetchBalance();
      const refused = row.refuseAccount?.reason(await apiMethod(exchange, row.refuseAccount.method)({}));
      if (refused !== undefined) return { ok: false, reason: 'invalid_input', field: 'apiKey', message: refused };
      if (row.keyPermissions && credentials.token === undefined) {
        const check = row.keyPermissions;
        const powers = check.read(await apiMethod(exchange, check.method)({}));
        if (powers.canTrade || powers.canWithdraw) {
          const what = powers.canTrade && powers.canWithdraw ? 'trade and withdraw' : powers.canTrade ? 'trade' : 'withdraw or transfer funds';
          return {
            ok: false,
            reason: 'invalid_input',
            field: 'apiKey',
            message: `This key can ${what}. We only accept read-only keys: create a new key with read permissions only (steps above) and enter that one.`,
          };
        }
      }
    } catch (error) {
      return connectFailure(ccxt, error, row.name);
    }
    return undefined;
  }

  /**
   * Every balance: every page of them where the exchange pages them (the row's `balancePages`), of
   * every book where it keeps several (added together).
   */
  async function allBalances(exchange: Exchange): Promise<ProviderBalance[]> {
    const books = isBooks(row.history) ? await presentBooks(exchange, row.history) : [{ balances: {} as Record<string, unknown>, mirrorPrefix: undefined }];
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
      for (let next = row.balancePages?.next(answer.info); next !== undefined && !asked.has(next); next = row.balancePages?.next(answer.info)) {
        asked.add(next);
        answer = await exchange.fetchBalance({ ...params, [(row.balancePages as { param: string }).param]: next });
        own.push(balancesOf(answer));
      }
    }
    // A book's mirror of another's holding (Binance's LDUSDT for USDT held in Simple Earn) is left
    // out: the holding itself is counted.
    for (const { prefix, pages: own } of mirrored) pages.push(...own.map((page) => page.filter((b) => !(b.asset.startsWith(prefix) && holdings.has(b.asset.slice(prefix.length))))));
    return pages.length === 1 ? (pages[0] as ProviderBalance[]) : sumByAsset(pages.flat());
  }

  return {
    id: row.id,
    type: 'exchange',
    name: row.name,
    description: `Connect with a read-only API key.`,
    credentialFields: row.credentials.map((credential) => fieldFor(row, credential)),
    steps: row.steps,

    async connect(input): Promise<ConnectOutcome> {
      const credentials: Credentials = {};
      for (const credential of row.credentials) {
        const value = cleanCredential(input[credential] ?? '');
        if (value === '') return { ok: false, reason: 'invalid_input', message: `Enter the ${FIELDS[credential].label.toLowerCase()}.`, field: credential };
        credentials[credential] = value;
      }
      const refused = await checkAccess(credentials);
      if (refused) return refused;
      return { ok: true, accounts: [{ displayName: `${row.name} (API key …${credentials.apiKey?.slice(-4) ?? ''})`, connection: credentials }] };
    },

    ...(row.oauth
      ? {
          oauth: {
            server: { ...row.oauth, ...deps.oauthServer },
            async connectWithTokens(tokens): Promise<ConnectOutcome> {
              const refused = await checkAccess({ token: tokens.access_token });
              if (refused) return refused;
              return { ok: true, accounts: [{ displayName: `${row.name} (signed in)`, connection: { oauth: tokens } }] };
            },
          },
        }
      : {}),

    fetchBalances: (connection) => read(connection, allBalances),

    async *fetchTransactions(connection, options): TransactionPages {
      const ccxt = await deps.load();
      let exchange: Exchange | undefined;
      try {
        exchange = instance(ccxt, credentialsOf(connection));
        const ready = await withMarkets(exchange);
        const held = async () => (options.balances ?? (await allBalances(ready))).map((b) => b.asset);
        const history = isBooks(row.history) ? await presentBooks(ready, row.history) : row.history;
        const pages = historyPages(ready, history, { name: row.name, cursor: options.cursor, held });
        try {
          for (;;) {
            const next = await pages.next();
            if (next.done) return next.value;
            options.signal?.throwIfAborted();
            yield next.value;
          }
        } finally {
          // A refresh out of time stops reading mid-walk: the walk is closed with it.
          await pages.return(null);
        }
      } catch (error) {
        throw refreshFailure(ccxt, error, row.name, exchange?.last_response_headers);
      }
    },

    fetchAddresses: async (connection, options) => {
      const source = row.depositAddresses ?? { kind: 'lookup' };
      if (source.kind === 'none') return [];
      return read(connection, async (exchange, ccxt) => {
        const held = options.balances ?? (await allBalances(exchange));
        // Only assets ccxt lists can be looked up (one only held, of a market since removed, cannot).
        const assets = held
          .map((b) => b.asset)
          .filter((asset) => asset in (exchange.currencies ?? {}))
          .slice(0, MAX_ADDRESS_ASSETS);
        return source.kind === 'wallet-list' ? listedAddresses(exchange, source, assets) : lookedUpAddresses(exchange, ccxt, assets, source);
      });
    },
  };

  /** A deposit address as ccxt parsed it, for one asset (none where the exchange listed none: OKX, for an asset never deposited). */
  function depositAddress(found: { address?: string | undefined; network?: string | undefined; tag?: string | undefined } | undefined, asset: string): ProviderAddress[] {
    if (!found?.address) return [];
    const label = `${row.name} ${asset} deposit${found.tag ? ` (memo/tag: ${found.tag})` : ''}`;
    return [{ address: found.address, asset, network: found.network ?? asset, kind: 'deposit', label }];
  }

  /**
   * One lookup per asset (ccxt's fetchDepositAddress, or fetchDepositAddressesByNetwork for
   * `everyNetwork`), skipping assets that have none; with `networks`, only the assets listed,
   * each on its network.
   */
  async function lookedUpAddresses(exchange: Exchange, ccxt: Ccxt, assets: string[], { networks, everyNetwork }: { networks?: Readonly<Record<string, string>>; everyNetwork?: boolean }): Promise<ProviderAddress[]> {
    const addresses: ProviderAddress[] = [];
    for (const asset of assets) {
      const network = networks?.[asset];
      if (networks && network === undefined) continue;
      try {
        const found = everyNetwork ? Object.values(await exchange.fetchDepositAddressesByNetwork(asset)) : [await exchange.fetchDepositAddress(asset, network === undefined ? {} : { network })];
        for (const one of found) addresses.push(...depositAddress(one, asset));
      } catch (error) {
        // An asset without a deposit method (fiat, delisted) has no address. A key without the
        // exchange's deposit permission (Kraken's "Deposit Funds"; a Gemini role that may not
        // list addresses, `MissingRole`, which ccxt reports as an authentication failure) gets
        // none at all: the key still reads balances, so this is no reason to ask the person to
        // connect again. Any other authentication failure is one.
        if (error instanceof ccxt.PermissionDenied || (error instanceof ccxt.AuthenticationError && missingRole(exchange))) return [];
        if (error instanceof ccxt.BadRequest || error instanceof ccxt.InvalidAddress || error instanceof ccxt.NotSupported || error instanceof ccxt.ArgumentsRequired) continue;
        throw error;
      }
    }
    return addresses;
  }

  /**
   * The addresses the wallets of these assets already have, listed (one call per wallet), each with
   * its memo or tag from the source's `tag` field or, failing that, from where ccxt reads it.
   */
  async function listedAddresses(exchange: Exchange, { method, tag }: { method: string; tag?: string }, assets: string[]): Promise<ProviderAddress[]> {
    const list = apiMethod(exchange, method) as (params: object) => Promise<{ data?: Record<string, unknown>[] }>;
    const wanted = new Set(assets);
    const addresses: ProviderAddress[] = [];
    for (const wallet of await walletsOf(exchange)) {
      if (!wallet.code || !wanted.has(wallet.code)) continue;
      const answer = await list({ account_id: wallet.id, limit: 100 });
      for (const item of answer.data ?? []) {
        const parsed = exchange.parseDepositAddress(item);
        const own = tag === undefined ? undefined : item[tag];
        addresses.push(...depositAddress({ ...parsed, tag: typeof own === 'string' && own !== '' ? own : parsed.tag }, wallet.code));
      }
    }
    return addresses;
  }
}

/** The exchange's last answer said the key's role may not make the call (Gemini's reason `MissingRole`). */
function missingRole(exchange: Exchange): boolean {
  const answer: unknown = exchange.last_json_response;
  return typeof answer === 'object' && answer !== null && (answer as { reason?: unknown }).reason === 'MissingRole';
}

/** The books this account has: each book the row lists, unless its `onlyWhen` call says otherwise. */
async function presentBooks(exchange: Exchange, books: readonly Book[]): Promise<Book[]> {
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

/** Pasted keys carry stray spaces and line breaks; a PEM key keeps its inner line breaks. */
function cleanCredential(value: string): string {
  return value.replace(/\r\n?/g, '\n').trim();
}

function credentialsOf(connection: Record<string, unknown>): Credentials {
  const oauth = connection.oauth as OAuthTokens | undefined;
  if (oauth) return { token: oauth.access_token };
  const credentials: Credentials = {};
  for (const name of ['apiKey', 'secret', 'password', 'uid'] as const) {
    if (typeof connection[name] === 'string') credentials[name] = connection[name];
  }
  if (!credentials.apiKey) throw new Error('the account has no stored credentials');
  return credentials;
}

/** Balances of one asset on several pages (wallets of one currency) as one, by asset. */
function sumByAsset(balances: ProviderBalance[]): ProviderBalance[] {
  const byAsset = new Map<string, ProviderBalance>();
  for (const b of balances) {
    const seen = byAsset.get(b.asset);
    byAsset.set(b.asset, seen ? { asset: b.asset, total: addDecimals(seen.total, b.total), available: addDecimals(seen.available, b.available) } : b);
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
