import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { startFakeExchangeServer, type FakeExchangeServer, type FakeRequest, type FakeResponse } from './fake-exchange-server.js';

/**
 * A local Binance spot REST API (https://developers.binance.com/docs/binance-spot-api-docs), enough
 * of it for ccxt's binance class to load spot markets, read the spot account, the key's API
 * restrictions, deposit and withdrawal history (newest first, `offset`/`limit` pages), spot trades,
 * Convert history, the dust log, Simple Earn, fiat payments and orders, P2P orders, Binance Pay and deposit addresses — checking every SIGNED request as Binance documents it:
 *
 * - `X-MBX-APIKEY` header names the key (unknown: HTTP 401, code -2015);
 * - `signature` (the last parameter of the query string, or of the body of a POST) =
 *   hex(HMAC-SHA256(secret, the query string and body before it)) (wrong: HTTP 400, code -1022);
 * - `timestamp` (ms) within `recvWindow` (default 5000, at most 60000) of the server's clock, and
 *   not more than 1 s ahead of it (else HTTP 400, code -1021).
 *
 * Errors have Binance's shape `{"code": -nnnn, "msg": "…"}`; a rate limit is HTTP 429 (code -1003)
 * with `Retry-After`; maintenance is `system/status` 1 and HTTP 503 on the API.
 *
 * The spot account, deposit and withdrawal history, spot trades and the deposit address answer
 * with the fields of the answers ccxt's repository keeps as captured from Binance (ccxt/ccxt
 * `ts/src/test/static/response/binance.json`); that capture writes some numbers as text
 * (`"time": "1698138992358"`) that Binance documents, in its own examples, as JSON numbers: those
 * stay numbers here. The other endpoints have no capture: their shapes are Binance's API reference.
 */

/** Where Binance's deposit addresses point (`url`): each coin's explorer; ERC-20 tokens on Etherscan. */
const EXPLORERS: Readonly<Record<string, string>> = {
  BTC: 'https://mempool.space/address/',
  ETH: 'https://etherscan.io/address/',
  TRX: 'https://tronscan.org/#/address/',
};

export interface BinanceDeposit {
  id: string;
  amount: string;
  coin: string;
  network: string;
  /** 0 pending, 6 credited but cannot withdraw, 1 success. */
  status: number;
  address: string;
  txId: string;
  insertTime: number;
}

export interface BinanceWithdrawal {
  id: string;
  amount: string;
  transactionFee: string;
  coin: string;
  network: string;
  /** 6 completed, 4 processing, 1 cancelled, 3 rejected, 5 failure. */
  status: number;
  address: string;
  txId: string;
  applyTime: string;
}

/** A spot trade as `GET /api/v3/myTrades` lists it; ids ascend per symbol. */
export interface BinanceTrade {
  symbol: string;
  id: number;
  orderId: number;
  price: string;
  qty: string;
  quoteQty: string;
  commission: string;
  commissionAsset: string;
  time: number;
  isBuyer: boolean;
  isMaker: boolean;
}

/** A Convert order as `GET /sapi/v1/convert/tradeFlow` lists it. */
export interface BinanceConversion {
  /** Unique per conversion, as text. */
  quoteId: string;
  /** A JSON number past 2^53 on the real API (940708407462087195): JavaScript rounds it. */
  orderId: number;
  orderStatus: 'SUCCESS' | 'PROCESS' | 'ACCEPT_SUCCESS' | 'FAIL';
  fromAsset: string;
  fromAmount: string;
  toAsset: string;
  toAmount: string;
  createTime: number;
}

/** One dust conversion (several small balances to BNB at once) as the dust log lists it. */
export interface BinanceDust {
  transId: number;
  operateTime: number;
  details: { transId: number; fromAsset: string; amount: string; transferedAmount: string; serviceChargeAmount: string }[];
}

export interface BinanceEarn {
  flexible: { asset: string; totalAmount: string; productId: string }[];
  locked: { positionId: number; asset: string; amount: string }[];
  /** `type`: BONUS, REALTIME or REWARDS. */
  flexibleRewards: { asset: string; rewards: string; projectId: string; type: 'BONUS' | 'REALTIME' | 'REWARDS'; time: number }[];
  lockedRewards: { positionId: number; time: number; asset: string; lockPeriod: string; amount: string; type: string }[];
}

