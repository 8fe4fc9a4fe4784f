import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { addDecimals } from '../../src/connect/amounts.js';
import { startFakeExchangeServer, type FakeExchangeServer, type FakeRequest, type FakeResponse } from './fake-exchange-server.js';

/**
 * A local OKX REST API v5 (https://www.okx.com/docs-v5/en/), enough of it for ccxt's okx class to
 * load spot markets and currencies, read both books' balances (trading and funding), the key's
 * permissions, both books' bills and deposit addresses — checking every private request as OKX
 * documents its REST authentication:
 *
 * - `OK-ACCESS-KEY` names a key (unknown: code 50111), `OK-ACCESS-PASSPHRASE` is the one set
 *   with it (else 50105);
 * - `OK-ACCESS-TIMESTAMP` is an ISO 8601 time with milliseconds, within 30 s of the server's clock
 *   (else 50102, "Timestamp request expired");
 * - `OK-ACCESS-SIGN` = base64(HMAC-SHA256(secret, timestamp + method + requestPath + body)), the
 *   request path with its query string (else 50113).
 *
 * Bills as documented: the trading account's (`/api/v5/account/bills-archive`, three months) and
 * the funding account's (`/api/v5/asset/bills-history`), newest first, `limit` at most 100, `after`
 * the bills before that bill id (the funding list with `pagingType` 2; by time with 1, the
 * default). Answers are `{"code":"0","msg":"","data":[…]}`; errors carry another code, a rate limit
 * with HTTP 429 (50011), maintenance with HTTP 503 (50001).
 *
 * Both balances, the trading bills and the deposit addresses answer with the fields of the answers
 * ccxt's repository keeps as captured from OKX (ccxt/ccxt `ts/src/test/static/response/okx.json`);
 * the funding bills, the account configuration and the currency list have no capture: their
 * shapes are OKX's API reference.
 */

export interface OkxBill {
  billId: string;
  ccy: string;
  /** The balance change: for a trade, the fee already taken off (`balChg` = `sz` + `fee`). */
  balChg: string;
  bal: string;
  type: string;
  ts: number;
  /** Trading bills only: the fee (negative: charged), the order and the instrument. */
  fee?: string;
  ordId?: string;
  instId?: string;
  sz?: string;
}

export interface OkxAccount {
  key: string;
  secret: string;
  passphrase: string;
  /** `perm` of GET /api/v5/account/config: `read_only`, `trade`, `withdraw`, comma-separated. */
  perm: string;
  trading: { ccy: string; eq: string; availEq: string }[];
  funding: { ccy: string; bal: string; availBal: string }[];
  tradingBills: OkxBill[];
  fundingBills: OkxBill[];
  /** Deposit addresses by currency (OKX lists one per chain), with a memo where the chain needs one. */
  addresses: Record<string, { chain: string; addr: string; memo?: string }[]>;
}

export interface FakeOkx extends FakeExchangeServer {
  addAccount(options?: Partial<Omit<OkxAccount, 'key' | 'secret' | 'passphrase'>>): OkxAccount;
}

/** The spot instruments the fake lists. */
const OKX_MARKETS: readonly string[] = ['BTC-USDT', 'ETH-USDT', 'ETH-BTC'];

/** The currencies the fake lists, each on its chains (GET /api/v5/asset/currencies). */
const CURRENCIES: Record<string, string[]> = { BTC: ['BTC-Bitcoin'], ETH: ['ETH-ERC20'], USDT: ['USDT-TRC20', 'USDT-ERC20', 'USDT-TON'] };

const ok = (data: unknown[]): FakeResponse => ({ status: 200, body: { code: '0', msg: '', data } });
const failure = (status: number, code: string, msg: string): FakeResponse => ({ status, body: { code, msg, data: [] } });

/** OKX's `OK-ACCESS-SIGN`, computed from its documented definition. */
function okxSignature(secret: string, prehash: string): string {
  return createHmac('sha256', secret).update(prehash).digest('base64');
}

/**
 * A bill as OKX's bill lists answer it: the trading account's with its trade fields (every field of
 * the captured answer, ccxt/ccxt `ts/src/test/static/response/okx.json`, fetchLedger), the
 * funding account's without (no capture: OKX's API reference).
 */
