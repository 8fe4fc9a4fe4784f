import type { OAuthServer, OAuthTokens } from '../oauth/oauth-client.js';
import type { StoredConnection } from '../stored-connection.js';
/** A field the account holder fills in to authenticate with a provider. */
export interface CredentialField {
  name: string;
  label: string;
  type: 'text' | 'password' | 'textarea';
  /** Shown under the field; for wallets, which formats are accepted. */
  hint?: string;
  autocomplete?: string;
  /** A secret: never written back into the form after a failed attempt, whatever its input type. */
  sensitive?: boolean;
}

/** One account a successful connection yields, with what we must keep to read it later. */
export interface ConnectedAccount {
  displayName: string;
  /** Stored sealed with the master key; handed back to every data call. */
  connection: StoredConnection;
}

export type ConnectOutcome =
  | { ok: true; accounts: ConnectedAccount[] }
  | { ok: false; reason: 'invalid_credentials' | 'provider_unavailable' | 'invalid_input'; message: string; field?: string };

export interface ProviderBalance {
  asset: string;
  /** Decimal strings: providers' figures are kept exactly, never through floats. */
  available: string;
  total: string;
}

export interface ProviderTransaction {
  /** The provider's own id for it; refreshes upsert on it. */
  ref: string;
  type: 'deposit' | 'withdrawal' | 'trade' | 'fee' | 'transfer';
  asset: string;
  amount: string;
  fee: string | null;
  feeAsset: string | null;
  occurredAt: number;
  status: 'pending' | 'completed' | 'failed';
  txHash: string | null;
  description: string | null;
}

export interface ProviderAddress {
  address: string;
  asset: string;
  network: string;
  kind: 'deposit' | 'receive' | 'change';
  label: string | null;
}

/** One page of a provider's history. */
export interface TransactionPage {
  transactions: ProviderTransaction[];
  /**
   * Where a walk cut short after this page (a job timeout, a crash) resumes: stored with the page,
   * so a long first walk makes progress across attempts. Absent: nothing to resume from.
   */
  checkpoint?: string;
}

/**
 * A provider's history, page by page. The refresh stores each page as it arrives, so a long history
 * is never held whole; the generator's return value is the cursor the next refresh resumes from
 * (null: read everything again), stored with the refresh marked succeeded after the last page.
 */
export type TransactionPages = AsyncGenerator<TransactionPage, string | null, undefined>;

/** The history of a provider that reads it in one go (and has no cursor): a single page. */
export async function* onePage(read: () => Promise<ProviderTransaction[]>): TransactionPages {
  yield { transactions: await read() };
  return null;
}

/** A provider call that failed in a way the account's refresh state should tell the client. */
export class ProviderError extends Error {
  constructor(
    readonly code: 'provider_rate_limited' | 'provider_unavailable' | 'reauthentication_required' | 'provider_error',
    message: string,
    /** For rate limits: seconds until the provider lets us try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/**
 * Signing in at the provider instead of typing credentials: OAuth 2 with PKCE. Offered when the
 * operator registered an OAuth client for the provider (`OAUTH_<ID>_CLIENT_ID`); the connect
 * domain runs the protocol (src/connect/oauth/), the provider only knows its server and what the
 * tokens open.
 */
export interface ProviderOAuth {
  server: OAuthServer;
  /** Checks the tokens work (reads balances) and returns the accounts, as `connect` does for typed credentials. */
  connectWithTokens(tokens: OAuthTokens, options: { signal?: AbortSignal }): Promise<ConnectOutcome>;
}

/**
 * Something an account holder can connect: an exchange (credentials) or a self-custody wallet.
 * Implementations talk to the outside world (exchange APIs, chain data); everything else in the
 * connect domain only sees this interface, so the sandbox and live providers are interchangeable.
 */
export interface Provider {
  id: string;
  type: 'exchange' | 'wallet';
  name: string;
  /** One line for the provider list. */
  description: string;
  credentialFields: readonly CredentialField[];
  /** Help shown on the authentication page (for the sandbox: the documented test credentials). */
  instructions?: string;
  /** Numbered steps shown above the form (for exchanges: how to create a read-only API key). */
  steps?: readonly string[];
  /** "Sign in with …", when the provider has an OAuth server. Accounts connected so keep `{ oauth: OAuthTokens }` as their connection. */
  oauth?: ProviderOAuth;
  connect(input: Record<string, string>, options: { signal?: AbortSignal }): Promise<ConnectOutcome>;
  fetchBalances(connection: StoredConnection, options: { signal?: AbortSignal }): Promise<ProviderBalance[]>;
  /** `cursor`: what the last complete refresh returned (null the first time). */
  /** `balances`: the ones this refresh just fetched, when it did (the history may need the assets held). */
  fetchTransactions(
    connection: StoredConnection,
    options: { signal?: AbortSignal; cursor: string | null; balances?: readonly ProviderBalance[] },
  ): TransactionPages;
  /** `balances`: the ones just fetched in the same refresh, for a provider that finds addresses per asset held. */
  fetchAddresses(
    connection: StoredConnection,
    options: { signal?: AbortSignal; balances?: readonly ProviderBalance[] },
  ): Promise<ProviderAddress[]>;
}
