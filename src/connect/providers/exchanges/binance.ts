import { binanceKeyPermissions } from '../key-permissions.js';
import type { ExchangeRow, RecordList } from './row.js';

/** Binance's fiat lists: `beginTime`/`endTime`, no range limit documented, 500 rows a page in `data`. */
const FIAT_LIST = {
  range: { start: 'beginTime', end: 'endTime', days: 'all' },
  paging: { page: 'page', size: 'rows', rows: 'data', pageSize: 500 },
} as const;

/** Binance's purchases (`transactionType` 0) and sales (1) with fiat: a fiat list of the crypto bought or sold. */
const FIAT_PAYMENTS = {
  method: 'sapiGetFiatPayments',
  ref: 'fiat:payment',
  fields: { asset: 'cryptoCurrency', time: 'createTime', id: ['orderNo'] },
  status: { field: 'status', completed: ['Completed'], failed: ['Failed', 'Refunded'] },
  ...FIAT_LIST,
} as const;

/** Binance's fiat deposits (`transactionType` 0) and withdrawals (1): a fiat list, its fee in the fiat currency. */
const FIAT_ORDERS = {
  method: 'sapiGetFiatOrders',
  fields: { asset: 'fiatCurrency', time: 'createTime', id: ['orderNo'], fee: 'totalFee' },
  status: { field: 'status', completed: ['Successful', 'Finished'], failed: ['Failed', 'Expired', 'Refunded'] },
  ...FIAT_LIST,
} as const;

/** Binance's P2P orders: 30 days a call, the last 6 months kept (180 days: never past it), 100 rows a page. */
const P2P_LIST = {
  method: 'sapiGetC2cOrderMatchListUserOrderHistory',
  ref: 'p2p',
  fields: { asset: 'asset', amount: 'amount', time: 'createTime', id: ['orderNumber'], fee: 'commission' },
  range: { start: 'startTimestamp', end: 'endTimestamp', days: 30, horizonDays: 180 },
  paging: { page: 'page', size: 'rows', rows: 'data', pageSize: 100 },
  direction: { field: 'tradeType', out: ['SELL'] },
  status: { field: 'orderStatus', completed: ['COMPLETED'], failed: ['CANCELLED', 'CANCELLED_BY_SYSTEM'] },
} as const;

/**
 * Binance's Funding wallet movements (the Funding book's records; docs/exchanges.md has our
 * readings; Binance Pay last). Fiat payments: a buy credits the crypto got (its fee was paid in
 * fiat, outside the account), a sell debits the crypto sold. Fiat orders: `amount` is what reached
 * the other side and `indicatedAmount` that plus `totalFee`, so a deposit is the indicated amount
 * less the fee and a withdrawal the amount plus the fee. Fiat lists take any range: one range from
 * the beginning, then from the cursor; a call to fiat orders is half of what an account may ask of
 * it a minute (the row's accountLimits pace it).
 */
const FUNDING_RECORDS: readonly RecordList[] = [
  {
    ...FIAT_PAYMENTS,
    params: { transactionType: '0' },
    label: 'purchase with fiat',
    fields: { ...FIAT_PAYMENTS.fields, amount: 'obtainAmount' },
  },
  {
    ...FIAT_PAYMENTS,
    params: { transactionType: '1' },
    label: 'sale for fiat',
    fields: { ...FIAT_PAYMENTS.fields, amount: 'sourceAmount' },
    direction: 'out',
  },
  {
    ...FIAT_ORDERS,
    params: { transactionType: '0' },
    ref: 'fiat:deposit',
    label: 'fiat deposit',
    type: 'deposit',
    fields: { ...FIAT_ORDERS.fields, amount: 'indicatedAmount' },
  },
  {
    ...FIAT_ORDERS,
    params: { transactionType: '1' },
    ref: 'fiat:withdrawal',
    label: 'fiat withdrawal',
    type: 'withdrawal',
    fields: { ...FIAT_ORDERS.fields, amount: 'amount' },
    direction: 'out',
  },
  { ...P2P_LIST, params: { tradeType: 'BUY' }, label: 'P2P purchase' },
  { ...P2P_LIST, params: { tradeType: 'SELL' }, label: 'P2P sale' },
  // Binance Pay: 90 days a call, the last 18 months kept (540 days: never past it), 100 rows at
  // most and no paging. The amount is signed (negative: paid out); a payment from several assets
  // names each in `fundsDetail`.
  {
    method: 'sapiGetPayTransactions',
    ref: 'pay',
    label: 'Binance Pay',
    fields: { asset: 'currency', amount: 'amount', time: 'transactionTime', id: ['transactionId', 'currency'] },
    range: { start: 'startTime', end: 'endTime', days: 90, horizonDays: 540 },
    halves: { param: 'limit', max: 100 },
    legs: { field: 'fundsDetail', asset: 'currency', amount: 'amount' },
  },
];

