import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { startFakeExchangeServer, type FakeExchangeServer, type FakeRequest, type FakeResponse } from './fake-exchange-server.js';

/**
 * A local KuCoin REST API (https://www.kucoin.com/docs-new/), the classic (not unified) account,
 * enough of it for ccxt's kucoin class to load spot markets and currencies, read the accounts'
 * balances (Main, Trade, Trade HF), the key's permissions, both ledgers and deposit addresses —
 * checking every private request as KuCoin documents its authentication (key version 2):
 *
 * - `KC-API-KEY` names a key (unknown: 400003), `KC-API-KEY-VERSION` is 2;
 * - `KC-API-PASSPHRASE` = base64(HMAC-SHA256(secret, passphrase)) (else 400004);
 * - `KC-API-TIMESTAMP` is ms within 5 s of the server's clock (else 400002);
 * - `KC-API-SIGN` = base64(HMAC-SHA256(secret, timestamp + method + endpoint + body)), the
 *   endpoint with its query string (else 400005).
 *
 * The HF ledger refuses an account not moved to high-frequency trading (126001), as KuCoin's
 * error list says. Answers are `{"code":"200000","data":…}`; errors `{"code":…,"msg":…}` with HTTP 401 for
 * authentication, 429 with 429000 when a quota is used up (the `gw-ratelimit-reset` header: ms
 * until it refills), and maintenance a plain-text HTTP 503.
 *
 * Ledgers as documented: the account ledger (`/api/v1/accounts/ledgers`: Main and Trade entries,
 * newest first, `currentPage`/`pageSize` 10–500, at most 24 hours from `startAt` to `endAt` —
 * either alone spans the 24 hours from or to it, neither the last 24 — and one year back), and the
 * Trade HF ledger (`/api/v1/hf/accounts/ledgers`: newest first by id, `limit` ≤ 200, before
 * `lastId`, the last three days only). `amount` is the balance change, the fee in it.
 *
 * The account ledger and the accounts answer with the fields of the answers ccxt's repository
 * keeps as captured from KuCoin (ccxt/ccxt `ts/src/test/static/response/kucoin.json`: fetchLedger,
 * fetchBalance), hex ids included. The HF ledger, the API key, the account mode and the deposit
 * addresses (v2) have no capture: their shapes are KuCoin's API reference.
 */

export interface KucoinEntry {
  /**
   * The account ledger's ids are 24 hex digits (`65ca404f77c7250007b8ddd7` in the captured answer,
   * ccxt/ccxt `ts/src/test/static/response/kucoin.json`, fetchLedger); the HF ledger's are numbers
   * in text, which it pages by (`lastId`).
   */
  id: string;
  currency: string;
  /** Unsigned: the balance change, the fee in it (KuCoin's "fees included"). */
  amount: string;
  fee: string;
  direction: 'in' | 'out';
  bizType: string;
  /** MAIN or TRADE (the account ledger), TRADE_HF (the HF ledger). */
  accountType: 'MAIN' | 'TRADE' | 'TRADE_HF';
  createdAt: number;
  context?: string;
}

export interface KucoinAccount {
  key: string;
  secret: string;
  passphrase: string;
  /** `permission` of GET /api/v1/user/api-key: General, Spot, Margin, Futures, Transfer, … */
  permission: string;
  /** Moved to high-frequency trading (GET /api/v1/hf/accounts/opened). */
  hf: boolean;
  /** The account mode (GET /api/ua/v1/account/mode): classic, or the unified trading account. */
  mode: 'CLASSIC' | 'UNIFIED';
  /** Balances per account type (`main`, `trade`, `trade_hf`). */
  balances: { type: 'main' | 'trade' | 'trade_hf'; currency: string; balance: string; available: string }[];
  entries: KucoinEntry[];
  /** Set to read `startAt` and `endAt` as exclusive (KuCoin does not say; the fake reads both as inclusive unless told). */
  boundsExclusive?: boolean;
  /** Deposit addresses by currency, one per chain. */
  addresses: Record<string, { chain: string; address: string; memo?: string }[]>;
}

export interface FakeKucoin extends FakeExchangeServer {
  addAccount(options?: Partial<Omit<KucoinAccount, 'key' | 'secret' | 'passphrase'>>): KucoinAccount;
}

const DAY = 86_400_000;
const MARKETS: readonly string[] = ['BTC-USDT', 'ETH-USDT', 'ETH-BTC'];
/** The currencies the fake lists, each on its chains (chainId, as KuCoin names them). */
const CURRENCIES: Record<string, string[]> = { BTC: ['btc'], ETH: ['eth'], USDT: ['eth', 'trx'] };

const ok = (data: unknown): FakeResponse => ({ status: 200, body: { code: '200000', data } });
const failure = (status: number, code: string, msg: string, headers?: Record<string, string>): FakeResponse => ({
  status,
  body: { code, msg },
  ...(headers ? { headers } : {}),
});

const sign = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('base64');

