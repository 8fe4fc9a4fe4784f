import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { startFakeExchangeServer, type FakeExchangeServer, type FakeRequest, type FakeResponse } from './fake-exchange-server.js';
import { SELF_SIGNED_TLS } from './self-signed-tls.js';

/**
 * A local Bitstamp HTTP API v2 (https://www.bitstamp.net/api/), over HTTPS on 127.0.0.1, enough
 * of it for ccxt's bitstamp class to load markets and currencies (`GET /api/v2/markets/`), read
 * balances (`account_balances`), walk `user_transactions` and look up deposit addresses
 * (`{currency}_address`) — checking every private request as Bitstamp documents its v2
 * authentication, each failure with its documented code:
 *
 * - the five headers are there (`X-Auth` … `X-Auth-Version`: API0012–API0016), `X-Auth` is
 *   "BITSTAMP " + a key (else API0011) the fake knows (else API0001), the version is "v2" (API0010);
 * - `X-Auth-Timestamp` is UTC milliseconds (API0018) within 150 s of the server's clock (API0017);
 * - `X-Auth-Nonce` is a lowercase 36-character string not used in the last 150 s (API0004);
 * - `Content-Type` is `application/x-www-form-urlencoded` when there is a body (API0019) and
 *   absent when there is none (API0020);
 * - `X-Auth-Signature` = hex(HMAC-SHA256(secret, "BITSTAMP " + key + method + host + path + query +
 *   content type + nonce + timestamp + "v2" + body)), the host as the `Host` header has it (with
 *   the port), the query with its `?` or empty, the content type only with a body; hex in either
 *   letter case (Bitstamp's examples use both) (API0005);
 * - the key has the endpoint's permission (API0003, "No permission found").
 * HTTPS because the string names the host without the scheme: ccxt writes it so only for an
 * `https://` URL (it signs `url.replace('https://', '')`).
 *
 * Authentication failures answer HTTP 403 `{"status": "error", "reason": …, "code": "API00xx"}`,
 * other errors `{"status": "error", "reason": …, "response_code": …}` with Bitstamp's response
 * codes (`BITSTAMP_RATE_LIMITED`: 400.002). A success carries `X-Server-Auth-Signature` =
 * hex(HMAC-SHA256(secret, nonce + timestamp + content type + body)), as documented.
 *
 * `user_transactions` as documented: newest first (`sort` desc, or asc), `offset` 0–200,000,
 * `limit` 1–1,000 (default 100), `since_timestamp` / `until_timestamp` (Unix seconds, at most 30
 * days in the past, else an error), `since_id` (that id and newer: our reading; the limit is then
 * 1,000). Each entry is one row with a column per currency (its amount, signed; the helpers below
 * add zero columns for usd, eur and btc, as numbers, as Bitstamp's examples show), `type` (0
 * deposit, 1 withdrawal, 2 market trade, 14 sub account transfer, …), `fee`, and for a trade the
 * pair's rate (`btc_usd`) and `order_id`. Markets name currencies in upper case (ccxt's example),
 * entries' columns in lower case.
 */

/** Bitstamp's key permissions (as on its key page) that these endpoints need. */
export type BitstampPermission = 'account_balance' | 'user_transactions' | 'deposit';

/** One `user_transactions` entry as Bitstamp answers it (the currency columns included). */
export type BitstampEntry = Record<string, string | number | boolean> & { id: number; datetime: string; type: string; fee: string };

export interface BitstampAccount {
  key: string;
  secret: string;
  permissions: Set<BitstampPermission>;
  /** Currency id (lowercase) → total and available. */
  balances: Record<string, { total: string; available: string }>;
  /** Any order: answered newest first, as Bitstamp does. */
  transactions: BitstampEntry[];
  /** How `since_id` is read: that id and newer (our reading, the default), newer only, or not at all (a broken answer). */
  sinceId?: 'inclusive' | 'exclusive' | 'ignored';
  /** Set to answer newest first whatever `sort` says (a broken answer: the walk must not take it for the oldest rows). */
  ignoresSort?: boolean;
  /** Currency id (lowercase) → its deposit address (and XRP's destination tag). */
  addresses: Record<string, { address: string; destination_tag?: number }>;
}

export interface FakeBitstamp extends FakeExchangeServer {
  /** A key with the permissions of a read-only key for us (account balance, user transactions) unless told otherwise. */
  addAccount(options?: Partial<Omit<BitstampAccount, 'key' | 'secret'>>): BitstampAccount;
}