export const binance: ExchangeRow = {
  id: 'binance',
  name: 'Binance',
  credentials: ['apiKey', 'secret'],
  steps: [
    'Sign in at binance.com and open Account → API Management → Create API (system generated).',
    'Keep only "Enable Reading" ticked; leave Spot & Margin Trading, Withdrawals and Internal Transfer off.',
    'Copy the API key and the secret key.',
  ],
  keyPermissions: binanceKeyPermissions,
  // Deposit and withdrawal history answer at most 90 days per call; Binance opened in July 2017.
  // Spot trades (GET /api/v3/myTrades) need a symbol and page by `fromId`, 1,000 at most.
  // Each list pages by `offset`, 1,000 at most. Convert (GET /sapi/v1/convert/tradeFlow) answers
  // 30 days a call, 1,000 at most, with no paging of its own (weight 3,000 a call: 60 a minute).
  // The dust log (GET /sapi/v1/asset/dribblet) answers the last 100 conversions of a range of 90
  // days at most, from December 2020 on. The Funding wallet (P2P, Pay and card purchases land
  // there) adds its balances; its history is records (FUNDING_RECORDS). Simple Earn positions
  // (flexible and locked; 100 a page, weight 150) add theirs, and their rewards are the Earn
  // book's history (2 lists, 89-day ranges: Binance allows 3 months; from 2023, when Simple
  // Earn opened). Moves into and out of Earn are between books: the totals do not need them.
  history: [
    {
      name: 'spot',
      balances: {},
      mirrorPrefix: 'LD',
      formerCursor: true,
      history: {
        kind: 'transfers',
        window: { days: 90, earliest: Date.UTC(2017, 6, 1) },
        paging: { param: 'offset', pageSize: 1000, by: 'offset' },
        conversions: {
          days: 30,
          earliest: Date.UTC(2017, 6, 1),
          pageSize: 1000,
          dust: { method: 'sapiGetAssetDribblet', earliest: Date.UTC(2020, 11, 1), max: 100 },
        },
        trades: { param: 'fromId', pageSize: 1000, by: 'id' },
      },
    },
    {
      name: 'funding',
      balances: { type: 'funding' },
      // What moves money into and out of the Funding wallet, apart from transfers: purchases with
      // a card or the cash balance, fiat deposits and withdrawals, P2P orders, Binance Pay.
      history: { kind: 'records', days: 30, earliest: Date.UTC(2017, 6, 1), pageSize: 100, lists: FUNDING_RECORDS },
    },
    {
      name: 'earn',
      balances: {
        holdings: [
          { method: 'sapiGetSimpleEarnFlexiblePosition', pageSize: 100, fields: { asset: 'asset', amount: 'totalAmount' } },
          { method: 'sapiGetSimpleEarnLockedPosition', pageSize: 100, fields: { asset: 'asset', amount: 'amount' } },
        ],
      },
      history: {
        kind: 'records',
        days: 89,
        earliest: Date.UTC(2023, 0, 1),
        pageSize: 100,
        lists: [
          // Every type at once (`ALL`: bonus tiered, real-time and historical rewards), each row
          // naming its own.
          {
            method: 'sapiGetSimpleEarnFlexibleHistoryRewardsRecord',
            params: { type: 'ALL' },
            ref: 'earn:flexible',
            label: 'Simple Earn Flexible reward',
            fields: { asset: 'asset', amount: 'rewards', time: 'time', id: ['type', 'projectId', 'asset', 'time'] },
          },
          {
            method: 'sapiGetSimpleEarnLockedHistoryRewardsRecord',
            ref: 'earn:locked',
            label: 'Simple Earn Locked reward',
            fields: { asset: 'asset', amount: 'amount', time: 'time', id: ['positionId', 'asset', 'type', 'time'] },
          },
        ],
      },
    },
  ],
  // Spot markets only (we read the spot wallet; futures markets are other hosts and calls), and
  // neither the currency list nor the margin pairs: signed calls on every market load that
  // balances and transfers do not need.
  ccxtOptions: { options: { fetchMarkets: { types: ['spot'] }, fetchCurrencies: false, fetchMargins: false } },
  // Binance's "UID weight" calls (its API reference, endpoint by endpoint): fiat deposits and
  // withdrawals 90,000 (two calls a minute), Convert and Pay history 3,000. Their IP weight is 1,
  // which ccxt counts as 0.1 of its units. (Withdrawal history's 18,000 is a second's limit, 10
  // calls, which ccxt's own cost of it keeps.)
  accountLimits: {
    perMinute: 180_000,
    sharedCost: 0.1,
    weights: { 'fiat/orders': 90_000, 'convert/tradeFlow': 3_000, 'pay/transactions': 3_000 },
  },
};
