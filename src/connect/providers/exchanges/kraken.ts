import type { ExchangeRow } from './row.js';

export const kraken: ExchangeRow = {
  id: 'kraken',
  name: 'Kraken',
  credentials: ['apiKey', 'secret'],
  steps: [
    'Sign in at kraken.com and open Settings → API → Create API key.',
    'Tick only "Query Funds" and "Query Ledger Entries" ("Deposit Funds" too if you want to share deposit addresses: it cannot move money out). Leave Withdraw Funds and every Orders and Trades permission unticked.',
    "Kraken does not let us check a key's permissions, so please make sure it is read-only.",
    'Copy the API key and the private key.',
  ],
  history: { kind: 'ledger-offset', param: 'ofs', pageSize: 50, end: 'end' },
};
