import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { addDecimals } from '../../src/connect/amounts.js';
import { startFakeExchangeServer, type FakeExchangeServer, type FakeRequest, type FakeResponse } from './fake-exchange-server.js';

/**
 * A local Bitfinex REST API v2 (https://docs.bitfinex.com/), public and authenticated endpoints on
 * one origin, enough of it for ccxt's bitfinex class to load markets and currencies (`conf`), read
 * the wallets, the key's permissions and the ledgers — checking every authenticated request as
 * Bitfinex documents it ("Authenticated Endpoints", "Requirements and Limitations"):
 *
 * - a POST with a JSON body (`{}` at least);
 * - `bfx-apikey` names a known, unrevoked key (else 10100 "apikey: invalid");
 * - `bfx-signature` = hex(HMAC-SHA384(secret, "/api" + path + nonce + body)), the body exactly as
 *   sent (else 10100 "apikey: digest invalid");
 * - `bfx-nonce` is an integer no larger than 9007199254740991 (MAX_SAFE_INTEGER) and larger than
 *   the key's last one: each key has its own strictly increasing nonce (else 10114 "nonce: small").
 *
 * Ledgers (`auth/r/ledgers/hist`) as documented: every wallet's entries, newest first, `limit`
 * entries (25 unless asked, 2,500 at most: else 10020 "limit: invalid"), `start` and `end`
 * (milliseconds) bounding MTS, nothing older than six years. `end` is inclusive: entries at that
 * millisecond are answered again. Bitfinex does not say so; it is how its own report tool
 * (bitfinexcom/bfx-report) pages, dropping a full page's last millisecond and asking again with
 * `end` = that millisecond. An entry is `[ID, CURRENCY, WALLET, MTS, null, AMOUNT, BALANCE, null,
 * DESCRIPTION]`, amounts JSON numbers, BALANCE the wallet's balance after it.
 *
 * Candles (`candles/trade:1h:tBTCEUR/hist`, public, "Candles" in the API reference): hourly
 * candles `[MTS, OPEN, CLOSE, HIGH, LOW, VOLUME]` (JSON numbers) of the hours the test's series
 * has a close for (an hour without one had no trade, and Bitfinex publishes no candle for it), up to
 * the current, unfinished hour; `limit` candles (100 unless asked, 10,000 at most: else 10020),
 * `start` and `end` (milliseconds, inclusive) bounding MTS, newest first unless `sort=1`; a
 * `start` that is not a whole number of candles answers `[]` (as ccxt's issue #3393 found).
 *
 * Errors are `["error", CODE, "message"]` with HTTP 500, as Bitfinex answers a refusal. A rate
 * limit is `{"error": "ERR_RATE_LIMIT"}` (the documented answer; HTTP 429, as seen in answers
 * quoted in ccxt's issues) for every request until lifted, the IP being blocked. Maintenance:
 * `platform/status` answers `[0]` and every other call `["error", 20060, "maintenance"]`.
 */

/** The scopes of a key (`auth/r/permissions`, Bitfinex's documented list). */
export const BITFINEX_SCOPES = [
  'account',
  'history',
  'orders',
  'positions',
  'funding',
  'settings',
  'wallets',
  'withdraw',
  'ui_withdraw',
  'bfxpay',
] as const;
export type BitfinexScope = (typeof BITFINEX_SCOPES)[number];

export type BitfinexWallet = 'exchange' | 'margin' | 'funding';

export interface BitfinexLedgerEntry {
  id: number;
  /** Bitfinex's currency id (`UST` for Tether). */
  currency: string;
  wallet: BitfinexWallet;
  mts: number;
  /** Signed decimal text; answered as a JSON number. */
  amount: string;
  description: string;
}

export interface BitfinexAccount {
  key: string;
  secret: string;
  /** The scopes the key may write (every scope is readable). */
  writes: BitfinexScope[];
  /** Any order; answered newest first. Each wallet's balance is its entries added up. */
  ledger: BitfinexLedgerEntry[];
  /** Set to read `end` as exclusive (the other reading of Bitfinex's silence): the walk must not depend on which. */
  endExclusive?: boolean;
}