/** A purchase or sale with fiat as `GET /sapi/v1/fiat/payments` lists it; `transactionType` 0 buy, 1 sell. */
export interface BinanceFiatPayment {
  transactionType: 0 | 1;
  orderNo: string;
  sourceAmount: string;
  fiatCurrency: string;
  obtainAmount: string;
  cryptoCurrency: string;
  totalFee: string;
  price: string;
  /** Processing, Completed, Failed, Refunded. */
  status: string;
  paymentMethod?: string;
  createTime: number;
  updateTime: number;
}

/** A fiat deposit or withdrawal as `GET /sapi/v1/fiat/orders` lists it; `transactionType` 0 deposit, 1 withdrawal. */
export interface BinanceFiatOrder {
  transactionType: 0 | 1;
  orderNo: string;
  fiatCurrency: string;
  indicatedAmount: string;
  amount: string;
  totalFee: string;
  method: string;
  /** Processing, Failed, Successful, Finished, Refunding, Refunded, Refund Failed, Order Partial credit Stopped. */
  status: string;
  createTime: number;
  updateTime: number;
}

/** A P2P order as `GET /sapi/v1/c2c/orderMatch/listUserOrderHistory` lists it. */
export interface BinanceP2pOrder {
  orderNumber: string;
  advNo: string;
  tradeType: 'BUY' | 'SELL';
  asset: string;
  fiat: string;
  fiatSymbol: string;
  amount: string;
  totalPrice: string;
  unitPrice: string;
  /** PENDING, TRADING, BUYER_PAYED, DISTRIBUTING, COMPLETED, IN_APPEAL, CANCELLED, CANCELLED_BY_SYSTEM. */
  orderStatus: string;
  createTime: number;
  commission: string;
  counterPartNickName: string;
  advertisementRole: 'MAKER' | 'TAKER';
}

/** A Binance Pay transaction as `GET /sapi/v1/pay/transactions` lists it: `amount` negative when paid out. */
export interface BinancePayTransaction {
  orderType: string;
  transactionId: string;
  transactionTime: number;
  amount: string;
  currency: string;
  /** 1 funding, 2 spot, 3 fiat, 4 or 6 card, 5 earn. */
  walletType: number;
  fundsDetail: { currency: string; amount: string }[];
}

export interface BinanceAccount {
  key: string;
  secret: string;
  balances: { asset: string; free: string; locked: string }[];
  /** The Funding wallet (P2P, Pay, card purchases land there): `POST /sapi/v1/asset/get-funding-asset`. */
  funding: { asset: string; free: string; locked: string; freeze: string; withdrawing: string }[];
  /** The key's API restrictions; read-only unless a test says otherwise. */
  restrictions: Record<string, boolean>;
  deposits: BinanceDeposit[];
  withdrawals: BinanceWithdrawal[];
  trades: BinanceTrade[];
  conversions: BinanceConversion[];
  /** Binance does not document the order of its Convert history: newest first, unless set. */
  conversionsOldestFirst?: boolean;
  dust: BinanceDust[];
  depositAddresses: Record<string, string>;
  /** Simple Earn: positions (flexible, locked) and their rewards. */
  earn: BinanceEarn;
  fiatPayments: BinanceFiatPayment[];
  fiatOrders: BinanceFiatOrder[];
  p2p: BinanceP2pOrder[];
  pay: BinancePayTransaction[];
  /** Set by a test: every signed call of this key answers this status and body. */
  failWith?: FakeResponse;
}

export interface FakeBinance extends FakeExchangeServer {
  addAccount(options?: Partial<Omit<BinanceAccount, 'key' | 'secret'>>): BinanceAccount;
  setStatus(status: 'normal' | 'maintenance'): void;
  /** Shifts the fake's clock (ms), to test a timestamp outside recvWindow. */
  setClockOffset(ms: number): void;
  /**
   * Counts the endpoints Binance weighs per account (UID_WEIGHTS) against each account's 180,000
   * per endpoint and per minute, here a "minute" of `minuteMs` (undefined: not counted, as by
   * default), and answers a call past it with Binance's 429; each refused call is in `uidRefusals`.
   */
  countUidWeight(minuteMs: number | undefined): void;
  uidRefusals: FakeRequest[];
}

/** The endpoints Binance weighs per account (its API reference: "Weight(UID)"), of those the fake answers. */
const UID_WEIGHTS: Record<string, number> = {
  '/sapi/v1/fiat/orders': 90_000,
  '/sapi/v1/convert/tradeFlow': 3_000,
  '/sapi/v1/pay/transactions': 3_000,
};
const UID_LIMIT = 180_000;

