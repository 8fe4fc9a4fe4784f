/** A field the account holder fills in to authenticate with a provider. */
export interface CredentialField {
  name: string;
  label: string;
  type: 'text' | 'password' | 'textarea';
  /** Shown under the field; for wallets, which formats are accepted. */
  hint?: string;
  autocomplete?: string;
}

/** One account a successful connection yields, with what we must keep to read it later. */
export interface ConnectedAccount {
  displayName: string;
  /** Stored sealed with the master key; handed back to every data call. */
  connection: Record<string, unknown>;
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
  connect(input: Record<string, string>, options: { signal?: AbortSignal }): Promise<ConnectOutcome>;
  fetchBalances(connection: Record<string, unknown>, options: { signal?: AbortSignal }): Promise<ProviderBalance[]>;
  fetchTransactions(connection: Record<string, unknown>, options: { signal?: AbortSignal }): Promise<ProviderTransaction[]>;
  fetchAddresses(connection: Record<string, unknown>, options: { signal?: AbortSignal }): Promise<ProviderAddress[]>;
}