export interface FakeBitfinex extends FakeExchangeServer {
  /** A read-only key unless told otherwise. */
  addAccount(options?: Partial<Omit<BitfinexAccount, 'key' | 'secret'>>): BitfinexAccount;
  /** The key stops working, as when it is deleted on Bitfinex's key page. */
  revoke(account: BitfinexAccount): void;
  setStatus(status: 'operative' | 'maintenance'): void;
  /** While on, every request gets the rate-limit answer (the IP is blocked). */
  setRateLimited(on: boolean): void;
  /** Each wallet's balance (type, Bitfinex currency id, decimal text), from the ledger. */
  walletsOf(account: BitfinexAccount): { type: BitfinexWallet; currency: string; balance: string }[];
  /** The bodies of the ledger requests from request number `from` on. */
  ledgerCalls(from?: number): Record<string, unknown>[];
  /** The hourly closes the candles endpoint answers: pair (`BTCEUR`) and open time (ms) → close, or undefined for no trade. */
  setCandles(series: (pair: string, openMs: number) => string | undefined): void;
  /** The query of every candles request from request number `from` on, with the pair asked. */
  candleCalls(from?: number): Record<string, string>[];
}

const LEDGER_DEFAULT = 25;
const CANDLES_DEFAULT = 100;
const CANDLES_MAX = 10_000;
const HOUR_MS = 3_600_000;
const LEDGER_MAX = 2500;
const SIX_YEARS_MS = 6 * 365.25 * 86_400_000;

/** Spot pairs (`pub:info:pair`: min and max order size at [3] and [4]). */
const PAIRS = ['BTCUSD', 'BTCEUR', 'BTCGBP', 'BTCJPY', 'BTCUST', 'ETHUSD', 'ETHBTC', 'ETHUST', 'USTUSD'];
const CURRENCIES: Record<string, { label: string; method?: string; explorer?: string }> = {
  BTC: { label: 'Bitcoin', method: 'BITCOIN', explorer: 'https://blockstream.info' },
  ETH: { label: 'Ethereum', method: 'ETHEREUM', explorer: 'https://etherscan.io' },
  UST: { label: 'Tether USDt', method: 'TETHERUSX', explorer: 'https://tronscan.org' },
  USD: { label: 'US Dollar' },
  EUR: { label: 'Euro' },
  GBP: { label: 'British Pound' },
  JPY: { label: 'Japanese Yen' },
};

/** The `conf/{config}` answers, by label: what ccxt's fetchMarkets and fetchCurrencies ask for. */
const CONF: Record<string, unknown[]> = {
  'pub:info:pair': PAIRS.map((pair) => [pair, [null, null, null, '0.0002', '2000.0', null, null, null, 0.2, 0.1]]),
  'pub:info:pair:futures': [],
  'pub:list:pair:securities': [],
  'pub:list:pair:margin': ['BTCUSD', 'ETHUSD'],
  'pub:list:currency': Object.keys(CURRENCIES),
  'pub:map:currency:sym': [['UST', 'USDt']],
  'pub:map:currency:label': Object.entries(CURRENCIES).map(([id, c]) => [id, c.label]),
  'pub:map:currency:unit': [],
  'pub:map:currency:undl': [],
  'pub:map:currency:pool': [['UST', 'TRX']],
  'pub:map:currency:explorer': Object.entries(CURRENCIES).flatMap(([id, c]) =>
    c.explorer ? [[id, [c.explorer, `${c.explorer}/address/VAL`, `${c.explorer}/tx/VAL`]]] : [],
  ),
  'pub:map:currency:tx:fee': Object.keys(CURRENCIES).map((id) => [id, [0, 0.0004]]),
  'pub:map:tx:method': Object.entries(CURRENCIES).flatMap(([id, c]) => (c.method ? [[c.method, [id]]] : [])),
  'pub:info:tx:status': Object.values(CURRENCIES).flatMap((c) =>
    c.method ? [[c.method, 1, 1, null, null, null, null, 0, 0, null, null, 3]] : [],
  ),
  'pub:list:currency:margin': ['BTC', 'USD'],
};