const READ_ONLY: Record<string, boolean> = {
  ipRestrict: false,
  enableReading: true,
  enableWithdrawals: false,
  enableInternalTransfer: false,
  enableMargin: false,
  enableFutures: false,
  permitsUniversalTransfer: false,
  enableVanillaOptions: false,
  enableFixApiTrade: false,
  enableFixReadOnly: false,
  enableSpotAndMarginTrading: false,
  enablePortfolioMarginTrading: false,
};

function symbol(base: string, quote: string) {
  return {
    symbol: `${base}${quote}`,
    status: 'TRADING',
    baseAsset: base,
    baseAssetPrecision: 8,
    quoteAsset: quote,
    quotePrecision: 8,
    quoteAssetPrecision: 8,
    baseCommissionPrecision: 8,
    quoteCommissionPrecision: 8,
    orderTypes: ['LIMIT', 'LIMIT_MAKER', 'MARKET', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT'],
    icebergAllowed: true,
    ocoAllowed: true,
    otoAllowed: true,
    quoteOrderQtyMarketAllowed: true,
    allowTrailingStop: true,
    cancelReplaceAllowed: true,
    isSpotTradingAllowed: true,
    isMarginTradingAllowed: false,
    filters: [
      { filterType: 'PRICE_FILTER', minPrice: '0.01000000', maxPrice: '1000000.00000000', tickSize: '0.01000000' },
      { filterType: 'LOT_SIZE', minQty: '0.00001000', maxQty: '9000.00000000', stepSize: '0.00001000' },
      {
        filterType: 'NOTIONAL',
        minNotional: '5.00000000',
        applyMinToMarket: true,
        maxNotional: '9000000.00000000',
        applyMaxToMarket: false,
        avgPriceMins: 5,
      },
    ],
    permissions: [],
    permissionSets: [['SPOT']],
    defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
    allowedSelfTradePreventionModes: ['EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH'],
  };
}

/** The spot markets the fake lists, as [base, quote]. */
export const BINANCE_MARKETS: readonly (readonly [string, string])[] = [
  ['BTC', 'USDT'],
  ['ETH', 'USDT'],
  ['ETH', 'BTC'],
  ['BNB', 'USDT'],
  ['BNB', 'BTC'],
  ['SOL', 'USDT'],
  ['SOL', 'BNB'],
  ['DOGE', 'EUR'],
];

const NINETY_DAYS_MS = 90 * 86_400_000;
const ONE_DAY_MS = 86_400_000;

/**
 * `GET /api/v3/myTrades` as Binance documents it: `symbol` required; `limit` default 500, at most
 * 1000; `fromId` gives trades with an id from it on; else `startTime`/`endTime` (at most 24 hours
 * apart); else the most recent trades. Ascending by id.
 */
function myTrades(query: URLSearchParams, trades: readonly BinanceTrade[]): FakeResponse {
  const symbol = query.get('symbol');
  if (!symbol) return error(400, -1102, "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed.");
  if (!BINANCE_MARKETS.some(([base, quote]) => base + quote === symbol)) return error(400, -1121, 'Invalid symbol.');
  const limit = Number(query.get('limit') ?? '500');
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) return error(400, -1130, "Data sent for parameter 'limit' is not valid.");
  let found = trades.filter((t) => t.symbol === symbol).sort((a, b) => a.id - b.id);
  if (query.has('fromId')) {
    const fromId = Number(query.get('fromId'));
    found = found.filter((t) => t.id >= fromId).slice(0, limit);
  } else if (query.has('startTime') || query.has('endTime')) {
    const start = Number(query.get('startTime') ?? Number(query.get('endTime')) - ONE_DAY_MS);
    const end = Number(query.get('endTime') ?? start + ONE_DAY_MS);
    if (end - start > ONE_DAY_MS) return error(400, -1127, 'More than 24 hours between startTime and endTime.');
    found = found.filter((t) => t.time >= start && t.time <= end).slice(0, limit);
  } else {
    found = found.slice(-limit);
  }
  return { status: 200, body: found.map((t) => ({ ...t, orderListId: -1, isBestMatch: true })) };
}