export function okxBillAnswer(bill: OkxBill, book: 'trading' | 'funding'): Record<string, string> {
  const common = {
    billId: bill.billId,
    ccy: bill.ccy,
    balChg: bill.balChg,
    bal: bill.bal,
    type: bill.type,
    ts: String(bill.ts),
    notes: '',
  };
  if (book === 'funding') return { ...common, clientId: '' };
  const traded = bill.ordId !== undefined;
  return {
    ...common,
    clOrdId: '',
    execType: traded ? 'T' : '',
    fee: bill.fee ?? '0',
    fillFwdPx: '',
    fillIdxPx: '',
    fillMarkPx: '',
    fillMarkVol: '',
    fillPxUsd: '',
    fillPxVol: '',
    fillTime: traded ? String(bill.ts) : '',
    from: '',
    instId: bill.instId ?? '',
    instType: bill.instId ? 'SPOT' : '',
    interest: '0',
    mgnMode: traded ? 'cash' : '',
    ordId: bill.ordId ?? '',
    pnl: '0',
    posBal: '0',
    posBalChg: '0',
    px: '',
    subType: traded ? (bill.balChg.startsWith('-') ? '2' : '1') : '',
    sz: bill.sz ?? bill.balChg.replace(/^-/, ''),
    tag: '',
    to: '',
    tradeId: traded ? `${bill.ordId}0` : '',
  };
}

/** The newest `limit` bills before the bill `after` (by id; by time where `byTime`), newest first. */
function billsPage(bills: readonly OkxBill[], query: URLSearchParams, book: 'trading' | 'funding', byTime: boolean): FakeResponse {
  const limit = Number(query.get('limit') ?? '100');
  const after = query.get('after');
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100 || (after !== null && !/^\d+$/.test(after)))
    return failure(400, '51000', 'Parameter limit or after error');
  const sorted = [...bills].sort((a, b) => (BigInt(b.billId) > BigInt(a.billId) ? 1 : -1));
  const older = after === null ? sorted : sorted.filter((bill) => (byTime ? bill.ts < Number(after) : BigInt(bill.billId) < BigInt(after)));
  return ok(older.slice(0, limit).map((bill) => okxBillAnswer(bill, book)));
}