const ok = (body: unknown): FakeResponse => ({ status: 200, body });
const refused = (code: number, message: string): FakeResponse => ({ status: 500, body: ['error', code, message] });
const RATE_LIMITED: FakeResponse = { status: 429, body: { error: 'ERR_RATE_LIMIT' } };
const MAINTENANCE = refused(20060, 'maintenance');

/** Bitfinex's `bfx-signature`, computed from its documented definition. */
export function bitfinexSignature(secret: string, path: string, nonce: string, body: string): string {
  return createHmac('sha384', secret).update(`/api${path}${nonce}${body}`).digest('hex');
}

/** A whole number of milliseconds from a JSON body, or undefined when absent; null when malformed. */
function millis(value: unknown): number | undefined | null {
  if (value === undefined) return undefined;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

export async function startFakeBitfinex(): Promise<FakeBitfinex> {
  const accounts = new Map<string, BitfinexAccount>();
  const lastNonce = new Map<string, bigint>();
  const state = { status: 'operative' as 'operative' | 'maintenance', rateLimited: false };
  let series: (pair: string, openMs: number) => string | undefined = () => undefined;

  function walletsOf(account: BitfinexAccount) {
    const balances = new Map<string, { type: BitfinexWallet; currency: string; balance: string }>();
    for (const entry of [...account.ledger].sort((a, b) => a.mts - b.mts || a.id - b.id)) {
      const key = `${entry.wallet}:${entry.currency}`;
      const wallet = balances.get(key) ?? { type: entry.wallet, currency: entry.currency, balance: '0' };
      balances.set(key, { ...wallet, balance: addDecimals(wallet.balance, entry.amount) });
    }
    return [...balances.values()];
  }

  /** Every entry with the balance of its wallet after it, oldest first. */
  function withBalances(account: BitfinexAccount): (BitfinexLedgerEntry & { balance: string })[] {
    const running = new Map<string, string>();
    return [...account.ledger]
      .sort((a, b) => a.mts - b.mts || a.id - b.id)
      .map((entry) => {
        const key = `${entry.wallet}:${entry.currency}`;
        const balance = addDecimals(running.get(key) ?? '0', entry.amount);
        running.set(key, balance);
        return { ...entry, balance };
      });
  }

  function authenticate(request: FakeRequest): { account: BitfinexAccount; body: Record<string, unknown> } | FakeResponse {
    if (request.method !== 'POST') return refused(10020, 'method: invalid');
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return refused(10020, 'body: invalid');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return refused(10020, 'body: invalid');
    const account = accounts.get(String(request.headers['bfx-apikey'] ?? ''));
    if (!account) return refused(10100, 'apikey: invalid');
    const nonce = String(request.headers['bfx-nonce'] ?? '');
    const expected = Buffer.from(bitfinexSignature(account.secret, request.path, nonce, request.body));
    const given = Buffer.from(String(request.headers['bfx-signature'] ?? ''));
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return refused(10100, 'apikey: digest invalid');
    if (
      !/^\d{1,16}$/.test(nonce) ||
      BigInt(nonce) > BigInt(Number.MAX_SAFE_INTEGER) ||
      BigInt(nonce) <= (lastNonce.get(account.key) ?? -1n)
    )
      return refused(10114, 'nonce: small');
    lastNonce.set(account.key, BigInt(nonce));
    return { account, body: body as Record<string, unknown> };
  }

  function ledgers(account: BitfinexAccount, body: Record<string, unknown>): FakeResponse {
    const limit = body.limit === undefined ? LEDGER_DEFAULT : body.limit;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > LEDGER_MAX) return refused(10020, 'limit: invalid');
    const start = millis(body.start);
    const end = millis(body.end);
    if (start === null || end === null) return refused(10020, 'time_interval: invalid');
    const oldest = Date.now() - SIX_YEARS_MS;
    const page = withBalances(account)
      .filter(
        (e) =>
          e.mts >= oldest &&
          (start === undefined || e.mts >= start) &&
          (end === undefined || e.mts < end || (e.mts === end && account.endExclusive !== true)),
      )
      .sort((a, b) => b.mts - a.mts || b.id - a.id)
      .slice(0, limit);
    return ok(page.map((e) => [e.id, e.currency, e.wallet, e.mts, null, Number(e.amount), Number(e.balance), null, e.description]));
  }

  function privateCall(request: FakeRequest, account: BitfinexAccount, body: Record<string, unknown>): FakeResponse {
    switch (request.path) {
      case '/v2/auth/r/wallets':
        return ok(walletsOf(account).map((w) => [w.type, w.currency, Number(w.balance), 0, Number(w.balance), null, null]));
      case '/v2/auth/r/permissions':
        return ok(BITFINEX_SCOPES.map((scope) => [scope, 1, account.writes.includes(scope) ? 1 : 0]));
      case '/v2/auth/r/ledgers/hist':
        return ledgers(account, body);
      default:
        return refused(10020, `no endpoint ${request.path} in this fake`);
    }
  }

  /** Query parameters that must be whole numbers; null when one is not. */
  function wholeNumbers(query: URLSearchParams, names: string[]): Record<string, number | undefined> | null {
    const values: Record<string, number | undefined> = {};
    for (const name of names) {
      const text = query.get(name);
      if (text !== null && !/^\d+$/.test(text)) return null;
      values[name] = text === null ? undefined : Number(text);
    }
    return values;
  }

  function candles(pair: string, query: URLSearchParams): FakeResponse {
    const numbers = wholeNumbers(query, ['limit', 'start', 'end']);
    if (!numbers) return refused(10020, 'time_interval: invalid');
    const { limit = CANDLES_DEFAULT, start, end } = numbers;
    if (limit < 1 || limit > CANDLES_MAX) return refused(10020, 'limit: invalid');
    if (start !== undefined && start % HOUR_MS !== 0) return ok([]);
    const current = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    const last = Math.min(current, end === undefined ? current : Math.floor(end / HOUR_MS) * HOUR_MS);
    const ascending = query.get('sort') === '1';
    const rows: number[][] = [];
    // Ascending from `start` (or, newest first, down from `last`), skipping hours without trade.
    for (
      let open = ascending ? (start ?? 0) : last, steps = 0;
      rows.length < limit && steps < 200_000 && (ascending ? open <= last : open >= (start ?? 0));
      open += ascending ? HOUR_MS : -HOUR_MS, steps++
    ) {
      const close = series(pair, open);
      if (close === undefined) continue;
      const previous = series(pair, open - HOUR_MS) ?? close;
      const [high, low] = Number(close) > Number(previous) ? [close, previous] : [previous, close];
      rows.push([open, Number(previous), Number(close), Number(high), Number(low), 1.5]);
    }
    return ok(rows);
  }

  function publicCall(request: FakeRequest): FakeResponse {
    if (request.path === '/v2/platform/status') return ok([state.status === 'operative' ? 1 : 0]);
    if (state.status !== 'operative') return MAINTENANCE;
    const candle = /^\/v2\/candles\/trade:([^:]+):t([A-Z]+)\/hist$/.exec(decodeURIComponent(request.path));
    if (request.method === 'GET' && candle)
      return candle[1] === '1h' ? candles(candle[2] as string, request.query) : refused(10020, 'only 1h candles in this fake');
    const conf = /^\/v2\/conf\/(.+)$/.exec(request.path);
    if (request.method !== 'GET' || !conf) return refused(10020, `no endpoint ${request.path} in this fake`);
    const labels = decodeURIComponent(conf[1] as string).split(',');
    if (!labels.every((label) => label in CONF)) return refused(10020, 'config: invalid');
    return ok(labels.map((label) => CONF[label]));
  }

  const server = await startFakeExchangeServer((request) => {
    if (state.rateLimited) return RATE_LIMITED;
    if (!request.path.startsWith('/v2/auth/')) return publicCall(request);
    const authenticated = authenticate(request);
    if (!('account' in authenticated)) return authenticated;
    if (state.status !== 'operative') return MAINTENANCE;
    return privateCall(request, authenticated.account, authenticated.body);
  });

  return Object.assign(server, {
    addAccount(options: Partial<Omit<BitfinexAccount, 'key' | 'secret'>> = {}): BitfinexAccount {
      const account: BitfinexAccount = {
        key: randomBytes(21).toString('hex'),
        secret: randomBytes(21).toString('hex'),
        writes: [],
        ledger: [],
        ...options,
      };
      accounts.set(account.key, account);
      return account;
    },
    revoke(account: BitfinexAccount) {
      accounts.delete(account.key);
    },
    setStatus(status: 'operative' | 'maintenance') {
      state.status = status;
    },
    setRateLimited(on: boolean) {
      state.rateLimited = on;
    },
    walletsOf,
    setCandles(closes: (pair: string, openMs: number) => string | undefined) {
      series = closes;
    },
    candleCalls: (from = 0) =>
      server.requests.slice(from).flatMap((r) => {
        const candle = /^\/v2\/candles\/trade:[^:]+:t([A-Z]+)\/hist$/.exec(decodeURIComponent(r.path));
        return candle ? [{ pair: candle[1] as string, ...Object.fromEntries(r.query) }] : [];
      }),
    ledgerCalls: (from = 0) =>
      server.requests
        .slice(from)
        .filter((r) => r.path === '/v2/auth/r/ledgers/hist')
        .map((r) => JSON.parse(r.body) as Record<string, unknown>),
  });
}

