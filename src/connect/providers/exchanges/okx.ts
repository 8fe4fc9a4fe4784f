import { okxKeyPermissions } from '../key-permissions.js';
import type { ExchangeRow } from './row.js';

export const okx: ExchangeRow = {
  id: 'okx',
  name: 'OKX',
  credentials: ['apiKey', 'secret', 'password'],
  steps: [
    'Sign in at okx.com and open Profile → API keys → Create API key.',
    'Choose the "Read" permission only; leave Trade and Withdraw unticked. Set a passphrase.',
    'Copy the API key, the secret key and the passphrase you chose.',
  ],
  keyPermissions: okxKeyPermissions,
  // Two books, walked by bill id (`after`: the bills before it), 100 a call: the trading
  // account's bills (the archive keeps three months; OKX serves nothing older) and the funding
  // account's (every bill since February 2021, `pagingType` 2: paged by bill id).
  history: [
    {
      name: 'trading',
      plainRefs: true,
      balances: { type: 'trading' },
      history: { kind: 'ledger-before-id', method: 'privateGetAccountBillsArchive', param: 'after', pageSize: 100 },
      feeIncluded: true,
    },
    {
      name: 'funding',
      balances: { type: 'funding' },
      history: {
        kind: 'ledger-before-id',
        method: 'privateGetAssetBillsHistory',
        param: 'after',
        pageSize: 100,
        params: { pagingType: '2' },
      },
      types: {
        '1': { type: 'deposit', label: 'deposit' },
        '2': { type: 'withdrawal', label: 'withdrawal' },
        '13': { type: 'transfer', label: 'canceled withdrawal' },
        '130': { type: 'transfer', label: 'from the trading account' },
        '131': { type: 'transfer', label: 'to the trading account' },
      },
    },
  ],
  // Spot markets only: derivatives are four more calls on every market load, and no balance
  // or bill needs them.
  ccxtOptions: { options: { fetchMarkets: { types: ['spot'] } } },
};