export async function startFakeOkx(): Promise<FakeOkx> {
  const accounts = new Map<string, OkxAccount>();

  function authenticate(request: FakeRequest): OkxAccount | FakeResponse {
    const account = accounts.get(String(request.headers['ok-access-key'] ?? ''));
    if (!account) return failure(401, '50111', 'Invalid OK-ACCESS-KEY');
    if (request.headers['ok-access-passphrase'] !== account.passphrase)
      return failure(401, '50105', 'Your OK-ACCESS-PASSPHRASE is incorrect');
    const timestamp = String(request.headers['ok-access-timestamp'] ?? '');
    const at = Date.parse(timestamp);
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(timestamp) || Number.isNaN(at))
      return failure(401, '50112', 'Invalid OK-ACCESS-TIMESTAMP');
    if (Math.abs(at - Date.now()) > 30_000) return failure(401, '50102', 'Timestamp request expired');
    const prehash = `${timestamp}${request.method}${request.path}${request.rawQuery === '' ? '' : `?${request.rawQuery}`}${request.body}`;
    const expected = Buffer.from(okxSignature(account.secret, prehash));
    const given = Buffer.from(String(request.headers['ok-access-sign'] ?? ''));
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return failure(401, '50113', 'Invalid Sign');
    return account;
  }

  function privateCall(request: FakeRequest, account: OkxAccount): FakeResponse {
    switch (request.path) {
      case '/api/v5/account/config':
        return ok([{ uid: '44705892343619584', acctLv: '1', perm: account.perm, posMode: 'net_mode', level: 'Lv1' }]);
      case '/api/v5/asset/currencies':
        return ok(
          Object.entries(CURRENCIES).flatMap(([ccy, chains]) =>
            chains.map((chain, i) => ({
              ccy,
              chain,
              name: ccy,
              canDep: true,
              canWd: true,
              canInternal: true,
              mainNet: i === 0,
              minFee: '0.0001',
              maxFee: '0.001',
              fee: '0.0005',
              minWd: '0.001',
              maxWd: '100',
              wdTickSz: '8',
              minDep: '0.00001',
            })),
          ),
        );
      case '/api/v5/account/balance': {
        // The captured answer's fields (fetchBalance "spot balance"), of a spot-mode account.
        const uTime = String(Date.now());
        const details = account.trading.map((b) => ({
          accAvgPx: '',
          availBal: b.availEq,
          availEq: b.availEq,
          borrowFroz: '0',
          cashBal: b.eq,
          ccy: b.ccy,
          crossLiab: '0',
          disEq: '0',
          eq: b.eq,
          eqUsd: '0',
          fixedBal: '0',
          frozenBal: addDecimals(b.eq, `-${b.availEq}`),
          interest: '0',
          isoEq: '0',
          isoLiab: '0',
          isoUpl: '0',
          liab: '0',
          maxLoan: '0',
          ordFrozen: '0',
          spotIsoBal: '0',
          stgyEq: '0',
          twap: '0',
          uTime,
          upl: '0',
          uplLiab: '0',
        }));
        return ok([
          {
            adjEq: '',
            availEq: '',
            borrowFroz: '',
            details,
            imr: '',
            isoEq: '0',
            mgnRatio: '',
            mmr: '',
            notionalUsd: '',
            ordFroz: '',
            totalEq: '0',
            uTime,
            upl: '0',
          },
        ]);
      }
      case '/api/v5/asset/balances':
        // The captured answer's fields (fetchBalance "funding balance").
        return ok(
          account.funding.map((b) => ({ availBal: b.availBal, bal: b.bal, ccy: b.ccy, frozenBal: addDecimals(b.bal, `-${b.availBal}`) })),
        );
      case '/api/v5/account/bills-archive':
        return billsPage(account.tradingBills, request.query, 'trading', false);
      case '/api/v5/asset/bills-history':
        return billsPage(account.fundingBills, request.query, 'funding', request.query.get('pagingType') !== '2');
      case '/api/v5/asset/deposit-address': {
        const ccy = request.query.get('ccy') ?? '';
        if (!(ccy in CURRENCIES)) return failure(400, '51001', 'Instrument ID or currency does not exist');
        // The captured answer's fields (fetchDepositAddress); a memo in `addrEx.comment`, as the
        // capture's TON address has it.
        return ok(
          (account.addresses[ccy] ?? []).map((a) => ({
            chain: a.chain,
            ...(a.memo ? { addrEx: { comment: a.memo } } : {}),
            ctAddr: '',
            ccy,
            to: '6',
            verifiedName: '',
            addr: a.addr,
            selected: true,
          })),
        );
      }
      default:
        return failure(404, '50050', `no endpoint ${request.path} in this fake`);
    }
  }

  const server = await startFakeExchangeServer((request) => {
    if (request.path === '/api/v5/public/instruments') {
      if (request.query.get('instType') !== 'SPOT') return ok([]);
      return ok(
        OKX_MARKETS.map((instId) => {
          const [baseCcy, quoteCcy] = instId.split('-');
          return {
            instId,
            instType: 'SPOT',
            baseCcy,
            quoteCcy,
            state: 'live',
            tickSz: '0.1',
            lotSz: '0.00000001',
            minSz: '0.00001',
            listTime: '1548133413000',
            category: '1',
            ctVal: '',
            ctMult: '',
            ctValCcy: '',
            settleCcy: '',
            uly: '',
            lever: '',
          };
        }),
      );
    }
    const authenticated = authenticate(request);
    return 'key' in authenticated ? privateCall(request, authenticated) : authenticated;
  });

  return Object.assign(server, {
    addAccount(options: Partial<Omit<OkxAccount, 'key' | 'secret' | 'passphrase'>> = {}): OkxAccount {
      const account: OkxAccount = {
        key: randomBytes(16).toString('hex'),
        secret: randomBytes(16).toString('hex').toUpperCase(),
        passphrase: `Pass-${randomBytes(4).toString('hex')}`,
        perm: 'read_only',
        trading: [],
        funding: [],
        tradingBills: [],
        fundingBills: [],
        addresses: {},
        ...options,
      };
      accounts.set(account.key, account);
      return account;
    },
  });
}
