import type { ExchangeRow } from './row.js';

export const bitstamp: ExchangeRow = {
  id: 'bitstamp',
  name: 'Bitstamp',
  credentials: ['apiKey', 'secret'],
  steps: [
    'Sign in at bitstamp.net and open Settings → API access → New API key.',
    'Tick only "Account balance" and "User transactions"; leave every trading, deposit and withdrawal permission unticked.',
    "Bitstamp does not let us check a key's permissions, so please make sure it is read-only.",
    'Activate the key from the e-mail Bitstamp sends, then copy the API key and the secret.',
  ],
  // `user_transactions`, oldest first, 1,000 a page, each page from the newest id read
  // (`since_id`, as Bitstamp says to page a long history: its offsets stop at 200,000 and its
  // time bounds at 30 days back), so every page is a checkpoint and a refresh reads only what is
  // newer than the last id read. Each entry is a row with an amount column per currency, read by
  // us (ccxt reads a trade as one leg, in 4.5 with no currency, a deposit as an outflow, and
  // finds no currency for an amount under one unit). Row types as Bitstamp documents them; the
  // others (staking, settlements…) are transfers.
  history: {
    kind: 'rows-by-id',
    method: 'privatePostUserTransactions',
    param: 'since_id',
    pageSize: 1000,
    params: { sort: 'asc' },
    types: {
      '0': { type: 'deposit', label: 'deposit' },
      '1': { type: 'withdrawal', label: 'withdrawal' },
      '2': { type: 'trade', label: 'market trade' },
      '14': { type: 'transfer', label: 'sub account transfer' },
    },
  },
  // Its rate limit is response code 400.002, which ccxt does not read (it matches only the
  // `reason` text): a plain exchange error until named here.
  errorCodes: { '400.002': 'RateLimitExceeded' },
  errorCodeField: 'response_code',
};
