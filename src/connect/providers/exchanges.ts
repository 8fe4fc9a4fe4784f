import type { OAuthServer } from '../oauth/oauth-client.js';
import type { CredentialField, ProviderTransaction } from './provider.js';
import {
  binanceKeyPermissions,
  bitfinexKeyPermissions,
  coinbaseKeyPermissions,
  geminiKeyPermissions,
  kucoinKeyPermissions,
  okxKeyPermissions,
  type KeyPermissionCheck,
} from './key-permissions.js';

/** The credentials ccxt knows (its `requiredCredentials` keys) that an exchange may ask for. */
export type CcxtCredential = 'apiKey' | 'secret' | 'password' | 'uid';

/**
 * How we walk an exchange's history.
 * - `ledger-offset`: the ledger, page by page with an offset parameter (the exchange's fixed page
 *   size); `end` names the exchange's end-time parameter (seconds, as ccxt passes it on), where it
 *   has one, which makes the walk resumable from a checkpoint. (No row lacks one now; the walk
 *   without one, from the newest page each time, is how ccxt read Bitstamp before its walk by id,
 *   and the tests use it to prove that walk keeps the references stored then.)
 * - `rows-by-id`: a ledger of rows with an amount column per currency (Bitstamp's
 *   `user_transactions`), oldest to newest, listed raw through the ccxt API method `method` with
 *   `params` (ccxt's own reading parses every row first, and throws on a currency its markets no
 *   longer list) and read by us: `types` says what each row type is (a trade's two moved columns
 *   are its two legs; unlisted types are transfers; see fromColumnEntry). `pageSize` rows a call,
 *   each call from the newest id read (`param`): every page is a checkpoint, and the last one's id
 *   the cursor the next refresh reads on from.
 * - `ledger-until`: the ledger, newest to oldest, `pageSize` entries a call with `params`, each page
 *   ending at the oldest time read or one millisecond past it (ccxt's unified `until`, which it maps
 *   to the exchange's end-time parameter; see pagedBack). With `window`, the exchange answers at most `span` ms before `until` a call and
 *   keeps `horizon` ms of history (KuCoin: one day a call, one year): the walk goes window by
 *   window from now back to the horizon, a quiet window being no end.
 * - `ledger-before-id`: the ledger, newest to oldest, through the ccxt API method `method` (the
 *   exchange's own call, its answer's `data` parsed by ccxt as ledger entries), `pageSize` entries
 *   a call with `params`, each page the entries before the oldest id read (`param`, exclusive): the
 *   exchange's own paging, exact where a time boundary could split entries of one millisecond.
 * - `ledger-per-account`: one ledger per wallet (Coinbase keeps one per currency), each page by
 *   page, `pageSize` entries at most, the next page named by the cursor parameter `param` (ccxt
 *   leaves its value on the page's last entry, as `info.next_<param>`); the wallets come from
 *   ccxt's `fetchAccounts`.
 * - `transfers`: deposits and withdrawals (the exchange has no account-wide ledger). With `window`,
 *   the exchange answers only for a bounded time range: the history is walked range by range from
 *   `earliest` (ms). With `paging`, each list page by page. With `conversions`, then the
 *   exchange's conversions (Binance Convert: ccxt's fetchConvertTradeHistory), range by range
 *   (`days` a call) from `earliest`, `pageSize` a call; with `dust`, each range's small-balance
 *   conversions too (Binance's dust log, through the ccxt API method `method`, from its own
 *   `earliest`, at most `max` a call). With `trades`, then the trades, one
 *   market at a time (the exchange answers for one market a call), page by page.
 * - `records`: lists of records, each row one asset's movement (Binance's Simple Earn rewards, its
 *   Funding wallet's purchases, fiat orders, P2P orders and Pay), through ccxt API methods, list by
 *   list, range by range (`days` a call, or the list's own) from `earliest`, each range page by
 *   page (`current` from 1, `pageSize` a page, or the list's own paging): see RecordList.
 */