/** The spot markets the fake lists (`GET /api/v2/markets/`, the fields ccxt reads). */
const MARKETS: readonly [string, string, number, number, string][] = [
  ['BTC', 'USD', 8, 0, 'Bitcoin / U.S. dollar'],
  ['BTC', 'EUR', 8, 0, 'Bitcoin / Euro'],
  ['ETH', 'USD', 8, 1, 'Ether / U.S. dollar'],
  ['ETH', 'BTC', 8, 8, 'Ether / Bitcoin'],
  ['XRP', 'USD', 8, 5, 'XRP / U.S. dollar'],
];

/** Which permission each private endpoint needs. */
function permissionFor(path: string): BitstampPermission | undefined {
  if (path === '/api/v2/account_balances/') return 'account_balance';
  if (path === '/api/v2/user_transactions/') return 'user_transactions';
  if (/^\/api\/v2\/[a-z]+_address\/$/.test(path)) return 'deposit';
  return undefined;
}

const WINDOW_MS = 150_000;
const MAX_OFFSET = 200_000;
const MAX_LIMIT = 1000;
const THIRTY_DAYS_S = 30 * 86_400;

const authFailure = (code: string, reason: string): FakeResponse => ({ status: 403, body: { status: 'error', reason, code } });
const failure = (status: number, responseCode: string, reason: string): FakeResponse => ({
  status,
  body: { status: 'error', reason, response_code: responseCode },
});

/**
 * Bitstamp's documented rate-limit answer: response code 400.002, "Request rejected due to
 * exceeded rate limit." (the HTTP status is our reading of the code's prefix; the reason text too).
 */
export const BITSTAMP_RATE_LIMITED: FakeResponse = {
  status: 400,
  body: {
    status: 'error',
    reason: 'Rate limit exceeded',
    response_code: '400.002',
    response_explanation: 'Request rejected due to exceeded rate limit.',
  },
};

/** The maintenance answer ccxt knows Bitstamp by (its `exceptions`; the HTTP status is our reading). */
export const BITSTAMP_MAINTENANCE: FakeResponse = {
  status: 503,
  body: { error: "Bitstamp.net is under scheduled maintenance. We'll be back soon." },
};

/** hex(HMAC-SHA256(secret, message)), the signature Bitstamp's v2 authentication uses both ways. */
export function bitstampHmac(secret: string, message: string): string {
  return createHmac('sha256', secret).update(message).digest('hex');
}

