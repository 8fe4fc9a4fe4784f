import ccxt from 'ccxt';
import { describe, expect, it } from 'vitest';
import { EXCHANGES } from './exchanges.js';
import { isBooks } from './exchanges/row.js';
import {
  binanceKeyPermissions,
  bitfinexKeyPermissions,
  coinbaseKeyPermissions,
  geminiKeyPermissions,
  kucoinKeyPermissions,
  okxKeyPermissions,
} from './key-permissions.js';

type ExchangeClass = new () => { requiredCredentials: Record<string, boolean>; has: Record<string, unknown> } & Record<string, unknown>;
const exchangeClass = (id: string) => (ccxt as unknown as Record<string, ExchangeClass>)[id] as ExchangeClass;

describe('the exchange table', () => {
  it('names an end time for the offset-paged ledgers, which makes them resumable (Kraken’s `end`, which ccxt passes on; Bitstamp walks by id)', () => {
    const offsetWalks = Object.fromEntries(
      EXCHANGES.flatMap((row) =>
        !isBooks(row.history) && row.history.kind === 'ledger-offset' ? [[row.id, row.history.end ?? null]] : [],
      ),
    );
    expect(offsetWalks).toEqual({ kraken: 'end' });
  });

  it('has the exchanges the issue names, each once', () => {
    expect(EXCHANGES.map((row) => row.id)).toEqual(['coinbase', 'kraken', 'binance', 'bitstamp', 'gemini', 'okx', 'bitfinex', 'kucoin']);
  });

  it.each(EXCHANGES.map((row) => [row.id, row] as const))('%s asks for exactly the credentials ccxt requires', (id, row) => {
    const Class = exchangeClass(id);
    expect(Class).toBeTypeOf('function');
    const required = Object.entries(new Class().requiredCredentials)
      .filter(([, needed]) => needed)
      .map(([name]) => name);
    expect([...row.credentials].sort()).toEqual(required.sort());
  });

  it.each(EXCHANGES.map((row) => [row.id, row] as const))('%s: its key permission method and history calls exist in ccxt', (id, row) => {
    const exchange = new (exchangeClass(id))();
    if (row.keyPermissions) expect(exchange[row.keyPermissions.method]).toBeTypeOf('function');
    for (const source of isBooks(row.history) ? row.history.flatMap((book) => (book.history ? [book.history] : [])) : [row.history]) {
      if (source.kind === 'ledger-before-id') expect(exchange[source.method]).toBeTypeOf('function');
      else if (source.kind !== 'transfers') expect(exchange.has.fetchLedger).toBe(true);
      else expect((exchange.has.fetchDeposits && exchange.has.fetchWithdrawals) || exchange.has.fetchDepositsWithdrawals).toBe(true);
    }
    expect(row.steps.length).toBeGreaterThanOrEqual(2);
    // Where the API cannot tell us, the steps say so to the person.
    if (!row.keyPermissions) expect(row.steps.join(' ')).toContain('does not let us check');
  });

  it.each(EXCHANGES.filter((row) => row.accountLimits).map((row) => [row.id, row] as const))(
    '%s: the calls paced per account are endpoints of ccxt, each within the minute',
    (id, row) => {
      const api = JSON.stringify((new (exchangeClass(id))() as unknown as { describe(): { api: unknown } }).describe().api);
      const limits = row.accountLimits as NonNullable<typeof row.accountLimits>;
      expect(Object.keys(limits.weights).length).toBeGreaterThan(0);
      for (const [path, weight] of Object.entries(limits.weights)) {
        expect(api).toContain(JSON.stringify(path));
        // A call weighing more than the minute would wait for ever.
        expect(weight).toBeGreaterThan(0);
        expect(weight).toBeLessThanOrEqual(limits.perMinute);
      }
    },
  );
});