/**
 * `GET /sapi/v1/convert/tradeFlow` as Binance documents it: `startTime` and `endTime` required, at
 * most 30 days apart; `limit` default 100, at most 1000; no paging, only `moreData` saying the
 * range holds more than the page (which end of the range a page comes from is not documented).
 */
function convertTradeFlow(query: URLSearchParams, conversions: readonly BinanceConversion[], oldestFirst: boolean): FakeResponse {
  const start = Number(query.get('startTime'));
  const end = Number(query.get('endTime'));
  if (!query.has('startTime') || !query.has('endTime') || !Number.isSafeInteger(start) || !Number.isSafeInteger(end))
    return error(400, -1102, "Mandatory parameter 'startTime' or 'endTime' was not sent, was empty/null, or malformed.");
  if (end - start > 30 * ONE_DAY_MS) return error(400, -1127, 'More than 720 hours between startTime and endTime.');
  const limit = Number(query.get('limit') ?? '100');
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) return error(400, -1130, "Data sent for parameter 'limit' is not valid.");
  const found = conversions
    .filter((c) => c.createTime >= start && c.createTime <= end)
    .sort((a, b) => (oldestFirst ? a.createTime - b.createTime : b.createTime - a.createTime));
  const list = found.slice(0, limit).map((c) => ({ ...c, ratio: '0', inverseRatio: '0' }));
  return { status: 200, body: { list, startTime: start, endTime: end, limit, moreData: found.length > limit } };
}

/**
 * `GET /sapi/v1/asset/dribblet` as Binance documents it: `startTime` and `endTime` together, at
 * most 90 days apart; only the last 100 conversions, and only from 2020-12-01 on.
 */
function dustLog(query: URLSearchParams, dust: readonly BinanceDust[]): FakeResponse {
  const range = timeRange(query);
  if ('status' in range) return range;
  if (query.has('startTime') !== query.has('endTime'))
    return error(400, -1102, "Mandatory parameter 'endTime' was not sent, was empty/null, or malformed.");
  const found = dust
    .filter((d) => d.operateTime >= Math.max(range.start, Date.UTC(2020, 11, 1)) && d.operateTime <= range.end)
    .sort((a, b) => b.operateTime - a.operateTime)
    .slice(0, 100);
  const sum = (values: string[]) => values.reduce((total, v) => total + Number(v), 0).toFixed(8);
  return {
    status: 200,
    body: {
      total: found.length,
      userAssetDribblets: found.map((d) => ({
        operateTime: d.operateTime,
        transId: d.transId,
        totalTransferedAmount: sum(d.details.map((x) => x.transferedAmount)),
        totalServiceChargeAmount: sum(d.details.map((x) => x.serviceChargeAmount)),
        userAssetDribbletDetails: d.details.map((x) => ({ ...x, operateTime: d.operateTime })),
      })),
    },
  };
}

/**
 * The time range of a history call, as Binance documents it: without `startTime`/`endTime` the last
 * 90 days; with `startTime` alone, 90 days from it; never more than 90 days (-1127).
 */
function timeRange(query: URLSearchParams): { start: number; end: number } | FakeResponse {
  const now = Date.now();
  const start = query.has('startTime')
    ? Number(query.get('startTime'))
    : query.has('endTime')
      ? Number(query.get('endTime')) - NINETY_DAYS_MS
      : now - NINETY_DAYS_MS;
  const end = query.has('endTime') ? Number(query.get('endTime')) : query.has('startTime') ? start + NINETY_DAYS_MS : now;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start)
    return error(400, -1104, 'Not all sent parameters were read.');
  if (end - start > NINETY_DAYS_MS) return error(400, -1127, 'More than 2160 hours between startTime and endTime.');
  return { start, end };
}

const error = (status: number, code: number, msg: string, headers?: Record<string, string>): FakeResponse => ({
  status,
  body: { code, msg },
  ...(headers ? { headers } : {}),
});

/** One page of a history list, newest first: `offset` (default 0) and `limit` (default and at most 1000). */
function paged<T>(query: URLSearchParams, newestFirst: T[]): T[] | FakeResponse {
  const offset = Number(query.get('offset') ?? '0');
  const limit = Number(query.get('limit') ?? '1000');
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(limit) || limit < 1 || limit > 1000)
    return error(400, -1130, 'Data sent for parameter is not valid.');
  return newestFirst.slice(offset, offset + limit);
}

const THIRTY_DAYS_MS = 30 * 86_400_000;

