import type { OAuthServer } from '../../oauth/oauth-client.js';
import type { KeyPermissionCheck } from '../key-permissions.js';
import type { CredentialField, ProviderTransaction } from '../provider.js';

/**
 * The exchange table's language: what a row of it says (ExchangeRow) and the walks, books and
 * lists a row's history is described with. The rows themselves are one file per exchange beside
 * this one, gathered in exchanges.ts.
 */

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
export const isHoldings = (balances: Book['balances']): balances is { holdings: readonly HoldingsList[] } =>
  Array.isArray((balances as { holdings?: unknown }).holdings);

/** Whether an exchange's history is kept in several books. */
export const isBooks = (history: HistorySource | readonly Book[]): history is readonly Book[] => Array.isArray(history);

/**
 * One supported exchange. Adding an exchange ccxt supports is a row (a file beside this one), not a module.
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
  depositAddresses?:
    | { kind: 'lookup'; networks?: Readonly<Record<string, string>>; everyNetwork?: boolean }
    | { kind: 'wallet-list'; method: string; tag?: string }
    | { kind: 'none' };
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
  errorCodes?: Readonly<Record<string, 'RateLimitExceeded'>> | undefined;
  /**
   * The field of the exchange's JSON answer that holds its code, where ccxt does not read it at
   * all (Bitstamp's `response_code`: ccxt matches only the `reason` text): matched against
   * `errorCodes` before ccxt reads the answer.
   */
  errorCodeField?: string | undefined;
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
 * call; instead each waits in a limiter of its own per account and endpoint (account-limits.ts, opened in ccxt-access.ts),
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