/** Example answers from each exchange's API documentation, read-only key and a key with powers. */
describe('reading key permissions', () => {
  it('Binance: apiRestrictions flags', () => {
    const readOnly = {
      ipRestrict: false,
      createTime: 1698645219000,
      enableReading: true,
      enableWithdrawals: false,
      enableInternalTransfer: false,
      enableMargin: false,
      enableFutures: false,
      permitsUniversalTransfer: false,
      enableVanillaOptions: false,
      enableFixApiTrade: false,
      enableFixReadOnly: true,
      enableSpotAndMarginTrading: false,
      enablePortfolioMarginTrading: false,
    };
    expect(binanceKeyPermissions.read(readOnly)).toEqual({ canTrade: false, canWithdraw: false });
    expect(binanceKeyPermissions.read({ ...readOnly, enableSpotAndMarginTrading: true })).toEqual({ canTrade: true, canWithdraw: false });
    expect(binanceKeyPermissions.read({ ...readOnly, enableInternalTransfer: true })).toEqual({ canTrade: false, canWithdraw: true });
  });

  it('Coinbase: key_permissions', () => {
    expect(
      coinbaseKeyPermissions.read({
        can_view: true,
        can_trade: false,
        can_transfer: false,
        portfolio_uuid: 'x',
        portfolio_type: 'DEFAULT',
      }),
    ).toEqual({ canTrade: false, canWithdraw: false });
    expect(coinbaseKeyPermissions.read({ can_view: true, can_trade: true, can_transfer: true })).toEqual({
      canTrade: true,
      canWithdraw: true,
    });
  });

  it('Gemini: roles', () => {
    expect(geminiKeyPermissions.read({ isAuditor: true, isFundManager: false, isTrader: false, counterparty_id: 'X' })).toEqual({
      canTrade: false,
      canWithdraw: false,
    });
    expect(geminiKeyPermissions.read({ isAuditor: false, isFundManager: true, isTrader: true })).toEqual({
      canTrade: true,
      canWithdraw: true,
    });
  });

  it('OKX: account config perm', () => {
    const config = (perm: string) => ({ code: '0', msg: '', data: [{ acctLv: '1', perm, uid: '44705892343619584' }] });
    expect(okxKeyPermissions.read(config('read_only'))).toEqual({ canTrade: false, canWithdraw: false });
    expect(okxKeyPermissions.read(config('read_only,trade'))).toEqual({ canTrade: true, canWithdraw: false });
    expect(okxKeyPermissions.read(config('read_only,withdraw,trade'))).toEqual({ canTrade: true, canWithdraw: true });
  });

  it('Bitfinex: [scope, read, write] rows', () => {
    const rows = (writes: string[]) =>
      ['account', 'history', 'orders', 'positions', 'funding', 'wallets', 'withdraw'].map((scope) => [
        scope,
        1,
        writes.includes(scope) ? 1 : 0,
      ]);
    expect(bitfinexKeyPermissions.read(rows([]))).toEqual({ canTrade: false, canWithdraw: false });
    expect(bitfinexKeyPermissions.read(rows(['orders']))).toEqual({ canTrade: true, canWithdraw: false });
    expect(bitfinexKeyPermissions.read(rows(['withdraw']))).toEqual({ canTrade: false, canWithdraw: true });
  });

  it('KuCoin: api-key permission list', () => {
    const key = (permission: string) => ({
      code: '200000',
      data: {
        remark: 'ownproof',
        apiKey: '6705f5c311545b000157d3eb',
        apiVersion: 3,
        permission,
        ipWhitelist: '',
        createdAt: 1728443843000,
      },
    });
    expect(kucoinKeyPermissions.read(key('General'))).toEqual({ canTrade: false, canWithdraw: false });
    expect(kucoinKeyPermissions.read(key('General,Spot'))).toEqual({ canTrade: true, canWithdraw: false });
    expect(kucoinKeyPermissions.read(key('General,Withdrawal'))).toEqual({ canTrade: false, canWithdraw: true });
  });

  it('refuses an answer that is not the documented shape', () => {
    expect(() => okxKeyPermissions.read({ data: 'no' })).toThrow(TypeError);
    expect(() => coinbaseKeyPermissions.read(null)).toThrow(TypeError);
    expect(() => bitfinexKeyPermissions.read({})).toThrow(TypeError);
  });
});
