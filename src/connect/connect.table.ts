import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { Mode } from '../platform/scope.js';

export type SessionStatus = 'open' | 'completed' | 'abandoned';
export type AccountStatus = 'active' | 'disconnected' | 'requires_reauth';

export interface SessionTable {
  seq: Generated<number>;
  id: string;
  client_id: string;
  mode: Mode;
  account_holder_id: string;
  /** SHA-256 of the client secret, for finding the session from the hosted URL. */
  client_secret_hash: string;
  /**
   * The client secret sealed with the secret box. The API shows it only in the create response; it
   * is read back when a provider sign-in (OAuth) returns, to send the browser to the session's pages.
   */
  client_secret_sealed: string;
  status: SessionStatus;
  /** JSON array of permissions. */
  permissions: string;
  return_url: string | null;
  /** When the account holder accepted the disclaimer (Unix seconds). */
  consented_at: number | null;
  /**
   * SHA-256 of the token in the cookie of the browser that accepted the disclaimer: from then on
   * only that browser acts on the session (the client holds the hosted URL too). Null before.
   */
  browser_hash: string | null;
  expires_at: number;
  /** Why an abandoned session ended: expired, cancelled, initialization_failed. */
  abandon_reason: string | null;
  /** Provider logins that failed in this session; capped so the page cannot be used to guess passwords. */
  failed_logins: number;
  created_at: number;
  updated_at: number;
}

export interface AccountTable {
  seq: Generated<number>;
  id: string;
  client_id: string;
  mode: Mode;
  account_holder_id: string;
  session_id: string;
  provider_type: 'exchange' | 'wallet';
  provider_id: string;
  provider_name: string;
  display_name: string;
  /** JSON array of the permissions the session granted. */
  permissions: string;
  status: AccountStatus;
  /** Provider credentials/connection details sealed with the master key (JSON inside). */
  connection_sealed: string;
  /** JSON of the balance refresh state, or null before the first refresh. */
  balance_refresh: string | null;
  /** The claim (verify domain) proving the holder controls this wallet; null when not proven. */
  claim_id: string | null;
  transaction_refresh: string | null;
  /** The provider's cursor after the last complete transaction refresh; null: read everything. */
  transaction_cursor: string | null;
  created_at: number;
  updated_at: number;
}

export interface AccountBalanceTable {
  seq: Generated<number>;
  account_id: string;
  asset: string;
  /** Decimal strings, exactly as the provider reported them (never floats). */
  available: string;
  total: string;
  as_of: number;
}

export interface AccountTransactionTable {
  seq: Generated<number>;
  id: string;
  account_id: string;
  /** The provider's identifier; one row per provider transaction, so refreshes are idempotent. */
  provider_ref: string;
  type: 'deposit' | 'withdrawal' | 'trade' | 'fee' | 'transfer';
  asset: string;
  /** Signed decimal string: positive into the account, negative out of it. */
  amount: string;
  fee: string | null;
  fee_asset: string | null;
  occurred_at: number;
  status: 'pending' | 'completed' | 'failed';
  tx_hash: string | null;
  description: string | null;
}

export interface AccountAddressTable {
  seq: Generated<number>;
  account_id: string;
  address: string;
  asset: string;
  network: string;
  /** What the address is for: deposit (exchange), receive or change (wallet). */
  kind: string;
  label: string | null;
}

export type SessionRow = Selectable<SessionTable>;
export type NewSessionRow = Insertable<SessionTable>;
export type SessionUpdate = Updateable<SessionTable>;
export type AccountRow = Selectable<AccountTable>;
export type NewAccountRow = Insertable<AccountTable>;
export type AccountBalanceRow = Selectable<AccountBalanceTable>;
export type AccountTransactionRow = Selectable<AccountTransactionTable>;
export type NewAccountTransactionRow = Insertable<AccountTransactionTable>;
export type AccountAddressRow = Selectable<AccountAddressTable>;

/**
 * One "Sign in with {exchange}" begun in a hosted session: what the OAuth return leg needs, found
 * by the `state` it sent (hashed here), so the return works without any cookie (in-app webviews).
 */
export interface OAuthAttemptTable {
  seq: Generated<number>;
  id: string;
  session_id: string;
  provider_id: string;
  /** SHA-256 of the `state` sent to the authorization server (the state itself is a bearer value). */
  state_hash: string;
  /** The PKCE code verifier, sealed: only the token request may carry it. */
  verifier_sealed: string;
  created_at: number;
  /** Deleted by the one return that may use it, or once expired. */
  expires_at: number;
}
export type OAuthAttemptRow = Selectable<OAuthAttemptTable>;

/**
 * A call to an endpoint an exchange weighs per account, in the last minute (exchange-call-log.ts).
 * Milliseconds: the minute is the exchange's, and tests shorten it.
 */
export interface ExchangeCallTable {
  seq: Generated<number>;
  /** The exchange, a SHA-256 of the account's key and the endpoint: `binance:<hex>:fiat/orders`. */
  key: string;
  at: number;
  weight: number;
}

/** An exchange's pace per IP address, for every process (ip-pace.ts). */
export interface ExchangePaceTable {
  /** `ip:<exchange id>`. */
  key: string;
  /** When the exchange's next call may start, ms since the epoch. */
  next_at: number;
}

export interface ConnectTables {
  connect_exchange_calls: ExchangeCallTable;
  connect_exchange_paces: ExchangePaceTable;
  connect_oauth_attempts: OAuthAttemptTable;
  connect_sessions: SessionTable;
  connect_accounts: AccountTable;
  connect_account_balances: AccountBalanceTable;
  connect_account_transactions: AccountTransactionTable;
  connect_account_addresses: AccountAddressTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- joins these tables to the service's Database
  interface Database extends ConnectTables {}
}