export type HistorySource =
  | { kind: 'ledger-offset'; param: string; pageSize: number; end?: string }
  | { kind: 'rows-by-id'; method: string; param: string; pageSize: number; params?: Record<string, string>; types: EntryTypes }
  | { kind: 'ledger-until'; pageSize: number; params?: Record<string, unknown>; window?: { span: number; horizon: number } }
  | { kind: 'ledger-before-id'; method: string; param: string; pageSize: number; params?: Record<string, string> }
  | { kind: 'ledger-per-account'; param: string; pageSize: number }
  | {
      kind: 'transfers';
      window?: { days: number; earliest: number };
      paging?: ListPaging<'offset' | 'time'>;
      conversions?: { days: number; earliest: number; pageSize: number; dust?: { method: string; earliest: number; max: number } };
      trades?: ListPaging<'id' | 'time'>;
    }
  | { kind: 'records'; days: number; earliest: number; pageSize: number; lists: readonly RecordList[] };

/** An exchange's own entry types (its codes) as ours, with their words. */
export type EntryTypes = Readonly<Record<string, { type: ProviderTransaction['type']; label: string }>>;

/**
 * One list of records the exchange answers for a bounded time range page by page, through the ccxt
 * API method `method` with `params`; each row one movement of one asset, read off its `asset`,
 * `amount` and `time` (ms) fields. Its reference is `ref` and the row's `id` fields; it is a
 * `type` (a transfer unless said) described as `label`. Unless the list says otherwise, the range
 * is `startTime`/`endTime` and the source's `days` a call, the pages `current` from 1 and `size`
 * (the source's `pageSize`) answered `{rows}`, and every row is completed money coming in.
 */
export interface RecordList {
  method: string;
  params?: Record<string, string>;
  ref: string;
  label: string;
  type?: 'transfer' | 'deposit' | 'withdrawal' | 'trade';
  fields: { asset: string; amount: string; time: string; id: readonly string[]; fee?: string };
  /** The range's parameters; `days` a call (`all`: the whole walk in one call); none older than `horizonDays` back. */
  range?: { start: string; end: string; days?: number | 'all'; horizonDays?: number };
  /** The page parameters (`page` from 1, `size` rows a call, `pageSize` at most) and the answer's list field. */
  paging?: RowPaging;
  /**
   * No pages: at most `max` rows a call (`param`), answered in `data`; a range answering `max` is
   * read again as two halves (Binance Pay).
   */
  halves?: { param: string; max: number };
  /**
   * A row paying out (a negative amount) from several assets lists them in its `field`, each with
   * its `asset` and `amount`: one record each, referenced with its asset (Binance Pay's
   * `fundsDetail`).
   */
  legs?: { field: string; asset: string; amount: string };
  /** Money going out (`out`), or out where the row's `field` is one of `values`; else in. */
  direction?: 'out' | { field: string; out: readonly string[] };
  /** The row's `field` says where it stands: `completed` values moved money, `failed` ones never will; any other is pending. */
  status?: { field: string; completed: readonly string[]; failed: readonly string[] };
}

/** How a list of rows pages: `page` from 1, `size` rows a call (`pageSize` at most), the rows in the answer's `rows` field. */
export interface RowPaging {
  page: string;
  size: string;
  rows: string;
  pageSize?: number;
}

/**
 * Holdings the exchange lists page by page (`current`, `size`; answer `{rows, total}`) through the
 * ccxt API method `method`, where ccxt has no balance call for a book (Binance's Simple Earn
 * positions): each row's `asset` and `amount` fields. Held, not available.
 */
export interface HoldingsList {
  method: string;
  pageSize: number;
  fields: { asset: string; amount: string };
}

/**
 * How a list pages forward: `pageSize` items a call at most, the next page asked for with `param`
 * set to the offset so far (`offset`; a short page is the last), or to one more than the largest
 * id (`id`; likewise) or timestamp, ms (`time`; until a page brings nothing new, as Gemini
 * documents its walk) read so far.
 */
