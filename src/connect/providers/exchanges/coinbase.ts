import { coinbaseKeyPermissions } from '../key-permissions.js';
import type { ExchangeRow } from './row.js';

export const coinbase: ExchangeRow = {
  id: 'coinbase',
  name: 'Coinbase',
  credentials: ['apiKey', 'secret'],
  steps: [
    'Sign in at coinbase.com and open Settings → API (Coinbase Developer Platform: API keys).',
    'Create an Advanced Trade (CDP) API key with the "View" permission only; leave Trade and Transfer unticked.',
    'Copy the key name (organizations/…/apiKeys/…) as the API key and the private key (-----BEGIN EC PRIVATE KEY-----…) as the secret.',
  ],
  // The CDP secret is a multi-line PEM private key: a password input would drop its line breaks.
  fields: {
    secret: {
      label: 'API private key',
      type: 'textarea',
      hint: 'The whole key, from -----BEGIN EC PRIVATE KEY----- to -----END EC PRIVATE KEY-----.',
    },
  },
  keyPermissions: coinbaseKeyPermissions,
  // v2 wallet transactions: 100 a page at most, the next after `starting_after`. A transaction's
  // `amount` is the wallet's balance change: a send's network fee (`network.transaction_fee`,
  // which ccxt hands over as the entry's fee) is part of it, so the book says `feeIncluded`.
  history: [
    { name: 'wallet', balances: {}, history: { kind: 'ledger-per-account', param: 'starting_after', pageSize: 100 }, feeIncluded: true },
  ],
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
  balancePages: {
    param: 'cursor',
    next: (info) => (info.has_next === true && typeof info.cursor === 'string' && info.cursor !== '' ? info.cursor : undefined),
  },
  // ccxt's fetchDepositAddress creates a new address (a POST); listing a wallet's addresses
  // (GET /v2/accounts/{id}/addresses) is a read. Coinbase answers the memo or tag at the top
  // level (`destination_tag`, as captured), where ccxt does not look (it reads `address_info`).
  depositAddresses: { kind: 'wallet-list', method: 'v2PrivateGetAccountsAccountIdAddresses', tag: 'destination_tag' },
};
