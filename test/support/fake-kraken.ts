import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { startFakeExchangeServer, type FakeExchangeServer, type FakeRequest, type FakeResponse } from './fake-exchange-server.js';

/**
 * A local Kraken spot REST API (https://docs.kraken.com/api-reference/), enough of it for ccxt's
 * kraken class to connect, read balances, walk the ledger and look up deposit addresses — checking
 * every private request exactly as Kraken documents:
 *
 * - `API-Key` header names the key; `API-Sign` = base64(HMAC-SHA512(base64decode(secret),
 *   uri_path + SHA256(nonce + POST body))), the body being the form-encoded parameters with `nonce`;
 * - the nonce must be higher than the key's last one (`EAPI:Invalid nonce`);
 * - each endpoint needs its key permission (`EGeneral:Permission denied`).
 *
 * Public OHLC (`/0/public/OHLC?pair&interval=60&since`): as Kraken documents it, "up to 720 of the
 * most recent entries (older data cannot be retrieved, regardless of the value of since)", the
 * last one the current, unfinished hour; entries with a time after `since`; `last` the time of
 * the newest committed one. `[time, open, high, low, close, vwap, volume, count]`, prices as text.
 *
 * Answers have Kraken's shapes: HTTP 200 with `{"error": [...], "result": ...}`; errors are strings
 * such as `EAPI:Invalid key`, `EAPI:Rate limit exceeded`, `EService:Unavailable`.
 */

/** Kraken's key permissions, named as on its key page (the ones these endpoints need). */
export type KrakenPermission = 'query_funds' | 'query_ledger' | 'query_trades' | 'deposit_funds';

export interface KrakenLedgerEntry {
  id: string;
  refid: string;
  time: number;
  type: 'deposit' | 'withdrawal' | 'trade' | 'transfer';
  asset: string;
  amount: string;
  fee: string;
  balance: string;
}

export interface KrakenAccount {
  key: string;
  /** Base64, as Kraken hands it out. */
  secret: string;
  permissions: Set<KrakenPermission>;
  /** Kraken asset id → balance and the part held by open orders. */
  balances: Record<string, { balance: string; hold_trade: string }>;
  /** Any order; answered newest first, like Kraken. */
  ledger: KrakenLedgerEntry[];
  /** Kraken asset id → deposit address (its method is the asset's first deposit method). */
  depositAddresses: Record<string, string>;
  /** Set by a test: every private call of this key fails with this Kraken error. */
  failWith?: string;
  /** Set by a test: a Ledgers call at this offset fails with `EService:Unavailable` (a page mid-walk). */
  failLedgerAtOffset?: number;
}

export interface FakeKraken extends FakeExchangeServer {
  /** Adds a key with the permissions a read-only key for us has (all four) unless told otherwise. */
  addAccount(options?: Partial<Omit<KrakenAccount, 'key' | 'secret'>>): KrakenAccount;
  /** `maintenance`: SystemStatus says so and private calls answer `EService:Unavailable`; `online` again after. */
  setStatus(status: 'online' | 'maintenance'): void;
  /** The `ofs` of every Ledgers request, in order. */
  ledgerOffsets(): number[];
  /** The hourly closes OHLC answers: pair id (`XBTCHF`) and open time (Unix seconds) → close, or undefined for no trade. */
  setCandles(series: (pair: string, open: number) => string | undefined): void;
  /** The query of every OHLC request, in order. */
  ohlcCalls(): Record<string, string>[];
}

const LEDGER_PAGE = 50;

const ASSETS = {
  XXBT: { aclass: 'currency', altname: 'XBT', decimals: 10, display_decimals: 5, collateral_value: 1, status: 'enabled' },
  XETH: { aclass: 'currency', altname: 'ETH', decimals: 10, display_decimals: 5, collateral_value: 1, status: 'enabled' },
  ZEUR: { aclass: 'currency', altname: 'EUR', decimals: 4, display_decimals: 2, collateral_value: 1, status: 'enabled' },
  ZUSD: { aclass: 'currency', altname: 'USD', decimals: 4, display_decimals: 2, collateral_value: 1, status: 'enabled' },
  CHF: { aclass: 'currency', altname: 'CHF', decimals: 4, display_decimals: 2, collateral_value: 1, status: 'enabled' },
  ZCAD: { aclass: 'currency', altname: 'CAD', decimals: 4, display_decimals: 2, collateral_value: 1, status: 'enabled' },
};