export interface ListPaging<By extends 'offset' | 'id' | 'time'> {
  param: string;
  pageSize: number;
  by: By;
}

/**
 * One of several books an exchange keeps an account's assets in, each with its own balances and
 * ledger (OKX: the funding account, where deposits and withdrawals land, and the trading account).
 * The account's balances are the books' added together; its history is every book's ledger, an
 * internal move between books being two entries that net to nothing. Where only one book has a
 * walk, its cursor, references and descriptions are an exchange's with one book (Bitfinex: one
 * ledger for every wallet).
 */
export interface Book {
  /** Names the book in transaction references (`ledger:<name>:<id>`), descriptions and the cursor. */
  name: string;
  /**
   * Its references stay `ledger:<id>`, as they were when this book was the only one read (OKX's
   * trading account): refreshes after the change upsert those rows instead of adding copies.
   */
  plainRefs?: boolean;
  /** The ccxt fetchBalance parameters that read this book's balances, or the lists of its holdings. */
  balances: Record<string, unknown> | { holdings: readonly HoldingsList[] };
  /**
   * Its balances list another book's holdings again as assets named `mirrorPrefix` + the asset
   * (Binance's Spot account: LDBTC for BTC in Simple Earn Flexible). Such an asset is left out
   * where the rest of its name is a currency the exchange lists and the whole name is not (LDO,
   * a token, stays).
   */
  mirrorPrefix?: string;
  /** Its walk; none where the API tells only the book's balances (Binance's Funding wallet). */
  history?: HistorySource;
  /**
   * The exchange's own entry types (`info.type`, else the code ccxt passed on) as ours, with their
   * words, where ccxt maps the codes of another book (OKX's funding bills: ccxt reads type 1, a
   * deposit, as a transfer, and 2, a withdrawal, as a trade) or does not know them (KuCoin's
   * DEPOSIT and WITHDRAW). Types not listed are transfers, or with `unlistedTypes: 'ccxt'` as ccxt
   * reads them.
   */
  types?: EntryTypes;
  unlistedTypes?: 'transfer' | 'ccxt';
  /**
   * A cursor stored when this book was the only one walked (one without `books`) is this book's:
   * it goes on from there, the other books from the beginning (Binance's spot walk, when Simple
   * Earn's rewards became a second walk). Without it such a cursor starts every book afresh (OKX,
   * whose old trading rows had to be read again).
   */
  formerCursor?: boolean;
  /**
   * The book is there only where the ccxt API method `method` answers `true` in `field` (KuCoin's
   * Trade HF account, on an account moved to high-frequency trading): elsewhere neither its
   * balances nor its walk are read (KuCoin refuses the HF ledger to other accounts, 126001).
   */
  onlyWhen?: { method: string; field: string };
  /** Its entries' amounts have the fee taken off already (OKX's `balChg`: the balance change). */
  feeIncluded?: boolean;
}

/** Whether a book's balances are lists of holdings rather than ccxt fetchBalance parameters. */
export const isHoldings = (balances: Book['balances']): balances is { holdings: readonly HoldingsList[] } => Array.isArray((balances as { holdings?: unknown }).holdings);

/** Whether an exchange's history is kept in several books. */
export const isBooks = (history: HistorySource | readonly Book[]): history is readonly Book[] => Array.isArray(history);

/**
 * One supported exchange. Adding an exchange ccxt supports is a row here, not a module.
 */
