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
 *   has one, which makes the walk resumable from a checkpoint.
 * - `ledger-until`: the ledger, newest to oldest, `pageSize` entries a call, each page ending at
 *   the oldest time read (ccxt's unified `until`, which it maps to the exchange's end-time parameter).
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
 */
export type HistorySource =
  | { kind: 'ledger-offset'; param: string; pageSize: number; end?: string }
  | { kind: 'ledger-until'; pageSize: number }
  | { kind: 'ledger-before-id'; method: string; param: string; pageSize: number; params?: Record<string, string> }
  | { kind: 'ledger-per-account'; param: string; pageSize: number }
  | {
      kind: 'transfers';
      window?: { days: number; earliest: number };
      paging?: ListPaging<'offset' | 'time'>;
      conversions?: { days: number; earliest: number; pageSize: number; dust?: { method: string; earliest: number; max: number } };
      trades?: ListPaging<'id' | 'time'>;
    };

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
 * walk, its cursor is stored as it is, as for an exchange with one book.
 */
export interface Book {
  /** Names the book in transaction references (`ledger:<name>:<id>`), descriptions and the cursor. */
  name: string;
  /**
   * Its references stay `ledger:<id>`, as they were when this book was the only one read (OKX's
   * trading account): refreshes after the change upsert those rows instead of adding copies.
   */
  plainRefs?: boolean;
  /** The ccxt fetchBalance parameters that read this book's balances. */
  balances: Record<string, unknown>;
  /** Its walk; none where the API tells only the book's balances (Binance's Funding wallet). */
  history?: HistorySource;
  /**
   * The exchange's own entry types (`info.type`) as ours, with their words, where ccxt maps the
   * codes of another book (OKX's funding bills: ccxt reads type 1, a deposit, as a transfer, and 2,
   * a withdrawal, as a trade). Types not listed are transfers.
   */
  types?: Readonly<Record<string, { type: ProviderTransaction['type']; label: string }>>;
  /** Its entries' amounts have the fee taken off already (OKX's `balChg`: the balance change). */
  feeIncluded?: boolean;
}

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
  /** How a key that can trade or withdraw is told apart; absent where the exchange's API cannot tell us. */
  keyPermissions?: KeyPermissionCheck;
  /** How its history is read: one walk, or one per book where it keeps several (see Book). */
  history: HistorySource | readonly Book[];
  /**
   * How deposit addresses are read. `lookup` (the default): ccxt's fetchDepositAddress for each
   * asset held; with `networks`, the network ccxt must be told for each asset (ccxt's network
   * code), where the exchange lists addresses per network (Gemini), assets not listed having none
   * we can read. `wallet-list`: the addresses each held asset's wallet already has, listed with
   * the ccxt API method `method` (called with the wallet's `account_id`), where ccxt's lookup
   * would create an address — a write a read-only key must not make.
   */
  depositAddresses?: { kind: 'lookup'; networks?: Readonly<Record<string, string>> } | { kind: 'wallet-list'; method: string };
  /** Changes to a credential's form field (wording, kind of input) for this exchange. */
  fields?: Partial<Record<CcxtCredential, Partial<Omit<CredentialField, 'name'>>>>;
  /** Its OAuth 2 server, when account holders can sign in there instead of creating a key. */
  oauth?: OAuthServer;
  /**
   * Where the exchange answers balances a page at a time: the cursor parameter, and the next
   * page's cursor read from ccxt's `info` (the exchange's own answer; undefined on the last page).
   */
  balancePages?: { param: string; next: (info: Record<string, unknown>) => string | undefined };
  /** ccxt constructor options of our own for this exchange (what it loads, how). */
  ccxtOptions?: Record<string, unknown>;
}

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
    // v2 wallet transactions: 100 a page at most, the next after `starting_after`.
    history: { kind: 'ledger-per-account', param: 'starting_after', pageSize: 100 },
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
    // (GET /v2/accounts/{id}/addresses) is a read.
    depositAddresses: { kind: 'wallet-list', method: 'v2PrivateGetAccountsAccountIdAddresses' },
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
    // there) adds its balances; its movements have no history we read.
    history: [
      {
        name: 'spot',
        balances: {},
        history: {
          kind: 'transfers',
          window: { days: 90, earliest: Date.UTC(2017, 6, 1) },
          paging: { param: 'offset', pageSize: 1000, by: 'offset' },
          conversions: { days: 30, earliest: Date.UTC(2017, 6, 1), pageSize: 1000, dust: { method: 'sapiGetAssetDribblet', earliest: Date.UTC(2020, 11, 1), max: 100 } },
          trades: { param: 'fromId', pageSize: 1000, by: 'id' },
        },
      },
      { name: 'funding', balances: { type: 'funding' } },
    ],
    // Spot markets only (we read the spot wallet; futures markets are other hosts and calls), and
    // neither the currency list nor the margin pairs: signed calls on every market load that
    // balances and transfers do not need.
    ccxtOptions: { options: { fetchMarkets: { types: ['spot'] }, fetchCurrencies: false, fetchMargins: false } },
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
    // `user_transactions`, 1,000 a page by `offset`. ccxt passes Bitstamp's ledger no time range
    // (it filters `since` itself), so there is no end time to resume from: a walk cut short
    // starts again from the newest page (1,000 entries a call, one call per 75 ms at its pace).
    history: { kind: 'ledger-offset', param: 'offset', pageSize: 1000 },
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
    // Ledgers answer up to 2,500 entries a call.
    history: { kind: 'ledger-until', pageSize: 2500 },
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
    // Ledgers answer up to 200 entries a call on unified (UTA) accounts, 500 on classic ones.
    history: { kind: 'ledger-until', pageSize: 200 },
  },
];