/**
 * A Simple Earn list as documented: `current` from 1 (locked rewards: at most 1,000), `size` 10 by
 * default and at most 100, answered `{rows, total}`; with `ranged`, rows of `startTime`..`endTime`
 * (3 months at most; one alone, the 30 days after or before it; neither, the last 30 days).
 */
function earnPage<T extends object>(query: URLSearchParams, rows: readonly T[], ranged: boolean): FakeResponse {
  const current = Number(query.get('current') ?? '1');
  const size = Number(query.get('size') ?? '10');
  if (!Number.isSafeInteger(current) || current < 1 || current > 1000 || !Number.isSafeInteger(size) || size < 1 || size > 100)
    return error(400, -1130, 'Data sent for parameter is not valid.');
  let chosen = [...rows];
  if (ranged) {
    const start = query.has('startTime')
      ? Number(query.get('startTime'))
      : query.has('endTime')
        ? Number(query.get('endTime')) - THIRTY_DAYS_MS
        : Date.now() - THIRTY_DAYS_MS;
    const end = query.has('endTime') ? Number(query.get('endTime')) : query.has('startTime') ? start + THIRTY_DAYS_MS : Date.now();
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start)
      return error(400, -1104, 'Not all sent parameters were read.');
    if (end - start > NINETY_DAYS_MS) return error(400, -1127, 'More than 3 months between startTime and endTime.');
    const at = (r: T) => (r as { time?: number }).time ?? 0;
    chosen = chosen.filter((r) => at(r) >= start && at(r) <= end).sort((a, b) => at(b) - at(a));
  }
  return { status: 200, body: { rows: chosen.slice((current - 1) * size, current * size), total: chosen.length } };
}

/**
 * A page of a list answered `{code, message, data, total, success}` (Binance's fiat and C2C
 * lists), newest first: `page` from 1, `rows` (default 100, at most `maxRows`).
 */
function dataPage<T extends { createTime: number }>(query: URLSearchParams, rows: T[], maxRows: number): FakeResponse {
  const page = Number(query.get('page') ?? '1');
  const size = Number(query.get('rows') ?? '100');
  if (!Number.isSafeInteger(page) || page < 1 || !Number.isSafeInteger(size) || size < 1 || size > maxRows)
    return error(400, -1130, 'Data sent for parameter is not valid.');
  const sorted = [...rows].sort((a, b) => b.createTime - a.createTime);
  return {
    status: 200,
    body: { code: '000000', message: 'success', data: sorted.slice((page - 1) * size, page * size), total: sorted.length, success: true },
  };
}

/**
 * `GET /sapi/v1/fiat/payments` and `/sapi/v1/fiat/orders` as Binance documents them:
 * `transactionType` (0, 1) required; `beginTime`/`endTime` with no documented limit (neither: the
 * last 30 days); 500 rows a page at most.
 */
function fiatList<T extends { transactionType: 0 | 1; createTime: number }>(query: URLSearchParams, rows: readonly T[]): FakeResponse {
  const type = query.get('transactionType');
  if (type !== '0' && type !== '1')
    return error(400, -1102, "Mandatory parameter 'transactionType' was not sent, was empty/null, or malformed.");
  const hasRange = query.has('beginTime') || query.has('endTime');
  const start = hasRange ? Number(query.get('beginTime') ?? '0') : Date.now() - THIRTY_DAYS_MS;
  const end = hasRange ? Number(query.get('endTime') ?? String(Date.now())) : Date.now();
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start)
    return error(400, -1104, 'Not all sent parameters were read.');
  const found = rows
    .filter((r) => String(r.transactionType) === type && r.createTime >= start && r.createTime <= end)
    .map(({ transactionType: _type, ...row }) => row);
  return dataPage(query, found, 500);
}

const SIX_MONTHS_MS = 183 * 86_400_000;

/**
 * `GET /sapi/v1/c2c/orderMatch/listUserOrderHistory` as Binance documents it: `tradeType` BUY or
 * SELL (optional); `startTimestamp`/`endTimestamp` at most 30 days apart (neither: the last 30
 * days; one alone: the 30 days after or before it); the last 6 months only; 100 rows a page at most.
 */
