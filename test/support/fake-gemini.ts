import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { startFakeExchangeServer, type FakeExchangeServer, type FakeRequest, type FakeResponse } from './fake-exchange-server.js';

/**
 * A local Gemini REST API (https://docs.gemini.com/rest), enough of it for ccxt's gemini class to
 * load markets (`GET /v1/symbols`), read balances, the key's roles, transfers and past trades —
 * checking every private request as Gemini documents it:
 *
 * - `X-GEMINI-APIKEY` names an account-scoped key (unknown: `InvalidApiKey`);
 * - `X-GEMINI-PAYLOAD` is base64(JSON) holding `request` (= the path: else `EndpointMismatch`),
 *   `nonce` and the call's parameters;
 * - `X-GEMINI-SIGNATURE` = hex(HMAC-SHA384(secret, the base64 payload)) (else `InvalidSignature`);
 * - a time-based nonce (ms) within 30 s of the server's clock (else `InvalidNonce`).
 *
 * Lists as documented: `mytrades` (symbol required; `limit_trades` default 50, at most 500) and
 * `transfers` (`limit_transfers` default 10, at most 50) answer the oldest items from `timestamp`
 * on (inclusive; ms or s), sorted newest first; the walk is "the highest timestamp + 1, until an
 * empty list". `addresses/:network` lists the account's deposit addresses on one network (Gemini's
 * network names: `bitcoin`, `ethereum`, …). Errors are `{"result":"error","reason":…,"message":…}`; maintenance is HTTP 503
 * `Maintenance`, a rate limit HTTP 429 `RateLimited`.
 */

export interface GeminiTrade {
  symbol: string;
  tid: number;
  order_id: string;
  type: 'Buy' | 'Sell';
  price: string;
  amount: string;
  fee_currency: string;
  fee_amount: string;
  timestampms: number;
}

export interface GeminiTransfer {
  eid: number;
  type: 'Deposit' | 'Withdrawal';
  status: 'Advanced' | 'Complete';
  currency: string;
  amount: string;
  feeAmount?: string;
  txHash?: string;
  destination?: string;
  timestampms: number;
}

export interface GeminiAccount {
  key: string;
  secret: string;
  balances: { currency: string; amount: string; available: string }[];
  roles: { isAuditor: boolean; isFundManager: boolean; isTrader: boolean };
  trades: GeminiTrade[];
  transfers: GeminiTransfer[];
  /** Deposit addresses by Gemini network name. */
  addresses: Record<string, { address: string; timestamp: number; label?: string }[]>;
}

export interface FakeGemini extends FakeExchangeServer {
  addAccount(options?: Partial<Omit<GeminiAccount, 'key' | 'secret'>>): GeminiAccount;
}

/** The markets the fake lists (Gemini's ids: base and quote, lower case). */
export const GEMINI_MARKETS: readonly string[] = ['btcusd', 'ethusd', 'ethbtc', 'solusd', 'soleth', 'dogeeur'];

const error = (status: number, reason: string, message: string): FakeResponse => ({ status, body: { result: 'error', reason, message } });

/** Gemini's `X-GEMINI-SIGNATURE` for a base64 payload, computed from its documented definition. */
export function geminiSignature(secret: string, payload: string): string {
  return createHmac('sha384', secret).update(payload).digest('hex');
}

/** A request timestamp as Gemini reads it: milliseconds, or seconds when it is that small. */
function timestampMs(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) return Number.NaN;
  return n < 1e11 ? n * 1000 : n;
}

/** The oldest `limit` items from `from` on, newest first (Gemini's list pages). */
function listFrom<T extends { timestampms: number }>(items: readonly T[], from: number | undefined, limit: number): T[] {
  const sorted = [...items].sort((a, b) => a.timestampms - b.timestampms);
  const page = from === undefined ? sorted.slice(-limit) : sorted.filter((i) => i.timestampms >= from).slice(0, limit);
  return page.reverse();
}

