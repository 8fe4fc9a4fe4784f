import { bitfinexKeyPermissions } from '../key-permissions.js';
import type { ExchangeRow } from './row.js';

export const bitfinex: ExchangeRow = {
  id: 'bitfinex',
  name: 'Bitfinex',
  credentials: ['apiKey', 'secret'],
  steps: [
    'Sign in at bitfinex.com and open Account → API keys → Create new key.',
    'Keep only the "Read" permissions; switch off every "Write" permission (orders, margin, funding, wallets, withdrawals).',
    'Copy the API key and the API key secret.',
  ],
  keyPermissions: bitfinexKeyPermissions,
  // Three wallets, each with its balances (ccxt reads one wallet type a call, the exchange
  // wallet unless told), and one ledger for all of them (`auth/r/ledgers/hist`, 2,500 entries a
  // call, newest first, `end` read as inclusive): walked once, with the first wallet. A move between
  // wallets is an entry in each.
  history: [
    { name: 'exchange', balances: {}, history: { kind: 'ledger-until', pageSize: 2500 } },
    { name: 'margin', balances: { type: 'margin' } },
    { name: 'funding', balances: { type: 'funding' } },
  ],
  // ccxt's lookup is `auth/w/deposit/address`, a write endpoint that generates an address where
  // none exists; the read listing (`auth/r/deposit/address/all`) answers a memo in place of the
  // address for some currencies, with nothing to tell the two apart.
  depositAddresses: { kind: 'none' },
  // Its documented rate limit, `{"error": "ERR_RATE_LIMIT"}`, is no code ccxt has a class for.
  errorCodes: { ERR_RATE_LIMIT: 'RateLimitExceeded' },
};