function p2pList(query: URLSearchParams, orders: readonly BinanceP2pOrder[]): FakeResponse {
  const type = query.get('tradeType');
  if (type !== null && type !== 'BUY' && type !== 'SELL') return error(400, -1102, "Parameter 'tradeType' is malformed.");
  const start = query.has('startTimestamp')
    ? Number(query.get('startTimestamp'))
    : query.has('endTimestamp')
      ? Number(query.get('endTimestamp')) - THIRTY_DAYS_MS
      : Date.now() - THIRTY_DAYS_MS;
  const end = query.has('endTimestamp')
    ? Number(query.get('endTimestamp'))
    : query.has('startTimestamp')
      ? start + THIRTY_DAYS_MS
      : Date.now();
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start)
    return error(400, -1104, 'Not all sent parameters were read.');
  if (end - start > THIRTY_DAYS_MS) return error(400, -1127, 'More than 30 days between startTimestamp and endTimestamp.');
  const kept = Date.now() - SIX_MONTHS_MS;
  return dataPage(
    query,
    orders.filter((o) => (type === null || o.tradeType === type) && o.createTime >= Math.max(start, kept) && o.createTime <= end),
    100,
  );
}

/**
 * `GET /sapi/v1/pay/transactions` as Binance documents it: `startTime`/`endTime` at most 90 days
 * apart (neither: the last 90 days; one alone: the 90 days after or before it); the last 18 months
 * only; `limit` default and at most 100, no paging (the newest of the range).
 */
function payList(query: URLSearchParams, transactions: readonly BinancePayTransaction[]): FakeResponse {
  const range = timeRange(query);
  if ('status' in range) return range;
  const limit = Number(query.get('limit') ?? '100');
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100) return error(400, -1130, "Data sent for parameter 'limit' is not valid.");
  const kept = Date.now() - 548 * 86_400_000;
  const found = transactions
    .filter((p) => p.transactionTime >= Math.max(range.start, kept) && p.transactionTime <= range.end)
    .sort((a, b) => b.transactionTime - a.transactionTime);
  const data = found.slice(0, limit).map((p) => ({
    ...p,
    walletTypes: [p.walletType],
    fundsDetail: p.fundsDetail.map((f) => ({ ...f, walletAssetCost: [{ [String(p.walletType)]: f.amount }] })),
  }));
  return { status: 200, body: { code: '000000', message: 'success', data, success: true } };
}