export async function startFakeGemini(): Promise<FakeGemini> {
  const accounts = new Map<string, GeminiAccount>();

  function authenticate(request: FakeRequest): { account: GeminiAccount; params: Record<string, unknown> } | FakeResponse {
    const account = accounts.get(String(request.headers['x-gemini-apikey'] ?? ''));
    if (!account) return error(400, 'InvalidApiKey', 'Invalid API key');
    const payload = String(request.headers['x-gemini-payload'] ?? '');
    const expected = Buffer.from(geminiSignature(account.secret, payload));
    const given = Buffer.from(String(request.headers['x-gemini-signature'] ?? ''));
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return error(400, 'InvalidSignature', 'InvalidSignature');
    let params: Record<string, unknown>;
    try {
      params = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as Record<string, unknown>;
    } catch {
      return error(400, 'InvalidJson', 'The JSON provided is invalid');
    }
    if (params.request !== request.path) return error(400, 'EndpointMismatch', 'EndpointMismatch');
    const nonce = Number(params.nonce);
    if (!Number.isSafeInteger(nonce) || Math.abs(nonce - Date.now()) > 30_000)
      return error(400, 'InvalidNonce', 'Nonce is not within 30 seconds of server time');
    return { account, params };
  }

  function privateCall(path: string, account: GeminiAccount, params: Record<string, unknown>): FakeResponse {
    const ok = (body: unknown): FakeResponse => ({ status: 200, body });
    switch (path) {
      case '/v1/balances':
        return ok(
          account.balances.map((b) => ({
            type: 'exchange',
            currency: b.currency,
            amount: b.amount,
            available: b.available,
            availableForWithdrawal: b.available,
          })),
        );
      case '/v1/roles':
        return ok({ ...account.roles, counterparty_id: 'fake-counterparty' });
      case '/v1/mytrades': {
        const symbol = typeof params.symbol === 'string' ? params.symbol.toLowerCase() : '';
        if (!GEMINI_MARKETS.includes(symbol)) return error(400, 'InvalidSymbol', 'InvalidSymbol');
        const limit = Number(params.limit_trades ?? 50);
        const from = timestampMs(params.timestamp);
        if (!Number.isSafeInteger(limit) || limit < 1 || limit > 500 || Number.isNaN(from))
          return error(400, 'InvalidTimestampInPayload', 'bad limit_trades or timestamp');
        return ok(
          listFrom(
            account.trades.filter((t) => t.symbol === symbol),
            from,
            limit,
          ).map((t) => ({
            price: t.price,
            amount: t.amount,
            timestamp: Math.floor(t.timestampms / 1000),
            timestampms: t.timestampms,
            type: t.type,
            aggressor: true,
            fee_currency: t.fee_currency,
            fee_amount: t.fee_amount,
            tid: t.tid,
            order_id: t.order_id,
            exchange: 'gemini',
            is_auction_fill: false,
            is_clearing_fill: false,
            symbol: t.symbol.toUpperCase(),
          })),
        );
      }
      case '/v1/transfers': {
        const limit = Number(params.limit_transfers ?? 10);
        const from = timestampMs(params.timestamp);
        if (!Number.isSafeInteger(limit) || limit < 1 || limit > 50 || Number.isNaN(from))
          return error(400, 'InvalidTimestampInPayload', 'bad limit_transfers or timestamp');
        return ok(
          listFrom(account.transfers, from, limit).map((t) => ({
            method: 'Blockchain',
            ...t,
            timestamp: Math.floor(t.timestampms / 1000),
          })),
        );
      }
      default: {
        const network = /^\/v1\/addresses\/([a-z]+)$/.exec(path)?.[1];
        if (network === undefined) return error(404, 'EndpointNotFound', 'EndpointNotFound');
        if (!account.roles.isAuditor && !account.roles.isFundManager)
          return error(403, 'MissingRole', 'The API key does not have the required role');
        return ok(account.addresses[network] ?? []);
      }
    }
  }

  const server = await startFakeExchangeServer((request) => {
    if (request.method === 'GET') {
      if (request.path === '/v1/symbols') return { status: 200, body: GEMINI_MARKETS };
      // ccxt's currency list comes from Gemini's web page, not the API (ccxt mutes its failure).
      return { status: 404, body: 'Not found', text: true };
    }
    const authenticated = authenticate(request);
    return 'account' in authenticated ? privateCall(request.path, authenticated.account, authenticated.params) : authenticated;
  });

  return Object.assign(server, {
    addAccount(options: Partial<Omit<GeminiAccount, 'key' | 'secret'>> = {}): GeminiAccount {
      const account: GeminiAccount = {
        key: `account-${randomBytes(10).toString('hex')}`,
        secret: randomBytes(20).toString('base64url'),
        balances: [],
        roles: { isAuditor: true, isFundManager: false, isTrader: false },
        trades: [],
        transfers: [],
        addresses: {},
        ...options,
      };
      accounts.set(account.key, account);
      return account;
    },
  });
}