/**
 * A deterministic ledger, as Bitfinex describes its entries: USD and BTC deposits, a BTC sale on
 * the exchange wallet (two legs and the trading fee), a move of USD to the funding wallet and BTC
 * to the margin wallet (each an entry in both wallets), funding interest, a BTC withdrawal and its
 * fee, a Tether (UST) deposit; then `padding` funding payments of 0.01 USD, `perMillisecond` to a
 * millisecond, older than the rest, so that pages of 2,500 end inside a millisecond. Ids rise with
 * time from `firstId`; the newest entry is an hour before `now`.
 */
export function bitfinexLedger(
  options: { padding?: number; perMillisecond?: number; firstId?: number; now?: number } = {},
): BitfinexLedgerEntry[] {
  const { padding = 0, perMillisecond = 7, firstId = 1000, now = Date.now() } = options;
  let id = firstId;
  const entries: BitfinexLedgerEntry[] = [];
  const add = (daysAgo: number, wallet: BitfinexWallet, currency: string, amount: string, description: string) =>
    entries.push({ id: id++, currency, wallet, mts: Math.floor(now - 3_600_000 - daysAgo * 86_400_000), amount, description });
  const base = Math.floor(now - 50 * 86_400_000);
  for (let i = 0; i < padding; i++)
    entries.push({
      id: id++,
      currency: 'USD',
      wallet: 'funding',
      mts: base + Math.floor(i / perMillisecond),
      amount: '0.01',
      description: 'Margin Funding Payment on wallet funding',
    });
  add(40, 'exchange', 'USD', '10000', 'Deposit (WIRE) #5001 on wallet exchange');
  add(39, 'exchange', 'BTC', '0.5', 'Deposit (BITCOIN) #5002 on wallet exchange');
  add(30, 'exchange', 'BTC', '-0.1', 'Exchange 0.1 BTC for USD @ 30000 on wallet exchange');
  add(30, 'exchange', 'USD', '3000', 'Exchange 0.1 BTC for USD @ 30000 on wallet exchange');
  add(30, 'exchange', 'USD', '-6', 'Trading fees for 0.1 BTC (BTCUSD) @ 30000 on BFX (0.2%) on wallet exchange');
  add(20, 'exchange', 'USD', '-2000', 'Transfer of 2000 USD from wallet Exchange to Funding on wallet exchange');
  add(20, 'funding', 'USD', '2000', 'Transfer of 2000 USD from wallet Exchange to Funding on wallet funding');
  add(15, 'exchange', 'BTC', '-0.1', 'Transfer of 0.1 BTC from wallet Exchange to Margin on wallet exchange');
  add(15, 'margin', 'BTC', '0.1', 'Transfer of 0.1 BTC from wallet Exchange to Margin on wallet margin');
  add(12, 'funding', 'USD', '1.23456789', 'Margin Funding Payment on wallet funding');
  add(10, 'exchange', 'BTC', '-0.05', 'Bitcoin Withdrawal #5003 on wallet exchange');
  add(10, 'exchange', 'BTC', '-0.0004', 'Crypto Withdrawal fee on wallet exchange');
  add(0, 'exchange', 'UST', '250.5', 'Deposit (TETHERUSX) #5004 on wallet exchange');
  return entries;
}