/** Binance's `signature` for a query string (and body), computed from its documented definition. */
export function binanceSignature(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

export async function startFakeBinance(): Promise<FakeBinance> {
  const accounts = new Map<string, BinanceAccount>();
  const state = { status: 'normal' as 'normal' | 'maintenance', clockOffset: 0, uidMinuteMs: undefined as number | undefined };
  /** Per account and endpoint, the calls counted in the last "minute": when they came and their weight. */
  const uidCalls = new Map<string, { at: number; weight: number }[]>();
  const uidRefusals: FakeRequest[] = [];

  /** Binance's 429 for a call past the account's weight on this endpoint in the last minute; undefined when within it. */
  function overUidWeight(request: FakeRequest, account: BinanceAccount): FakeResponse | undefined {
    const weight = UID_WEIGHTS[request.path];
    const minute = state.uidMinuteMs;
    if (weight === undefined || minute === undefined) return undefined;
    const key = `${account.key} ${request.path}`;
    const recent = (uidCalls.get(key) ?? []).filter((call) => call.at > request.at - minute);
    const used = recent.reduce((sum, call) => sum + call.weight, 0);
    if (used + weight > UID_LIMIT) {
      uidRefusals.push(request);
      uidCalls.set(key, recent);
      return error(
        429,
        -1003,
        `Too much request weight used; current limit is ${UID_LIMIT} request weight per 1 MINUTE. Please use WebSocket Streams for live updates to avoid polling the API.`,
        { 'retry-after': '60' },
      );
    }
    uidCalls.set(key, [...recent, { at: request.at, weight }]);
    return undefined;
  }

  function publicCall(path: string): FakeResponse {
    switch (path) {
      case '/api/v3/exchangeInfo':
        return {
          status: 200,
          body: {
            timezone: 'UTC',
            serverTime: Date.now(),
            rateLimits: [],
            exchangeFilters: [],
            symbols: BINANCE_MARKETS.map(([base, quote]) => symbol(base, quote)),
          },
        };
      case '/api/v3/time':
        return { status: 200, body: { serverTime: Date.now() + state.clockOffset } };
      case '/sapi/v1/system/status':
        return { status: 200, body: state.status === 'normal' ? { status: 0, msg: 'normal' } : { status: 1, msg: 'system_maintenance' } };
      default:
        return error(404, -1000, 'Unknown path.');
    }
  }

  /** Checks key, signature and timestamp; returns the account or the refusal. */
  function authenticate(request: FakeRequest): BinanceAccount | FakeResponse {
    const account = accounts.get(String(request.headers['x-mbx-apikey'] ?? ''));
    if (!account) return error(401, -2015, 'Invalid API-key, IP, or permissions for action.');
    // The signed text is the query string followed directly by the body ("totalParams"), less the
    // signature, which is the last parameter of either (the query string of a GET, the body of a
    // POST, or the query string of a POST that also has a body).
    const signed = /^(.*)&signature=([0-9a-f]{64})$/;
    const inQuery = signed.exec(request.rawQuery);
    const inBody = inQuery ? null : signed.exec(request.body);
    if (!inQuery && !inBody) return error(400, -1102, "Mandatory parameter 'signature' was not sent, was empty/null, or malformed.");
    const query = inQuery ? (inQuery[1] as string) : request.rawQuery;
    const body = inBody ? (inBody[1] as string) : request.body;
    const expected = Buffer.from(binanceSignature(account.secret, query + body));
    if (!timingSafeEqual(expected, Buffer.from(((inQuery ?? inBody) as RegExpExecArray)[2] as string)))
      return error(400, -1022, 'Signature for this request is not valid.');
    const params = new URLSearchParams([...new URLSearchParams(query), ...new URLSearchParams(body)]);
    const timestamp = Number(params.get('timestamp'));
    const recvWindow = Number(params.get('recvWindow') ?? '5000');
    const now = Date.now() + state.clockOffset;
    if (!Number.isSafeInteger(recvWindow) || recvWindow <= 0) return error(400, -1131, 'recvWindow must be less than 60000');
    if (!Number.isSafeInteger(timestamp) || recvWindow > 60_000 || timestamp > now + 1000 || now - timestamp > recvWindow) {
      return error(400, -1021, 'Timestamp for this request is outside of the recvWindow.');
    }
    return account;
  }

  function signedCall(request: FakeRequest, account: BinanceAccount): FakeResponse {
    if (state.status !== 'normal') return error(503, -1001, 'Internal error; unable to process your request. Please try again.');
    if (account.failWith) return account.failWith;
    const limited = overUidWeight(request, account);
    if (limited) return limited;
    const ok = (body: unknown): FakeResponse => ({ status: 200, body });
    switch (request.path) {
      case '/api/v3/account':
        return ok({
          makerCommission: 10,
          takerCommission: 10,
          buyerCommission: 0,
          sellerCommission: 0,
          commissionRates: { maker: '0.00100000', taker: '0.00100000', buyer: '0.00000000', seller: '0.00000000' },
          canTrade: true,
          canWithdraw: true,
          canDeposit: true,
          brokered: false,
          requireSelfTradePrevention: false,
          preventSor: false,
          updateTime: Date.now(),
          accountType: 'SPOT',
          balances: account.balances,
          permissions: ['SPOT'],
          uid: 354937868,
        });
      case '/sapi/v1/asset/get-funding-asset':
        if (request.method !== 'POST') return error(405, -1000, 'Request method not supported.');
        return ok(account.funding.map((f) => ({ ...f, ipoable: '0', btcValuation: '0' })));
      case '/sapi/v1/simple-earn/flexible/position':
        return earnPage(request.query, account.earn.flexible, false);
      case '/sapi/v1/simple-earn/locked/position':
        return earnPage(request.query, account.earn.locked, false);
      case '/sapi/v1/simple-earn/flexible/history/rewardsRecord': {
        const type = request.query.get('type');
        if (type === null || !['BONUS', 'REALTIME', 'REWARDS', 'ALL'].includes(type))
          return error(400, -1102, "Mandatory parameter 'type' was not sent, was empty/null, or malformed.");
        return earnPage(
          request.query,
          account.earn.flexibleRewards.filter((r) => type === 'ALL' || r.type === type),
          true,
        );
      }
      case '/sapi/v1/simple-earn/locked/history/rewardsRecord':
        return earnPage(request.query, account.earn.lockedRewards, true);
      case '/sapi/v1/fiat/payments':
        return fiatList(request.query, account.fiatPayments);
      case '/sapi/v1/fiat/orders':
        return fiatList(request.query, account.fiatOrders);
      case '/sapi/v1/c2c/orderMatch/listUserOrderHistory':
        return p2pList(request.query, account.p2p);
      case '/sapi/v1/pay/transactions':
        return payList(request.query, account.pay);
      case '/sapi/v1/account/apiRestrictions':
        return ok({ ...account.restrictions, createTime: 1_698_645_219_000 });
      case '/sapi/v1/capital/deposit/hisrec': {
        const range = timeRange(request.query);
        if ('status' in range) return range;
        const found = paged(
          request.query,
          account.deposits
            .filter((d) => d.insertTime >= range.start && d.insertTime <= range.end)
            .sort((a, b) => b.insertTime - a.insertTime),
        );
        if ('status' in found) return found;
        return ok(found.map((d) => ({ ...d, addressTag: '', transferType: 0, confirmTimes: '1/1', unlockConfirm: 0, walletType: 0 })));
      }
      case '/sapi/v1/capital/withdraw/history': {
        const range = timeRange(request.query);
        if ('status' in range) return range;
        const time = (w: BinanceWithdrawal) => Date.parse(`${w.applyTime.replace(' ', 'T')}Z`);
        const found = paged(
          request.query,
          account.withdrawals.filter((w) => time(w) >= range.start && time(w) <= range.end).sort((a, b) => time(b) - time(a)),
        );
        if ('status' in found) return found;
        return ok(
          found.map((w) => ({ ...w, transferType: 0, info: '', confirmNo: 3, walletType: 0, txKey: '', completeTime: w.applyTime })),
        );
      }
      case '/api/v3/myTrades':
        return myTrades(request.query, account.trades);
      case '/sapi/v1/convert/tradeFlow':
        return convertTradeFlow(request.query, account.conversions, account.conversionsOldestFirst === true);
      case '/sapi/v1/asset/dribblet':
        return dustLog(request.query, account.dust);
      case '/sapi/v1/capital/deposit/address': {
        const coin = request.query.get('coin') ?? '';
        const address = account.depositAddresses[coin];
        // As captured (ccxt/ccxt ts/src/test/static/response/binance.json, fetchDepositAddress):
        // `url` is the address on the network's explorer, which ccxt reads the network from.
        return address
          ? ok({ coin, address, tag: '', url: `${EXPLORERS[coin] ?? 'https://etherscan.io/address/'}${address}`, isDefault: 0 })
          : error(400, -4018, 'The deposit address is not available.');
      }
      default:
        return error(404, -1000, 'Unknown path.');
    }
  }

  const server = await startFakeExchangeServer((request) => {
    if (request.path === '/api/v3/exchangeInfo' || request.path === '/api/v3/time' || request.path === '/sapi/v1/system/status')
      return publicCall(request.path);
    const account = authenticate(request);
    return 'key' in account ? signedCall(request, account) : account;
  });

  return Object.assign(server, {
    addAccount(options: Partial<Omit<BinanceAccount, 'key' | 'secret'>> = {}): BinanceAccount {
      const account: BinanceAccount = {
        key: randomBytes(32).toString('base64url').replace(/[-_]/g, 'x'),
        secret: randomBytes(32).toString('base64url').replace(/[-_]/g, 'y'),
        balances: [],
        funding: [],
        restrictions: { ...READ_ONLY },
        deposits: [],
        withdrawals: [],
        trades: [],
        conversions: [],
        dust: [],
        depositAddresses: {},
        earn: { flexible: [], locked: [], flexibleRewards: [], lockedRewards: [] },
        fiatPayments: [],
        fiatOrders: [],
        p2p: [],
        pay: [],
        ...options,
      };
      accounts.set(account.key, account);
      return account;
    },
    setStatus(status: 'normal' | 'maintenance') {
      state.status = status;
    },
    setClockOffset(ms: number) {
      state.clockOffset = ms;
    },
    countUidWeight(minuteMs: number | undefined) {
      state.uidMinuteMs = minuteMs;
      uidCalls.clear();
    },
    uidRefusals,
  });
}

/** An answer to set as `failWith`: Binance's rate limit (HTTP 429, code -1003, Retry-After). */
export const BINANCE_RATE_LIMITED: FakeResponse = error(
  429,
  -1003,
  'Too much request weight used; current limit is 6000 request weight per 1 MINUTE.',
  { 'retry-after': '30' },
);