/** An entry as the ledgers answer it: the account ledger's `createdAt` a number, the HF ledger's a string. */
function kucoinEntryAnswer(entry: KucoinEntry): Record<string, unknown> {
  const hf = entry.accountType === 'TRADE_HF';
  return {
    id: entry.id,
    currency: entry.currency,
    amount: entry.amount,
    fee: entry.fee,
    ...(hf ? { tax: '0' } : {}),
    balance: '0',
    accountType: entry.accountType,
    bizType: entry.bizType,
    direction: entry.direction,
    createdAt: hf ? String(entry.createdAt) : entry.createdAt,
    context: entry.context ?? '',
  };
}

/** Newest first; within a millisecond by id (the account ledger's hex ids compare as text: they have one length). */
const newestFirst = (a: KucoinEntry, b: KucoinEntry) => b.createdAt - a.createdAt || (b.id > a.id ? 1 : b.id < a.id ? -1 : 0);

/** A whole number in a query, or undefined when absent; NaN when not one. */
function whole(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  return /^\d+$/.test(text) ? Number(text) : NaN;
}

/** Whether `time` is between `start` and `end`, both included unless `exclusive`. */
const within = (time: number, start: number, end: number, exclusive: boolean) =>
  exclusive ? time > start && time < end : time >= start && time <= end;

/** One page of the account ledger, as documented (24 hours a call at most, one year back). */
function accountLedger(account: KucoinAccount, query: URLSearchParams): FakeResponse {
  const pageSize = whole(query, 'pageSize') ?? 50;
  const page = whole(query, 'currentPage') ?? 1;
  let start = whole(query, 'startAt');
  let end = whole(query, 'endAt');
  if (
    Number.isNaN(pageSize) ||
    Number.isNaN(page) ||
    Number.isNaN(start) ||
    Number.isNaN(end) ||
    page < 1 ||
    pageSize < 10 ||
    pageSize > 500
  ) {
    return failure(400, '400100', 'Parameter error');
  }
  const now = Date.now();
  if (start === undefined && end === undefined) end = now;
  if (start === undefined) start = (end as number) - DAY;
  if (end === undefined) end = start + DAY;
  if (end - start > DAY) return failure(400, '400100', 'The time range cannot exceed 24 hours');
  const kept = now - 365 * DAY;
  const inRange = account.entries
    .filter(
      (e) =>
        e.accountType !== 'TRADE_HF' &&
        e.createdAt >= kept &&
        within(e.createdAt, start as number, end as number, account.boundsExclusive === true),
    )
    .sort(newestFirst);
  const items = inRange.slice((page - 1) * pageSize, page * pageSize).map(kucoinEntryAnswer);
  return ok({ currentPage: page, pageSize, totalNum: inRange.length, totalPage: Math.ceil(inRange.length / pageSize), items });
}

/** One page of the Trade HF ledger: before `lastId`, the last three days only. */
function hfLedger(account: KucoinAccount, query: URLSearchParams): FakeResponse {
  const limit = whole(query, 'limit') ?? 100;
  const lastId = query.get('lastId');
  if (Number.isNaN(limit) || limit < 1 || limit > 200 || (lastId !== null && !/^\d+$/.test(lastId)))
    return failure(400, '400100', 'Parameter error');
  const from = Date.now() - 3 * DAY;
  const items = account.entries
    .filter((e) => e.accountType === 'TRADE_HF' && e.createdAt >= from && (lastId === null || BigInt(e.id) < BigInt(lastId)))
    .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1))
    .slice(0, limit)
    .map(kucoinEntryAnswer);
  return ok(items);
}

