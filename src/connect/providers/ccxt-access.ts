import type { Exchange } from 'ccxt';
import type { OAuthServer } from '../oauth/oauth-client.js';
import type { StoredConnection } from '../stored-connection.js';
import { accountLimiters } from './account-limits.js';
import { refreshFailure, type Ccxt } from './ccxt-errors.js';
import { openExchange, type ExchangeThrottles } from './ccxt-instance.js';
import type { ExchangeCallLog } from './exchange-call-log.js';
import type { CcxtCredential, ExchangeRow } from './exchanges/row.js';

/**
 * ccxt constructor options laid over ours for one exchange. Production passes none; tests point
 * `urls.api` at a local fake exchange and lift the client-side rate limit (`rateLimit`), which
 * lifts the per-account limits (the row's accountLimits) in proportion.
 */
export type ExchangeOverrides = Record<string, unknown>;

/** What a provider for an exchange of the table is built with. `load` imports ccxt (lazily: see ccxt-provider.ts). */
export interface ExchangeDeps {
  load: () => Promise<Ccxt>;
  throttles: ExchangeThrottles;
  overrides?: ExchangeOverrides;
  oauthServer?: Partial<OAuthServer>;
  /** Where every process logs the calls the exchange counts per account (the row's accountLimits). */
  calls: ExchangeCallLog;
}

/**
 * What ccxt is opened with, under its names: a key's credentials, or (signed in with OAuth) the
 * access token, which ccxt sends as `Authorization: Bearer`.
 */
export type Credentials = Partial<Record<CcxtCredential | 'token', string>>;

/**
 * One exchange of the table as every account reaches it through ccxt: its row and dependencies,
 * and what the instances opened for its accounts share — the markets, and the limiters of the
 * calls the exchange counts per account.
 */
export interface ExchangeAccess {
  row: ExchangeRow;
  deps: ExchangeDeps;
  /** The exchange's markets, loaded once per TTL and shared: concurrent refreshes wait for one load. */
  markets?: { at: number; loaded: Promise<{ markets: unknown; currencies: unknown }> };
  /** The limiters of the calls the exchange counts per account (the row's accountLimits). */
  perAccount?: ReturnType<typeof accountLimiters>;
  /** ccxt's pace for the exchange (its `rateLimit` before our overrides), read once. */
  defaultRateLimit?: number;
}

/** How long loaded markets and currencies are reused before an exchange is asked again. */
const MARKETS_TTL_MS = 60 * 60 * 1000;

export function exchangeAccess(row: ExchangeRow, deps: ExchangeDeps): ExchangeAccess {
  return { row, deps, ...(row.accountLimits ? { perAccount: accountLimiters(row.id, row.accountLimits, deps.calls) } : {}) };
}

/** A ccxt instance for these credentials (no request made yet). */
export function instanceFor(access: ExchangeAccess, ccxt: Ccxt, credentials: Credentials): Exchange {
  const { row, deps, perAccount } = access;
  const exchange = openExchange(
    ccxt,
    row,
    { ...credentials, enableRateLimit: true, timeout: 20_000, ...row.ccxtOptions, ...deps.overrides },
    deps.throttles,
  );
  const account = credentials.apiKey ?? credentials.token;
  if (perAccount && account !== undefined) {
    access.defaultRateLimit ??= (exchange.describe() as { rateLimit: number }).rateLimit;
    perAccount.pace(exchange, account, access.defaultRateLimit);
  }
  return exchange;
}

/** Gives the instance the exchange's markets: loaded by the first, reused by the rest. */
export async function withMarkets(access: ExchangeAccess, exchange: Exchange): Promise<Exchange> {
  const markets = access.markets;
  if (!markets || Date.now() - markets.at >= MARKETS_TTL_MS) {
    const loading = exchange.loadMarkets().then(() => ({ markets: exchange.markets, currencies: exchange.currencies }));
    const entry = { at: Date.now(), loaded: loading };
    access.markets = entry;
    // A failed load is not kept: the next call loads again.
    loading.catch(() => {
      if (access.markets === entry) delete access.markets;
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
export async function readWith<T>(
  access: ExchangeAccess,
  connection: StoredConnection,
  call: (exchange: Exchange, ccxt: Ccxt) => Promise<T>,
): Promise<T> {
  const ccxt = await access.deps.load();
  let exchange: Exchange | undefined;
  try {
    exchange = instanceFor(access, ccxt, credentialsOf(connection));
    return await call(await withMarkets(access, exchange), ccxt);
  } catch (error) {
    throw refreshFailure(ccxt, error, access.row.name, exchange?.last_response_headers);
  }
}

/** The credentials an account's stored connection holds, as ccxt takes them. */
export function credentialsOf(connection: StoredConnection): Credentials {
  if (connection.oauth) return { token: connection.oauth.access_token };
  const credentials: Credentials = {};
  for (const name of ['apiKey', 'secret', 'password', 'uid'] as const) {
    if (typeof connection[name] === 'string') credentials[name] = connection[name];
  }
  if (!credentials.apiKey) throw new Error('the account has no stored credentials');
  return credentials;
}