export interface ExchangeRow {
  /** ccxt's exchange id; also our provider id. */
  id: string;
  name: string;
  /**
   * What the form asks for: exactly ccxt's `requiredCredentials` for this exchange (a test checks
   * it). Written out rather than read from ccxt so the provider list does not load ccxt (1 s, 140 MB).
   */
  credentials: readonly CcxtCredential[];
  /** Short steps to create a read-only key, shown above the form. */
  steps: readonly string[];
  /**
   * An account we cannot read correctly, told at connection by the ccxt API method `method`:
   * `reason` reads its answer and says why in plain words, or nothing (KuCoin's unified trading
   * accounts, read through other calls whose answers we have not modelled).
   */
  refuseAccount?: { method: string; reason: (answer: unknown) => string | undefined };
  /** How a key that can trade or withdraw is told apart; absent where the exchange's API cannot tell us. */
  keyPermissions?: KeyPermissionCheck;
  /** How its history is read: one walk, or one per book where it keeps several (see Book). */
  history: HistorySource | readonly Book[];
  /**
   * How deposit addresses are read. `lookup` (the default): ccxt's fetchDepositAddress for each
   * asset held; with `networks`, the network ccxt must be told for each asset (ccxt's network
   * code), where the exchange lists addresses per network (Gemini), assets not listed having none
   * we can read; with `everyNetwork`, ccxt's fetchDepositAddressesByNetwork, every network's
   * address of each asset in one call (KuCoin, whose single lookup fails for an asset without
   * one). `wallet-list`: the addresses each held asset's wallet already has, listed with the ccxt
   * API method `method` (called with the wallet's `account_id`), where ccxt's lookup
   * would create an address — a write a read-only key must not make; `tag` names the listed
   * item's field that holds a memo or tag where ccxt reads it elsewhere (that field first, then
   * ccxt's reading). `none`: the exchange has no read that tells them reliably (Bitfinex).
   */
  depositAddresses?: { kind: 'lookup'; networks?: Readonly<Record<string, string>>; everyNetwork?: boolean } | { kind: 'wallet-list'; method: string; tag?: string } | { kind: 'none' };
  /** Changes to a credential's form field (wording, kind of input) for this exchange. */
  fields?: Partial<Record<CcxtCredential, Partial<Omit<CredentialField, 'name'>>>>;
  /** Its OAuth 2 server, when account holders can sign in there instead of creating a key. */
  oauth?: OAuthServer;
  /**
   * Where the exchange answers balances a page at a time: the cursor parameter, and the next
   * page's cursor read from ccxt's `info` (the exchange's own answer; undefined on the last page).
   */
  balancePages?: { param: string; next: (info: Record<string, unknown>) => string | undefined };
  /**
   * The exchange's error codes ccxt leaves unclassified (a plain ExchangeError, which reads as an
   * unknown failure), as the ccxt error class they are: KuCoin's rate limits (429000, 200002),
   * Bitfinex's (ERR_RATE_LIMIT), Bitstamp's (400.002).
   */
  errorCodes?: Readonly<Record<string, 'RateLimitExceeded'>>;
  /**
   * The field of the exchange's JSON answer that holds its code, where ccxt does not read it at
   * all (Bitstamp's `response_code`: ccxt matches only the `reason` text): matched against
   * `errorCodes` before ccxt reads the answer.
   */
  errorCodeField?: string;
  /** ccxt constructor options of our own for this exchange (what it loads, how). */
  ccxtOptions?: Record<string, unknown>;
  /** Calls the exchange counts against the account, not the IP address (see AccountLimits). */
  accountLimits?: AccountLimits;
}

/**
 * Calls whose cost an exchange counts per account and per endpoint (Binance's "UID weight": each
 * such endpoint has its own 180,000 a minute for each account), not against the IP address every
 * account here shares. ccxt has one limiter for the exchange and costs these calls as a share of
 * it (90,000 of Binance's weight: 30 s), which would hold every account back for one account's
 * call; instead each waits in a limiter of its own per account and endpoint (ccxt-provider.ts),
 * then in the shared one at `sharedCost` (ccxt's units: the call's IP weight).
 */
export interface AccountLimits {
  /** What the exchange allows an account a minute on each of these endpoints, in its unit of weight. */
  perMinute: number;
  sharedCost: number;
  /** The endpoints (ccxt's paths) counted per account, and the weight of a call to each. */
  weights: Readonly<Record<string, number>>;
}

