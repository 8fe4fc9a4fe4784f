import { onePage, type Provider } from '../../src/connect/providers/provider.js';

/** An exchange that exists only to make the provider list long; it refuses every login. */
export function fakeExchange(id: string, name: string): Provider {
  return {
    id,
    type: 'exchange',
    name,
    description: `${name} test double for the provider search.`,
    credentialFields: [{ name: 'api_key', label: 'API key', type: 'text' }],
    connect: async () => ({ ok: false, reason: 'invalid_credentials', message: 'Not a real exchange.' }),
    fetchBalances: async () => [],
    fetchTransactions: () => onePage(async () => []),
    fetchAddresses: async () => [],
  };
}

/** Six of them: with the sandbox exchange and the wallet, enough for the search box to show. */
export const EXTRA_EXCHANGES = ['Bitstamp', 'Kraken', 'Coinbase', 'Bitfinex', 'Gemini', 'Bitpanda'].map((name) =>
  fakeExchange(name.toLowerCase(), name),
);

/** An exchange that accepts any login and yields one account with no data (e.g. to make live-mode accounts in tests). */
export function acceptingExchange(id: string, name: string): Provider {
  return {
    ...fakeExchange(id, name),
    description: `${name} test double that accepts every login.`,
    connect: async (input) => ({
      ok: true,
      accounts: [{ displayName: `${name} (${input.api_key ?? 'any'})`, connection: { api_key: input.api_key ?? '' } }],
    }),
  };
}