export async function startFakeKucoin(): Promise<FakeKucoin> {
  const accounts = new Map<string, KucoinAccount>();

  function authenticate(request: FakeRequest): KucoinAccount | FakeResponse {
    const headers = request.headers;
    const [key, passphrase, timestamp, signature] = ['kc-api-key', 'kc-api-passphrase', 'kc-api-timestamp', 'kc-api-sign'].map((h) =>
      String(headers[h] ?? ''),
    );
    if (!key || !passphrase || !timestamp || !signature)
      return failure(
        401,
        '400001',
        'Please check the header of your request for KC-API-KEY, KC-API-SIGN, KC-API-TIMESTAMP, KC-API-PASSPHRASE',
      );
    if (headers['kc-api-key-version'] !== '2') return failure(401, '400001', 'KC-API-KEY-VERSION must be 2');
    const account = accounts.get(key as string);
    if (!account) return failure(401, '400003', 'KC-API-KEY not exists');
    if (!/^\d+$/.test(timestamp as string) || Math.abs(Number(timestamp) - Date.now()) > 5_000)
      return failure(401, '400002', 'KC-API-TIMESTAMP Invalid -- Time differs from server time by more than 5 seconds');
    if (passphrase !== sign(account.secret, account.passphrase)) return failure(401, '400004', 'Invalid KC-API-PASSPHRASE');
    const endpoint = `${request.path}${request.rawQuery === '' ? '' : `?${request.rawQuery}`}`;
    const expected = Buffer.from(sign(account.secret, `${timestamp}${request.method}${endpoint}${request.body}`));
    const given = Buffer.from(signature as string);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return failure(401, '400005', 'Invalid KC-API-SIGN');
    return account;
  }

  function privateCall(request: FakeRequest, account: KucoinAccount): FakeResponse {
    if (request.method !== 'GET') return failure(405, '400100', `${request.method} is not a read`);
    switch (request.path) {
      case '/api/ua/v1/account/mode':
        return ok({ selfAccountMode: account.mode });
      case '/api/v1/hf/accounts/opened':
        return ok(account.hf);
      case '/api/v3/margin/symbols':
        return ok({ timestamp: Date.now(), items: [] });
      case '/api/v1/isolated/symbols':
        return ok([]);
      case '/api/v1/user/api-key':
        return ok({
          remark: 'read',
          apiKey: account.key,
          apiVersion: 3,
          permission: account.permission,
          ipWhitelist: '',
          createdAt: 1728443843000,
          uid: 165111215,
          isMaster: true,
        });
      case '/api/v1/accounts': {
        const type = request.query.get('type');
        const currency = request.query.get('currency');
        return ok(
          account.balances
            .filter((b) => (type === null || b.type === type) && (currency === null || b.currency === currency))
            .map((b, i) => ({
              id: `64feeeb6b4f1fb00079${String(i).padStart(5, '0')}`,
              currency: b.currency,
              type: b.type,
              balance: b.balance,
              available: b.available,
              holds: '0',
            })),
        );
      }
      case '/api/v1/accounts/ledgers':
        return accountLedger(account, request.query);
      case '/api/v1/hf/accounts/ledgers':
        // As KuCoin answers an account not moved to high-frequency trading.
        return account.hf ? hfLedger(account, request.query) : failure(400, '126001', 'Users currently do not support high frequency');
      case '/api/v2/deposit-addresses': {
        const currency = request.query.get('currency') ?? '';
        if (!(currency in CURRENCIES)) return failure(400, '900003', 'Currency does not exist');
        const chains = CURRENCIES[currency] as string[];
        return ok(
          (account.addresses[currency] ?? [])
            .filter((a) => chains.includes(a.chain))
            .map((a) => ({
              address: a.address,
              memo: a.memo ?? '',
              chain: a.chain.toUpperCase(),
              chainId: a.chain,
              to: 'MAIN',
              currency,
              contractAddress: '',
            })),
        );
      }
      default:
        return failure(404, '404000', `no endpoint ${request.path} in this fake`);
    }
  }

  const server = await startFakeExchangeServer((request) => {
    if (request.path === '/api/v2/symbols') {
      return ok(
        MARKETS.map((symbol) => {
          const [baseCurrency, quoteCurrency] = symbol.split('-');
          return {
            symbol,
            name: symbol,
            baseCurrency,
            quoteCurrency,
            feeCurrency: quoteCurrency,
            market: 'USDS',
            baseMinSize: '0.00001',
            quoteMinSize: '0.1',
            baseMaxSize: '10000000000',
            quoteMaxSize: '99999999',
            baseIncrement: '0.00000001',
            quoteIncrement: '0.000001',
            priceIncrement: '0.1',
            priceLimitRate: '0.1',
            minFunds: '0.1',
            isMarginEnabled: false,
            enableTrading: true,
          };
        }),
      );
    }
    if (request.path === '/api/v3/currencies') {
      return ok(
        Object.entries(CURRENCIES).map(([currency, chains]) => ({
          currency,
          name: currency,
          fullName: currency,
          precision: 8,
          confirms: null,
          contractAddress: null,
          isMarginEnabled: false,
          isDebitEnabled: false,
          chains: chains.map((chainId) => ({
            chainName: chainId.toUpperCase(),
            chainId,
            withdrawalMinSize: '0.001',
            depositMinSize: '0.0001',
            withdrawFeeRate: '0',
            withdrawalMinFee: '0.0005',
            isWithdrawEnabled: true,
            isDepositEnabled: true,
            confirms: 2,
            preConfirms: 1,
            contractAddress: '',
            withdrawPrecision: 8,
            maxWithdraw: null,
            maxDeposit: null,
            needTag: false,
          })),
        })),
      );
    }
    const authenticated = authenticate(request);
    return 'key' in authenticated ? privateCall(request, authenticated) : authenticated;
  });

  return Object.assign(server, {
    addAccount(options: Partial<Omit<KucoinAccount, 'key' | 'secret' | 'passphrase'>> = {}): KucoinAccount {
      const account: KucoinAccount = {
        key: randomBytes(12).toString('hex'),
        secret: randomBytes(18).toString('hex'),
        passphrase: `Pass-${randomBytes(4).toString('hex')}`,
        permission: 'General',
        hf: false,
        mode: 'CLASSIC',
        balances: [],
        entries: [],
        addresses: {},
        ...options,
      };
      accounts.set(account.key, account);
      return account;
    },
  });
}