function assetPair(base: string, quote: string, altname: string, wsname: string) {
  return {
    altname,
    wsname,
    aclass_base: 'currency',
    base,
    aclass_quote: 'currency',
    quote,
    lot: 'unit',
    cost_decimals: 5,
    pair_decimals: 1,
    lot_decimals: 8,
    lot_multiplier: 1,
    leverage_buy: [2, 3],
    leverage_sell: [2, 3],
    fees: [
      [0, 0.26],
      [50000, 0.24],
    ],
    fees_maker: [
      [0, 0.16],
      [50000, 0.14],
    ],
    fee_volume_currency: 'ZUSD',
    margin_call: 80,
    margin_stop: 40,
    ordermin: '0.0001',
    costmin: '0.5',
    tick_size: '0.1',
    status: 'online',
  };
}

const ASSET_PAIRS = {
  XXBTZEUR: assetPair('XXBT', 'ZEUR', 'XBTEUR', 'XBT/EUR'),
  XXBTZUSD: assetPair('XXBT', 'ZUSD', 'XBTUSD', 'XBT/USD'),
  XETHZEUR: assetPair('XETH', 'ZEUR', 'ETHEUR', 'ETH/EUR'),
  XBTCHF: assetPair('XXBT', 'CHF', 'XBTCHF', 'XBT/CHF'),
  XXBTZCAD: assetPair('XXBT', 'ZCAD', 'XBTCAD', 'XBT/CAD'),
};

const OHLC_ENTRIES = 720;

const DEPOSIT_METHODS: Record<string, { method: string; limit: false; fee: string; 'gen-address': boolean; minimum: string }[]> = {
  XXBT: [{ method: 'Bitcoin', limit: false, fee: '0.0000000000', 'gen-address': true, minimum: '0.00010000' }],
  XETH: [{ method: 'Ether (Hex)', limit: false, fee: '0.0000000000', 'gen-address': true, minimum: '0.00010000' }],
  ZEUR: [{ method: 'SEPA (Bank Transfer)', limit: false, fee: '0.0000000000', 'gen-address': false, minimum: '1.00' }],
};

/** Which permission each private endpoint needs (Kraken's API reference, "API Key Permissions Required"). */
const NEEDS: Record<string, KrakenPermission> = {
  Balance: 'query_funds',
  BalanceEx: 'query_funds',
  Ledgers: 'query_ledger',
  QueryLedgers: 'query_ledger',
  TradesHistory: 'query_trades',
  DepositMethods: 'deposit_funds',
  DepositAddresses: 'deposit_funds',
};

const ok = (result: unknown): FakeResponse => ({ status: 200, body: { error: [], result } });
const fail = (error: string): FakeResponse => ({ status: 200, body: { error: [error] } });

/** The API-Sign Kraken expects for this request, computed from its documented definition. */
export function krakenSignature(secret: string, uriPath: string, nonce: string, body: string): string {
  const digest = createHash('sha256')
    .update(nonce + body)
    .digest();
  return createHmac('sha512', Buffer.from(secret, 'base64'))
    .update(Buffer.concat([Buffer.from(uriPath), digest]))
    .digest('base64');
}

