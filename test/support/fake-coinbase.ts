import { createPublicKey, generateKeyPairSync, randomUUID, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { startFakeExchangeServer, type FakeExchangeServer, type FakeRequest, type FakeResponse } from './fake-exchange-server.js';
import { SELF_SIGNED_TLS } from './self-signed-tls.js';

/**
 * A local Coinbase Advanced Trade API (and the v2 endpoints ccxt's coinbase class reads with it),
 * over HTTPS on 127.0.0.1, checking every private request as the CDP API key documentation
 * defines it: `Authorization: Bearer <JWT>`, the JWT signed ES256 with the key's EC private key,
 * header `kid` = the key name and a `nonce`, claims `sub` = the key name, `iss` ("cdp", or the older
 * "coinbase-cloud"), `nbf`/`exp` around now and at most 120 s apart, and `uri` =
 * "<METHOD> <host><path>" of this very request. HTTPS because ccxt writes `uri` without the scheme
 * only for https URLs, exactly as Coinbase documents it.
 *
 * Errors have Coinbase's shapes: 401 with the text `Unauthorized`, 403 `PERMISSION_DENIED`, 429
 * with `errors` `rate_limit_exceeded`.
 *
 * v2 wallet transactions and addresses answer in the shape of the answers ccxt's repository keeps
 * as captured from Coinbase (ccxt/ccxt `ts/src/test/static/response/coinbase.json`,
 * `fetchDepositsWithdrawals` and `fetchDepositAddresses`): a transaction's `network` is
 * `{hash, network_name, status}` with a send's `transaction_fee`, no `description` or
 * `updated_at`; an address carries `destination_tag` at the top level, with no `address_info`.
 * The v3 accounts, key permissions and transaction summary have no capture: their shapes are
 * Coinbase's API reference.
 */

/**
 * A v2 wallet transaction: `amount` is the wallet's balance change, signed (a send's network fee
 * inside it). A transaction on a blockchain has `network`: its hash, status and, for a send, the
 * fee (`transaction_fee`, in the wallet's currency); a send names its destination (`to`).
 */
export interface CoinbaseTransaction {
  id: string;
  type: string;
  status: string;
  amount: string;
  created_at: string;
  network?: { hash: string; status: string; fee?: string };
  to?: string;
}

/**
 * A receive address of a wallet (v2 `addresses`); `network` is Coinbase's name (`bitcoin`). The
 * memo or tag is answered at the top level, as the captured answer has it; `addressInfo` also
 * answers the documented `address_info` object, with the tag in it where there is one.
 */
export interface CoinbaseAddress {
  id: string;
  address: string;
  network: string;
  destination_tag?: string;
  addressInfo?: boolean;
}

export interface CoinbaseWallet {
  uuid: string;
  currency: string;
  available: string;
  hold: string;
  /** v2 transactions of this wallet, newest first as Coinbase answers. */
  transactions: CoinbaseTransaction[];
  /** Receive addresses the wallet already has. */
  addresses?: CoinbaseAddress[];
}

export interface CoinbaseAccount {
  /** The key name: organizations/{org}/apiKeys/{key}. */
  key: string;
  /** The EC private key, PEM (SEC1), as Coinbase hands it out. */
  secret: string;
  publicKey: KeyObject;
  permissions: { can_view: boolean; can_trade: boolean; can_transfer: boolean };
  wallets: CoinbaseWallet[];
  failWith?: FakeResponse;
}

export interface FakeCoinbase extends FakeExchangeServer {
  addAccount(options?: Partial<Pick<CoinbaseAccount, 'permissions' | 'wallets' | 'failWith'>>): CoinbaseAccount;
  /** Also accept OAuth access tokens of this issuer (RS256 JWTs whose `sub` is an account's key). */
  trustOAuthIssuer(issuer: string, keys: JsonWebKey[]): void;
}

/** Page sizes as documented: v3 accounts up to 250 (default 49), v2 transactions up to 100 (default 25). */
const ACCOUNTS_MAX = 250;
const TRANSACTIONS_MAX = 100;

function product(base: string, quote: string) {
  return {
    product_id: `${base}-${quote}`,
    price: '95000.00',
    price_percentage_change_24h: '0.5',
    volume_24h: '1000',
    volume_percentage_change_24h: '1',
    base_increment: '0.00000001',
    quote_increment: '0.01',
    quote_min_size: '1',
    quote_max_size: '150000000',
    base_min_size: '0.00000001',
    base_max_size: '3400',
    base_name: base,
    quote_name: quote,
    watched: false,
    is_disabled: false,
    new: false,
    status: 'online',
    cancel_only: false,
    limit_only: false,
    post_only: false,
    trading_disabled: false,
    auction_mode: false,
    product_type: 'SPOT',
    quote_currency_id: quote,
    base_currency_id: base,
    mid_market_price: '',
    alias: '',
    alias_to: [],
    base_display_symbol: base,
    quote_display_symbol: quote,
    view_only: false,
    price_increment: '0.01',
    display_name: `${base}-${quote}`,
    product_venue: 'CBE',
  };
}

/** The crypto currencies the fake lists (v2 `currencies/crypto`): code, name, decimals. */
const CRYPTO: readonly [string, string, number][] = [
  ['BTC', 'Bitcoin', 8],
  ['ETH', 'Ethereum', 8],
  ['USDT', 'Tether', 6],
  ['XRP', 'XRP', 6],
  ['XLM', 'Stellar Lumens', 7],
];

/** Coinbase's network names (a transaction's `network_name`) by wallet currency. */
const NETWORK_NAMES: Readonly<Record<string, string>> = {
  BTC: 'bitcoin',
  ETH: 'ethereum',
  USDT: 'ethereum',
  XRP: 'ripple',
  XLM: 'stellar',
};

const json = (status: number, body: unknown): FakeResponse => ({ status, body });
const b64url = (text: string) => Buffer.from(text, 'base64url');

export async function startFakeCoinbase(): Promise<FakeCoinbase> {
  const accounts = new Map<string, CoinbaseAccount>();
  const usedNonces = new Set<string>();
  let oauth: { issuer: string; keys: Map<string, KeyObject> } | undefined;

  /** Checks the bearer JWT against the CDP definition; returns the account or the 401. */
  function authenticate(request: FakeRequest): CoinbaseAccount | FakeResponse {
    // Coinbase answers a bad JWT with a bare text 401; the reason is kept for a failing test to show.
    const unauthorized = (why: string): FakeResponse => ({
      status: 401,
      body: 'Unauthorized\n',
      text: true,
      headers: { 'x-fake-reason': encodeURIComponent(why) },
    });
    const token = /^Bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(String(request.headers.authorization ?? ''));
    if (!token) return unauthorized('no bearer JWT');
    const [, head, body, signature] = token as unknown as [string, string, string, string];
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(b64url(head).toString('utf8')) as Record<string, unknown>;
      claims = JSON.parse(b64url(body).toString('utf8')) as Record<string, unknown>;
    } catch {
      return unauthorized('JWT is not JSON');
    }
    if (header.alg === 'RS256' && oauth) return oauthAccount(head, body, signature, header, claims) ?? unauthorized('OAuth token');
    const account = accounts.get(String(header.kid ?? ''));
    if (!account) return unauthorized('unknown kid');
    if (header.alg !== 'ES256') return unauthorized('alg');
    if (!verify('sha256', Buffer.from(`${head}.${body}`), { key: account.publicKey, dsaEncoding: 'ieee-p1363' }, b64url(signature)))
      return unauthorized('signature');
    const nonce = String(header.nonce ?? '');
    if (nonce === '' || usedNonces.has(nonce)) return unauthorized('nonce missing or reused');
    usedNonces.add(nonce);
    const now = Math.floor(Date.now() / 1000);
    const nbf = Number(claims.nbf);
    const exp = Number(claims.exp);
    if (claims.sub !== account.key || !['cdp', 'coinbase-cloud'].includes(String(claims.iss))) return unauthorized('sub or iss');
    if (!(nbf <= now + 5 && exp > now && exp - nbf <= 120)) return unauthorized('nbf/exp');
    const uri = `${request.method} ${String(request.headers.host)}${request.path}`;
    if (claims.uri !== uri) return unauthorized(`uri ${String(claims.uri)} ≠ ${uri}`);
    return account;
  }

  /**
   * An OAuth access token ("Sign in with Coinbase"): a JWT of the trusted issuer, signed by one of
   * its keys, not expired, granting the accounts read scope; its subject is the account's key.
   */
  function oauthAccount(
    head: string,
    body: string,
    signature: string,
    header: Record<string, unknown>,
    claims: Record<string, unknown>,
  ): CoinbaseAccount | undefined {
    const key = oauth?.keys.get(String(header.kid ?? ''));
    if (!oauth || !key || !verify('sha256', Buffer.from(`${head}.${body}`), key, b64url(signature))) return undefined;
    if (claims.iss !== oauth.issuer || !(Number(claims.exp) > Math.floor(Date.now() / 1000))) return undefined;
    if (
      !String(claims.scope ?? '')
        .split(' ')
        .includes('wallet:accounts:read')
    )
      return undefined;
    return accounts.get(String(claims.sub ?? ''));
  }

  function publicCall(request: FakeRequest): FakeResponse | undefined {
    switch (request.path) {
      case '/api/v3/brokerage/market/products':
        return json(
          200,
          request.query.get('product_type') === 'FUTURE'
            ? { products: [], num_products: 0 }
            : { products: [product('BTC', 'USD'), product('ETH', 'USD')], num_products: 2 },
        );
      case '/v2/currencies':
        return json(200, { data: [{ id: 'USD', name: 'US Dollar', min_size: '0.01' }] });
      case '/v2/currencies/crypto':
        return json(200, {
          data: CRYPTO.map(([code, name, exponent], i) => ({
            asset_id: randomUUID(),
            code,
            name,
            color: '#F7931A',
            sort_index: 100 + i,
            exponent,
            type: 'crypto',
            address_regex: '^.+$',
          })),
        });
      case '/v2/exchange-rates':
        return json(200, {
          data: { currency: 'USD', rates: { BTC: '0.0000105', ETH: '0.00029', USDT: '1', XRP: '0.4', XLM: '3', USD: '1' } },
        });
      default:
        return undefined;
    }
  }

  function privateCall(request: FakeRequest, account: CoinbaseAccount): FakeResponse {
    if (account.failWith) return account.failWith;
    if (request.path === '/api/v3/brokerage/key_permissions')
      return json(200, { ...account.permissions, portfolio_uuid: randomUUID(), portfolio_type: 'DEFAULT' });
    if (!account.permissions.can_view)
      return json(403, { error: 'PERMISSION_DENIED', message: 'Missing required scopes', error_details: 'Missing required scopes' });
    if (request.path === '/api/v3/brokerage/transaction_summary') {
      return json(200, {
        total_volume: 0,
        total_fees: 0,
        fee_tier: { pricing_tier: 'Advanced 1', usd_from: '0', usd_to: '1000', taker_fee_rate: '0.012', maker_fee_rate: '0.006' },
        margin_rate: null,
        goods_and_services_tax: null,
        advanced_trade_only_volume: 0,
        advanced_trade_only_fees: 0,
        coinbase_pro_volume: 0,
        coinbase_pro_fees: 0,
      });
    }
    if (request.path === '/api/v3/brokerage/accounts') {
      // Cursor pagination: the cursor is the index of the next wallet.
      const start = Number(request.query.get('cursor') || '0');
      const limit = Math.min(Number(request.query.get('limit') ?? '49'), ACCOUNTS_MAX);
      const page = account.wallets.slice(start, start + limit);
      const more = start + limit < account.wallets.length;
      return json(200, {
        accounts: page.map((w) => ({
          uuid: w.uuid,
          name: `${w.currency} Wallet`,
          currency: w.currency,
          available_balance: { value: w.available, currency: w.currency },
          default: false,
          active: true,
          created_at: '2024-01-01T00:00:00.000Z',
          updated_at: '2024-01-01T00:00:00.000Z',
          deleted_at: null,
          type: w.currency === 'USD' ? 'ACCOUNT_TYPE_FIAT' : 'ACCOUNT_TYPE_CRYPTO',
          ready: true,
          hold: { value: w.hold, currency: w.currency },
          retail_portfolio_id: 'portfolio',
        })),
        has_next: more,
        cursor: more ? String(start + limit) : '',
        size: page.length,
      });
    }
    const transactions = /^\/v2\/accounts\/([\w-]+)\/transactions$/.exec(request.path);
    if (transactions) {
      const wallet = account.wallets.find((w) => w.uuid === transactions[1]);
      if (!wallet) return json(404, { errors: [{ id: 'not_found', message: 'Not found' }] });
      const after = request.query.get('starting_after');
      const from = after ? wallet.transactions.findIndex((t) => t.id === after) + 1 : 0;
      const limit = Math.min(Number(request.query.get('limit') ?? '25'), TRANSACTIONS_MAX);
      const page = wallet.transactions.slice(from, from + limit);
      const next = from + limit < wallet.transactions.length ? page.at(-1)?.id : undefined;
      return json(200, {
        pagination: {
          ending_before: null,
          limit,
          next_starting_after: next ?? null,
          next_uri: next ? `/v2/accounts/${wallet.uuid}/transactions?limit=${limit}&starting_after=${next}` : null,
          order: 'desc',
          previous_ending_before: null,
          previous_uri: null,
          starting_after: after,
        },
        data: page.map((t) => ({
          amount: { amount: t.amount, currency: wallet.currency },
          created_at: t.created_at,
          id: t.id,
          ...(t.to ? { idem: `idem-${t.id}` } : {}),
          native_amount: { amount: '0.00', currency: 'USD' },
          ...(t.network
            ? {
                network: {
                  hash: t.network.hash,
                  network_name: NETWORK_NAMES[wallet.currency] ?? wallet.currency.toLowerCase(),
                  status: t.network.status,
                  ...(t.network.fee ? { transaction_fee: { amount: t.network.fee, currency: wallet.currency } } : {}),
                },
              }
            : {}),
          resource: 'transaction',
          resource_path: `/v2/accounts/${wallet.uuid}/transactions/${t.id}`,
          status: t.status,
          ...(t.to ? { to: { address: t.to, resource: 'address' } } : {}),
          type: t.type,
        })),
      });
    }
    const addresses = /^\/v2\/accounts\/([\w-]+)\/addresses$/.exec(request.path);
    if (addresses && request.method === 'GET') {
      const wallet = account.wallets.find((w) => w.uuid === addresses[1]);
      if (!wallet) return json(404, { errors: [{ id: 'not_found', message: 'Not found' }] });
      const limit = Math.min(Number(request.query.get('limit') ?? '25'), TRANSACTIONS_MAX);
      const listed = (wallet.addresses ?? []).slice(0, limit);
      return json(200, {
        data: listed.map((a) => ({
          id: a.id,
          address: a.address,
          currency: wallet.currency,
          name: '',
          network: a.network,
          created_at: '2024-01-01T00:00:00.000Z',
          updated_at: '2024-01-01T00:00:00.000Z',
          resource: 'addresses',
          resource_path: `v2/accounts/${wallet.uuid}/addresses/${a.id}`,
          destination_tag: a.destination_tag ?? '',
          ...(a.addressInfo
            ? { address_info: { address: a.address, ...(a.destination_tag ? { destination_tag: a.destination_tag } : {}) } }
            : {}),
        })),
        pagination: { ending_before: listed[0]?.id ?? null, starting_after: '', limit, order: 'desc', page: 0 },
      });
    }
    return json(404, { error: 'NOT_FOUND', message: 'Not found' });
  }

  const server = await startFakeExchangeServer(
    (request) => {
      const open = publicCall(request);
      if (open) return open;
      const account = authenticate(request);
      return 'key' in account ? privateCall(request, account) : account;
    },
    { tls: SELF_SIGNED_TLS },
  );

  return Object.assign(server, {
    addAccount(options: Partial<Pick<CoinbaseAccount, 'permissions' | 'wallets' | 'failWith'>> = {}): CoinbaseAccount {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const account: CoinbaseAccount = {
        key: `organizations/${randomUUID()}/apiKeys/${randomUUID()}`,
        secret: privateKey.export({ type: 'sec1', format: 'pem' }).toString(),
        publicKey: createPublicKey(publicKey.export({ type: 'spki', format: 'pem' })),
        permissions: { can_view: true, can_trade: false, can_transfer: false },
        wallets: [],
        ...options,
      };
      accounts.set(account.key, account);
      return account;
    },
    trustOAuthIssuer(issuer: string, keys: JsonWebKey[]): void {
      oauth = {
        issuer,
        keys: new Map(keys.map((jwk) => [String((jwk as { kid?: string }).kid), createPublicKey({ key: jwk, format: 'jwk' })])),
      };
    },
  });
}

/** Coinbase's answer to a revoked or unknown key, to set as `failWith`. */
export const COINBASE_UNAUTHORIZED: FakeResponse = { status: 401, body: 'Unauthorized\n', text: true };