export async function startFakeBitstamp(): Promise<FakeBitstamp> {
  const accounts = new Map<string, BitstampAccount>();
  /** Nonces seen, with when: each may be used once within 150 s. */
  const nonces = new Map<string, number>();

  function authenticate(request: FakeRequest): { account: BitstampAccount; nonce: string; timestamp: string } | FakeResponse {
    const header = (name: string) => (typeof request.headers[name] === 'string' ? (request.headers[name] as string) : undefined);
    const xAuth = header('x-auth');
    const signature = header('x-auth-signature');
    const nonce = header('x-auth-nonce');
    const timestamp = header('x-auth-timestamp');
    const version = header('x-auth-version');
    if (xAuth === undefined) return authFailure('API0012', 'X-Auth header is required');
    if (signature === undefined) return authFailure('API0013', 'X-Auth-Signature header is required');
    if (nonce === undefined) return authFailure('API0014', 'X-Auth-Nonce header is required');
    if (timestamp === undefined) return authFailure('API0015', 'X-Auth-Timestamp header is required');
    if (version === undefined) return authFailure('API0016', 'X-Auth-Version header is required');
    const key = /^BITSTAMP (\S+)$/.exec(xAuth)?.[1];
    if (key === undefined) return authFailure('API0011', 'Wrong API key format');
    const account = accounts.get(key);
    if (!account) return authFailure('API0001', 'API key not found');
    if (version !== 'v2') return authFailure('API0010', 'Invalid version');
    if (!/^\d{13}$/.test(timestamp)) return authFailure('API0018', 'X-Auth-Timestamp header is invalid');
    if (Math.abs(Number(timestamp) - Date.now()) > WINDOW_MS) return authFailure('API0017', 'X-Auth-Timestamp header is out of boundaries');
    if (!/^[0-9a-z-]{36}$/.test(nonce)) return authFailure('API0004', 'Invalid nonce');
    const contentType = header('content-type');
    if (request.body !== '' && contentType !== 'application/x-www-form-urlencoded')
      return authFailure('API0019', 'Content-Type header is not accepted');
    if (request.body === '' && contentType !== undefined) return authFailure('API0020', 'Content-Type header should not be present');
    const message = `BITSTAMP ${key}${request.method}${header('host') ?? ''}${request.path}${request.rawQuery === '' ? '' : `?${request.rawQuery}`}${request.body === '' ? '' : contentType}${nonce}${timestamp}v2${request.body}`;
    const expected = Buffer.from(bitstampHmac(account.secret, message));
    const given = Buffer.from(signature.toLowerCase());
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return authFailure('API0005', 'Invalid signature');
    // Only a signed request uses up its nonce: nobody else can spend a key's nonces.
    const now = Date.now();
    for (const [seen, at] of nonces) if (now - at > WINDOW_MS) nonces.delete(seen);
    if (nonces.has(nonce)) return authFailure('API0004', 'Invalid nonce');
    nonces.set(nonce, now);
    const needed = permissionFor(request.path);
    if (needed && !account.permissions.has(needed)) return authFailure('API0003', 'No permission found');
    return { account, nonce, timestamp };
  }

  function privateCall(request: FakeRequest, account: BitstampAccount): FakeResponse {
    if (request.method !== 'POST') return failure(405, '405.001', 'GET method not allowed.');
    const params = new URLSearchParams(request.body);
    if (request.path === '/api/v2/account_balances/') {
      return {
        status: 200,
        body: Object.entries(account.balances).map(([currency, b]) => ({
          currency,
          total: b.total,
          available: b.available,
          reserved: subtract(b.total, b.available),
        })),
      };
    }
    if (request.path === '/api/v2/user_transactions/') return userTransactions(account, params);
    const address = /^\/api\/v2\/([a-z]+)_address\/$/.exec(request.path)?.[1];
    if (address !== undefined) {
      const found = account.addresses[address];
      if (!MARKETS.some(([base, quote]) => base.toLowerCase() === address || quote.toLowerCase() === address))
        return failure(404, '404.006', 'Currency not found for corresponding request.');
      return found ? { status: 200, body: found } : failure(404, '404.001', 'Unknown not found error.');
    }
    return failure(404, '404.001', `no endpoint ${request.path} in this fake`);
  }

  /** `user_transactions`, with the parameters and errors Bitstamp documents. */
  function userTransactions(account: BitstampAccount, params: URLSearchParams): FakeResponse {
    const number = (name: string) => (params.has(name) ? (params.get(name) ?? '') : undefined);
    const offset = number('offset') ?? '0';
    if (!/^\d+$/.test(offset) || Number(offset) > MAX_OFFSET) return failure(400, '400.010', 'Invalid offset');
    let limit = number('limit') ?? '100';
    if (!/^\d+$/.test(limit) || Number(limit) < 1) return failure(400, '400.011', 'Invalid limit');
    if (Number(limit) > MAX_LIMIT) return failure(400, '400.011', 'Limit too large');
    const sort = params.get('sort') ?? 'desc';
    if (sort !== 'asc' && sort !== 'desc') return failure(400, '400.012', 'Invalid sort parameter');
    const nowSeconds = Math.floor(Date.now() / 1000);
    const bounds: Record<string, number> = {};
    for (const [name, code] of [
      ['since_timestamp', '400.013'],
      ['until_timestamp', '400.034'],
    ] as const) {
      const value = number(name);
      if (value === undefined) continue;
      if (!/^\d+$/.test(value)) return failure(400, code, `Invalid ${name} parameter`);
      if (Number(value) < nowSeconds - THIRTY_DAYS_S)
        return failure(400, code, `${name} parameter must be higher than ${nowSeconds - THIRTY_DAYS_S}`);
      bounds[name] = Number(value);
    }
    const sinceId = number('since_id');
    if (sinceId !== undefined) {
      if (!/^\d+$/.test(sinceId)) return failure(400, '400.036', 'Invalid since_id parameter');
      limit = String(MAX_LIMIT);
    }
    const seconds = (entry: BitstampEntry) => Date.parse(`${entry.datetime.replace(' ', 'T')}Z`) / 1000;
    const matching = account.transactions
      .filter(
        (e) =>
          (bounds.since_timestamp === undefined || seconds(e) >= bounds.since_timestamp) &&
          (bounds.until_timestamp === undefined || seconds(e) <= bounds.until_timestamp),
      )
      .filter(
        (e) =>
          sinceId === undefined ||
          account.sinceId === 'ignored' ||
          e.id > Number(sinceId) ||
          (e.id === Number(sinceId) && account.sinceId !== 'exclusive'),
      )
      .sort((a, b) => (sort === 'desc' || account.ignoresSort === true ? 1 : -1) * (seconds(b) - seconds(a) || b.id - a.id));
    return { status: 200, body: matching.slice(Number(offset), Number(offset) + Number(limit)) };
  }

  const server = await startFakeExchangeServer(
    (request) => {
      if (request.path === '/api/v2/markets/' && request.method === 'GET') {
        return {
          status: 200,
          body: MARKETS.map(([base, quote, baseDecimals, counterDecimals, description]) => ({
            name: `${base}/${quote}`,
            market_symbol: `${base}${quote}`.toLowerCase(),
            base_currency: base,
            base_decimals: baseDecimals,
            counter_currency: quote,
            counter_decimals: counterDecimals,
            minimum_order_value: '10',
            trading: 'Enabled',
            instant_order_counter_decimals: 2,
            instant_and_market_orders: 'Enabled',
            description,
            market_type: 'SPOT',
          })),
        };
      }
      const authenticated = authenticate(request);
      if (!('account' in authenticated)) return authenticated;
      const response = privateCall(request, authenticated.account);
      if (response.status !== 200) return response;
      const signature = bitstampHmac(
        authenticated.account.secret,
        `${authenticated.nonce}${authenticated.timestamp}application/json${JSON.stringify(response.body)}`,
      );
      return { ...response, headers: { ...response.headers, 'X-Server-Auth-Signature': signature } };
    },
    { tls: SELF_SIGNED_TLS },
  );

  return Object.assign(server, {
    addAccount(options: Partial<Omit<BitstampAccount, 'key' | 'secret'>> = {}): BitstampAccount {
      const account: BitstampAccount = {
        key: randomBytes(16).toString('hex'),
        secret: randomBytes(16).toString('hex'),
        permissions: new Set<BitstampPermission>(['account_balance', 'user_transactions']),
        balances: {},
        transactions: [],
        addresses: {},
        ...options,
      };
      accounts.set(account.key, account);
      return account;
    },
  });
}