/** A day, ms. */
export const DAY_MS = 86_400_000;

/** Binance's fiat lists: `beginTime`/`endTime`, no range limit documented, 500 rows a page in `data`. */
const FIAT_LIST = { range: { start: 'beginTime', end: 'endTime', days: 'all' }, paging: { page: 'page', size: 'rows', rows: 'data', pageSize: 500 } } as const;

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
  { ...FIAT_PAYMENTS, params: { transactionType: '0' }, label: 'purchase with fiat', fields: { ...FIAT_PAYMENTS.fields, amount: 'obtainAmount' } },
  { ...FIAT_PAYMENTS, params: { transactionType: '1' }, label: 'sale for fiat', fields: { ...FIAT_PAYMENTS.fields, amount: 'sourceAmount' }, direction: 'out' },
  { ...FIAT_ORDERS, params: { transactionType: '0' }, ref: 'fiat:deposit', label: 'fiat deposit', type: 'deposit', fields: { ...FIAT_ORDERS.fields, amount: 'indicatedAmount' } },
  { ...FIAT_ORDERS, params: { transactionType: '1' }, ref: 'fiat:withdrawal', label: 'fiat withdrawal', type: 'withdrawal', fields: { ...FIAT_ORDERS.fields, amount: 'amount' }, direction: 'out' },
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