export async function startFakeKraken(): Promise<FakeKraken> {
  const accounts = new Map<string, KrakenAccount>();
  const lastNonce = new Map<string, bigint>();
  const state = { status: 'online' as 'online' | 'maintenance' };
  let series: (pair: string, open: number) => string | undefined = () => undefined;

  function ohlc(query: URLSearchParams): FakeResponse {
    const pair = query.get('pair') ?? '';
    if (!(pair in ASSET_PAIRS)) return fail('EQuery:Unknown asset pair');
    if (query.get('interval') !== '60') return fail('EGeneral:Invalid arguments');
    const since = Number(query.get('since') ?? '0');
    const current = Math.floor(Date.now() / 3_600_000) * 3600;
    const entries: (string | number)[][] = [];
    for (let open = current - (OHLC_ENTRIES - 1) * 3600; open <= current; open += 3600) {
      const close = series(pair, open);
      if (close === undefined || open <= since) continue;
      const previous = series(pair, open - 3600) ?? close;
      const [high, low] = Number(close) > Number(previous) ? [close, previous] : [previous, close];
      entries.push([open, previous, high, low, close, close, '1.50000000', 12]);
    }
    return ok({ [pair]: entries, last: current - 3600 });
  }

  function publicCall(method: string, request: FakeRequest): FakeResponse {
    switch (method) {
      case 'OHLC':
        return ohlc(request.query);
      case 'Time': {
        const now = Math.floor(Date.now() / 1000);
        return ok({ unixtime: now, rfc1123: new Date(now * 1000).toUTCString() });
      }
      case 'SystemStatus':
        return ok({ status: state.status, timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });
      case 'Assets':
        return ok(ASSETS);
      case 'AssetPairs':
        return ok(ASSET_PAIRS);
      default:
        return fail('EGeneral:Unknown method');
    }
  }

  function privateCall(request: FakeRequest, method: string): FakeResponse {
    if (request.method !== 'POST') return fail('EGeneral:Invalid arguments');
    const account = accounts.get(String(request.headers['api-key'] ?? ''));
    if (!account) return fail('EAPI:Invalid key');
    const params = new URLSearchParams(request.body);
    const nonce = params.get('nonce') ?? '';
    if (!/^\d{1,20}$/.test(nonce)) return fail('EAPI:Invalid nonce');
    const expected = Buffer.from(krakenSignature(account.secret, request.path, nonce, request.body));
    const given = Buffer.from(String(request.headers['api-sign'] ?? ''));
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return fail('EAPI:Invalid signature');
    if (BigInt(nonce) <= (lastNonce.get(account.key) ?? -1n)) return fail('EAPI:Invalid nonce');
    lastNonce.set(account.key, BigInt(nonce));
    if (state.status !== 'online') return fail('EService:Unavailable');
    if (account.failWith) return fail(account.failWith);
    const needed = NEEDS[method];
    if (!needed) return fail('EGeneral:Unknown method');
    if (!account.permissions.has(needed)) return fail('EGeneral:Permission denied');
    switch (method) {
      case 'Balance':
        return ok(Object.fromEntries(Object.entries(account.balances).map(([asset, b]) => [asset, b.balance])));
      case 'BalanceEx':
        return ok(account.balances);
      case 'Ledgers':
        return ledgers(account, params);
      case 'TradesHistory':
        return ok({ trades: {}, count: 0 });
      case 'DepositMethods': {
        const methods = DEPOSIT_METHODS[params.get('asset') ?? ''];
        return methods ? ok(methods) : fail('EFunding:Unknown asset');
      }
      default: {
        const asset = params.get('asset') ?? '';
        const address = account.depositAddresses[asset];
        if (!DEPOSIT_METHODS[asset]?.some((m) => m.method === params.get('method'))) return fail('EFunding:No funding method');
        return ok(address ? [{ address, expiretm: '0', new: false }] : []);
      }
    }
  }

  /** Ledgers: newest first, 50 a page from `ofs`; `start` exclusive, `end` inclusive (Unix times); `count` of all that match. */
  function ledgers(account: KrakenAccount, params: URLSearchParams): FakeResponse {
    const offset = Number(params.get('ofs') ?? '0');
    if (!Number.isInteger(offset) || offset < 0) return fail('EGeneral:Invalid arguments');
    if (account.failLedgerAtOffset === offset) return fail('EService:Unavailable');
    const start = params.has('start') ? Number(params.get('start')) : -Infinity;
    const end = params.has('end') ? Number(params.get('end')) : Infinity;
    const matching = account.ledger.filter((e) => e.time > start && e.time <= end).sort((a, b) => b.time - a.time);
    const page = matching.slice(offset, offset + LEDGER_PAGE);
    return ok({
      ledger: Object.fromEntries(page.map(({ id, ...entry }) => [id, { ...entry, subtype: '', aclass: 'currency' }])),
      count: matching.length,
    });
  }

  const server = await startFakeExchangeServer((request) => {
    const match = /^\/0\/(public|private)\/([A-Za-z]+)$/.exec(request.path);
    if (!match) return { status: 404, body: { error: ['EGeneral:Unknown method'] } };
    return match[1] === 'public' ? publicCall(match[2] as string, request) : privateCall(request, match[2] as string);
  });

  return Object.assign(server, {
    setStatus(status: 'online' | 'maintenance') {
      state.status = status;
    },
    addAccount(options: Partial<Omit<KrakenAccount, 'key' | 'secret'>> = {}): KrakenAccount {
      const account: KrakenAccount = {
        key: randomBytes(42).toString('base64'),
        secret: randomBytes(64).toString('base64'),
        permissions: new Set<KrakenPermission>(['query_funds', 'query_ledger', 'query_trades', 'deposit_funds']),
        balances: {},
        ledger: [],
        depositAddresses: {},
        ...options,
      };
      accounts.set(account.key, account);
      return account;
    },
    setCandles(closes: (pair: string, open: number) => string | undefined) {
      series = closes;
    },
    ohlcCalls: () => server.requests.filter((r) => r.path === '/0/public/OHLC').map((r) => Object.fromEntries(r.query)),
    ledgerOffsets: () =>
      server.requests.filter((r) => r.path === '/0/private/Ledgers').map((r) => Number(new URLSearchParams(r.body).get('ofs') ?? '0')),
  });
}