/** a − b for the fake's decimal strings (balances: the part reserved), exactly. */
function subtract(a: string, b: string): string {
  const scale = Math.max(decimals(a), decimals(b));
  const units = (text: string) => BigInt(text.replace('.', '') + '0'.repeat(scale - decimals(text)));
  const difference = units(a) - units(b);
  const digits = (difference < 0n ? -difference : difference).toString().padStart(scale + 1, '0');
  return `${difference < 0n ? '-' : ''}${scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`}`;
}

const decimals = (text: string) => (text.includes('.') ? text.length - text.indexOf('.') - 1 : 0);

/** Bitstamp's `datetime`: UTC, microseconds, a space between date and time. */
export const bitstampTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000');

/**
 * The zero columns Bitstamp's examples show on every entry (as JSON numbers), with the zero rate
 * of a pair no trade of the entry's (`btc_usd`, as its deposit examples carry).
 */
const ZEROS = { usd: 0, eur: 0, btc: 0, btc_usd: 0 };

/** A deposit (positive) or withdrawal (negative `amount`) of one currency. */
export function bitstampTransfer(id: number, ms: number, currency: string, amount: string, fee = '0.00000000'): BitstampEntry {
  return { ...ZEROS, id, datetime: bitstampTime(ms), type: amount.startsWith('-') ? '1' : '0', fee, [currency]: amount };
}

/**
 * A market trade: `base` bought (positive) or sold (negative), `quote` paid or received, both as
 * Bitstamp books them (the quote rounded to the market's decimals, not price × amount), the fee
 * in the quote currency.
 */
export function bitstampTrade(
  id: number,
  ms: number,
  pair: [string, string],
  base: string,
  quote: string,
  rate: number,
  fee: string,
  orderId = id * 7,
): BitstampEntry {
  const [b, q] = pair;
  return {
    ...ZEROS,
    id,
    datetime: bitstampTime(ms),
    type: '2',
    fee,
    [b]: base,
    [q]: quote,
    [`${b}_${q}`]: rate,
    order_id: orderId,
    self_trade: false,
    self_trade_order_id: '',
  };
}