export const EXCHANGES: readonly ExchangeRow[] = [
  {
    id: 'coinbase',
    name: 'Coinbase',
    credentials: ['apiKey', 'secret'],
    steps: [
      'Sign in at coinbase.com and open Settings → API (Coinbase Developer Platform: API keys).',
      'Create an Advanced Trade (CDP) API key with the "View" permission only; leave Trade and Transfer unticked.',
      'Copy the key name (organizations/…/apiKeys/…) as the API key and the private key (-----BEGIN EC PRIVATE KEY-----…) as the secret.',
    ],
    // The CDP secret is a multi-line PEM private key: a password input would drop its line breaks.
    fields: { secret: { label: 'API private key', type: 'textarea', hint: 'The whole key, from -----BEGIN EC PRIVATE KEY----- to -----END EC PRIVATE KEY-----.' } },
    keyPermissions: coinbaseKeyPermissions,
    // v2 wallet transactions: 100 a page at most, the next after `starting_after`. A transaction's
    // `amount` is the wallet's balance change: a send's network fee (`network.transaction_fee`,
    // which ccxt hands over as the entry's fee) is part of it, so the book says `feeIncluded`.
    history: [{ name: 'wallet', balances: {}, history: { kind: 'ledger-per-account', param: 'starting_after', pageSize: 100 }, feeIncluded: true }],
    // "Sign in with Coinbase": read scopes only; Coinbase rotates the refresh token on every use.
    oauth: {
      authorizeUrl: 'https://login.coinbase.com/oauth2/auth',
      tokenUrl: 'https://login.coinbase.com/oauth2/token',
      revokeUrl: 'https://login.coinbase.com/oauth2/revoke',
      scopes: ['wallet:accounts:read', 'wallet:transactions:read', 'wallet:addresses:read', 'wallet:user:read'],
    },
    // Balances from the Advanced Trade API (v3 accounts), the API these keys are made for: 250
    // wallets a page (ccxt asks for one), more after `cursor` while `has_next`.
    ccxtOptions: { options: { fetchBalance: 'v3PrivateGetBrokerageAccounts' } },
    balancePages: { param: 'cursor', next: (info) => (info.has_next === true && typeof info.cursor === 'string' && info.cursor !== '' ? info.cursor : undefined) },
    // ccxt's fetchDepositAddress creates a new address (a POST); listing a wallet's addresses
    // (GET /v2/accounts/{id}/addresses) is a read. Coinbase answers the memo or tag at the top
    // level (`destination_tag`, as captured), where ccxt does not look (it reads `address_info`).
    depositAddresses: { kind: 'wallet-list', method: 'v2PrivateGetAccountsAccountIdAddresses', tag: 'destination_tag' },
  },
  {
    id: 'kraken',
    name: 'Kraken',
    credentials: ['apiKey', 'secret'],
    steps: [
      'Sign in at kraken.com and open Settings → API → Create API key.',
      'Tick only "Query Funds" and "Query Ledger Entries" ("Deposit Funds" too if you want to share deposit addresses: it cannot move money out). Leave Withdraw Funds and every Orders and Trades permission unticked.',
      'Kraken does not let us check a key\'s permissions, so please make sure it is read-only.',
      'Copy the API key and the private key.',
    ],
    history: { kind: 'ledger-offset', param: 'ofs', pageSize: 50, end: 'end' },
  },
  {
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
          conversions: { days: 30, earliest: Date.UTC(2017, 6, 1), pageSize: 1000, dust: { method: 'sapiGetAssetDribblet', earliest: Date.UTC(2020, 11, 1), max: 100 } },
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
    accountLimits: { perMinute: 180_000, sharedCost: 0.1, weights: { 'fiat/orders': 90_000, 'convert/tradeFlow': 3_000, 'pay/transactions': 3_000 } },
  },
  {
    id: 'bitstamp',
    name: 'Bitstamp',
    credentials: ['apiKey', 'secret'],
    steps: [
      'Sign in at bitstamp.net and open Settings → API access → New API key.',
      'Tick only "Account balance" and "User transactions"; leave every trading, deposit and withdrawal permission unticked.',
      'Bitstamp does not let us check a key\'s permissions, so please make sure it is read-only.',
      'Activate the key from the e-mail Bitstamp sends, then copy the API key and the secret.',
    ],
    // `user_transactions`, oldest first, 1,000 a page, each page from the newest id read
    // (`since_id`, as Bitstamp says to page a long history: its offsets stop at 200,000 and its
    // time bounds at 30 days back), so every page is a checkpoint and a refresh reads only what is
    // newer than the last id read. Each entry is a row with an amount column per currency, read by
    // us (ccxt reads a trade as one leg, in 4.5 with no currency, a deposit as an outflow, and
    // finds no currency for an amount under one unit). Row types as Bitstamp documents them; the
    // others (staking, settlements…) are transfers.
    history: {
      kind: 'rows-by-id',
      method: 'privatePostUserTransactions',
      param: 'since_id',
      pageSize: 1000,
      params: { sort: 'asc' },
      types: {
        '0': { type: 'deposit', label: 'deposit' },
        '1': { type: 'withdrawal', label: 'withdrawal' },
        '2': { type: 'trade', label: 'market trade' },
        '14': { type: 'transfer', label: 'sub account transfer' },
      },
    },
    // Its rate limit is response code 400.002, which ccxt does not read (it matches only the
    // `reason` text): a plain exchange error until named here.
    errorCodes: { '400.002': 'RateLimitExceeded' },
    errorCodeField: 'response_code',
  },
  {
    id: 'gemini',
    name: 'Gemini',
    credentials: ['apiKey', 'secret'],
    steps: [
      'Sign in at gemini.com and open Settings → API → Create API key (scope: Primary account).',
      'Choose the "Auditor" role only; not Trader or Fund Manager.',
      'Copy the API key and the API secret.',
    ],
    keyPermissions: geminiKeyPermissions,
    // `transfers` (50 a call) and `mytrades` (500 a call, per market) answer the oldest items from
    // `timestamp` on: the next page starts one millisecond after the newest read.
    history: { kind: 'transfers', paging: { param: 'timestamp', pageSize: 50, by: 'time' }, trades: { param: 'timestamp', pageSize: 500, by: 'time' } },
    // Gemini lists deposit addresses per network (POST /v1/addresses/:network), and ccxt needs the
    // network named: each native coin's own (ccxt's codes for Gemini's networks). Tokens are left
    // out: which network a token is on comes from a currency list ccxt scrapes off Gemini's web
    // pages, not from the API.
    depositAddresses: {
      kind: 'lookup',
      networks: { BTC: 'BTC', ETH: 'ERC20', BCH: 'BCH', LTC: 'LTC', ZEC: 'ZEC', FIL: 'FIL', DOGE: 'DOGE', XTZ: 'XTZ', AVAX: 'AVAXX', SOL: 'SOL', ATOM: 'ATOM', DOT: 'DOT' },
    },
    // ccxt reports Gemini's `MissingRole` as an authentication failure; its last answer (kept
    // with this option) tells a role that may not list addresses from a key that stopped working.
    ccxtOptions: { enableLastJsonResponse: true },
  },
  {
    id: 'okx',
    name: 'OKX',
    credentials: ['apiKey', 'secret', 'password'],
    steps: [
      'Sign in at okx.com and open Profile → API keys → Create API key.',
      'Choose the "Read" permission only; leave Trade and Withdraw unticked. Set a passphrase.',
      'Copy the API key, the secret key and the passphrase you chose.',
    ],
    keyPermissions: okxKeyPermissions,
    // Two books, walked by bill id (`after`: the bills before it), 100 a call: the trading
    // account's bills (the archive keeps three months; OKX serves nothing older) and the funding
    // account's (every bill since February 2021, `pagingType` 2: paged by bill id).
    history: [
      { name: 'trading', plainRefs: true, balances: { type: 'trading' }, history: { kind: 'ledger-before-id', method: 'privateGetAccountBillsArchive', param: 'after', pageSize: 100 }, feeIncluded: true },
      {
        name: 'funding',
        balances: { type: 'funding' },
        history: { kind: 'ledger-before-id', method: 'privateGetAssetBillsHistory', param: 'after', pageSize: 100, params: { pagingType: '2' } },
        types: {
          '1': { type: 'deposit', label: 'deposit' },
          '2': { type: 'withdrawal', label: 'withdrawal' },
          '13': { type: 'transfer', label: 'canceled withdrawal' },
          '130': { type: 'transfer', label: 'from the trading account' },
          '131': { type: 'transfer', label: 'to the trading account' },
        },
      },
    ],
    // Spot markets only: derivatives are four more calls on every market load, and no balance
    // or bill needs them.
    ccxtOptions: { options: { fetchMarkets: { types: ['spot'] } } },
  },
  {
    id: 'bitfinex',
    name: 'Bitfinex',
    credentials: ['apiKey', 'secret'],
    steps: [
      'Sign in at bitfinex.com and open Account → API keys → Create new key.',
      'Keep only the "Read" permissions; switch off every "Write" permission (orders, margin, funding, wallets, withdrawals).',
      'Copy the API key and the API key secret.',
    ],
    keyPermissions: bitfinexKeyPermissions,
    // Three wallets, each with its balances (ccxt reads one wallet type a call, the exchange
    // wallet unless told), and one ledger for all of them (`auth/r/ledgers/hist`, 2,500 entries a
    // call, newest first, `end` read as inclusive): walked once, with the first wallet. A move between
    // wallets is an entry in each.
    history: [
      { name: 'exchange', balances: {}, history: { kind: 'ledger-until', pageSize: 2500 } },
      { name: 'margin', balances: { type: 'margin' } },
      { name: 'funding', balances: { type: 'funding' } },
    ],
    // ccxt's lookup is `auth/w/deposit/address`, a write endpoint that generates an address where
    // none exists; the read listing (`auth/r/deposit/address/all`) answers a memo in place of the
    // address for some currencies, with nothing to tell the two apart.
    depositAddresses: { kind: 'none' },
    // Its documented rate limit, `{"error": "ERR_RATE_LIMIT"}`, is no code ccxt has a class for.
    errorCodes: { ERR_RATE_LIMIT: 'RateLimitExceeded' },
  },
  {
    id: 'kucoin',
    name: 'KuCoin',
    credentials: ['apiKey', 'secret', 'password'],
    steps: [
      'Sign in at kucoin.com and open Account → API Management → Create API.',
      'Tick only "General" (read-only); leave Spot, Margin, Futures, Transfer and Withdrawal off. Set a passphrase.',
      'Copy the API key, the secret and the passphrase you chose.',
    ],
    keyPermissions: kucoinKeyPermissions,
    // KuCoin keeps a classic account's assets in its Main account (deposits, withdrawals) and its
    // Trade account, or, once moved to high-frequency trading, its Trade HF account. The account
    // ledger (GET /api/v1/accounts/ledgers) lists Main and Trade entries, 500 a call, one day a
    // call, for one year; the HF ledger (GET /api/v1/hf/accounts/ledgers) lists Trade HF entries,
    // 200 a call before `lastId`, three days back only. Both give `amount` with the fee in it (the
    // balance change). ccxt reads whichever one the account is on (it asks at market load): the
    // books name each (`hf`) so that both are read. Margin accounts are not read.
    history: [
      {
        name: 'main',
        plainRefs: true,
        balances: { type: 'main' },
        // A day a call (the window a hair short of 24 hours, KuCoin's limit), a year kept (the
        // horizon a day short, so a walk of minutes never asks past it).
        history: { kind: 'ledger-until', pageSize: 500, params: { hf: false }, window: { span: DAY_MS - 1, horizon: 364 * DAY_MS } },
        feeIncluded: true,
        formerCursor: true,
        // ccxt knows the older names (Deposit, Withdrawal, Trade_Exchange), not all the codes the
        // ledger answers now.
        types: { DEPOSIT: { type: 'deposit', label: 'deposit' }, WITHDRAW: { type: 'withdrawal', label: 'withdrawal' }, Exchange: { type: 'trade', label: 'trade' } },
        unlistedTypes: 'ccxt',
      },
      { name: 'trade', balances: { type: 'spot', hf: false } },
      {
        name: 'hf',
        onlyWhen: { method: 'privateGetHfAccountsOpened', field: 'data' },
        balances: { type: 'spot', hf: true },
        history: { kind: 'ledger-before-id', method: 'privateGetHfAccountsLedgers', param: 'lastId', pageSize: 200 },
        feeIncluded: true,
      },
    ],
    // A held asset's addresses on every network it has one on (GET /api/v2/deposit-addresses): the
    // single lookup (v1) fails for an asset never deposited instead of answering none.
    depositAddresses: { kind: 'lookup', everyNetwork: true },
    // Its rate limits answer codes ccxt has no class for: HTTP 429 with 429000 (a resource pool's
    // quota used up) and 200002 (one endpoint's limit).
    errorCodes: { '429000': 'RateLimitExceeded', '200002': 'RateLimitExceeded' },
    // A unified trading account (UTA) keeps its assets elsewhere; ccxt would read it through other
    // calls, where our books would count one account twice. It is refused at connection, and
    // ccxt is told the account is classic (`uta: false`), so that a later change of mode fails
    // the refresh instead of reading it wrongly.
    refuseAccount: {
      method: 'utaPrivateGetAccountMode',
      reason: (answer) =>
        (answer as { data?: { selfAccountMode?: unknown } } | undefined)?.data?.selfAccountMode === 'UNIFIED'
          ? 'This KuCoin account uses the Unified Trading Account, which we cannot read yet. Connect a classic KuCoin account, or another exchange.'
          : undefined,
    },
    // Spot markets only (contract markets are another host's calls on every market load), and no
    // tickers: ccxt reads fees off them, which balances and ledgers do not need.
    ccxtOptions: { options: { uta: false, fetchMarkets: { types: ['spot'], fetchTickersFees: false } } },
  },
];