/**
 * A deterministic ledger of `count` entries, oldest at `startTime`, one every `spacing` seconds: EUR
 * deposits, BTC buys (two legs, the fee on the EUR leg), BTC withdrawals. Amounts have Kraken's 10
 * (BTC) and 4 (EUR) decimal places. `first` numbers the entries (ids), so a later batch made with
 * `first` = the earlier count continues the same ledger.
 */
export function krakenLedger(count: number, options: { startTime?: number; spacing?: number; first?: number } = {}): KrakenLedgerEntry[] {
  const { startTime = 1_767_603_600, spacing = 60, first = 0 } = options;
  const entries: KrakenLedgerEntry[] = [];
  const id = (prefix: string, index: number) => {
    const n = first + index;
    return `${prefix}${n.toString(36).toUpperCase().padStart(5, '0')}-K${(n % 97).toString(36).toUpperCase().padStart(4, '0')}-F${n.toString(16).toUpperCase().padStart(5, '0')}`;
  };
  for (let i = 0; entries.length < count; i++) {
    const time = startTime + entries.length * spacing + 0.1234;
    const kind = i % 3;
    if (kind === 0) {
      entries.push({
        id: id('L', entries.length),
        refid: id('D', i),
        time,
        type: 'deposit',
        asset: 'ZEUR',
        amount: `${1000 + (i % 50)}.0000`,
        fee: '0.0000',
        balance: '0.0000',
      });
    } else if (kind === 1) {
      const refid = id('T', i);
      entries.push({
        id: id('L', entries.length),
        refid,
        time,
        type: 'trade',
        asset: 'ZEUR',
        amount: '-500.0000',
        fee: '1.3000',
        balance: '0.0000',
      });
      if (entries.length < count)
        entries.push({
          id: id('L', entries.length),
          refid,
          time,
          type: 'trade',
          asset: 'XXBT',
          amount: `0.0${String(51_234_567 + i).padStart(8, '0')}1`,
          fee: '0.0000000000',
          balance: '0.0000000000',
        });
    } else {
      entries.push({
        id: id('L', entries.length),
        refid: id('W', i),
        time,
        type: 'withdrawal',
        asset: 'XXBT',
        amount: '-0.0012345678',
        fee: '0.0000150000',
        balance: '0.0000000000',
      });
    }
  }
  return entries;
}
