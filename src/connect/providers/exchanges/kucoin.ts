import { kucoinKeyPermissions } from '../key-permissions.js';
import { DAY_MS, type ExchangeRow } from './row.js';

export const kucoin: ExchangeRow = {
  id: 'kucoin',
  name: 'KuCoin',
  credentials: ['apiKey', 'secret', 'password'],
  steps: [
    'Sign in at kucoin.com and open Account → API Management → Create API.',
    'Tick only "General" (read-only); leave Spot, Margin, Futures, Transfer and Withdrawal off. Set a passphrase.',
    'Copy the API key, the secret and the passphrase you chose.',
  ],
  keyPermissions: kucoinKeyPermissions,
  // KuCoin keeps a classic account's assets in its Main account (deposits, withdrawals) and its
  // Trade account, or, once moved to high-frequency trading, its Trade HF account. The account
  // ledger (GET /api/v1/accounts/ledgers) lists Main and Trade entries, 500 a call, one day a
  // call, for one year; the HF ledger (GET /api/v1/hf/accounts/ledgers) lists Trade HF entries,
  // 200 a call before `lastId`, three days back only. Both give `amount` with the fee in it (the
  // balance change). ccxt reads whichever one the account is on (it asks at market load): the
  // books name each (`hf`) so that both are read. Margin accounts are not read.
  history: [
    {
      name: 'main',
      plainRefs: true,
      balances: { type: 'main' },
      // A day a call (the window a hair short of 24 hours, KuCoin's limit), a year kept (the
      // horizon a day short, so a walk of minutes never asks past it).
      history: { kind: 'ledger-until', pageSize: 500, params: { hf: false }, window: { span: DAY_MS - 1, horizon: 364 * DAY_MS } },
      feeIncluded: true,
      formerCursor: true,
      // ccxt knows the older names (Deposit, Withdrawal, Trade_Exchange), not all the codes the
      // ledger answers now.
      types: {
        DEPOSIT: { type: 'deposit', label: 'deposit' },
        WITHDRAW: { type: 'withdrawal', label: 'withdrawal' },
        Exchange: { type: 'trade', label: 'trade' },
      },
      unlistedTypes: 'ccxt',
    },
    { name: 'trade', balances: { type: 'spot', hf: false } },
    {
      name: 'hf',
      onlyWhen: { method: 'privateGetHfAccountsOpened', field: 'data' },
      balances: { type: 'spot', hf: true },
      history: { kind: 'ledger-before-id', method: 'privateGetHfAccountsLedgers', param: 'lastId', pageSize: 200 },
      feeIncluded: true,
    },
  ],
  // A held asset's addresses on every network it has one on (GET /api/v2/deposit-addresses): the
  // single lookup (v1) fails for an asset never deposited instead of answering none.
  depositAddresses: { kind: 'lookup', everyNetwork: true },
  // Its rate limits answer codes ccxt has no class for: HTTP 429 with 429000 (a resource pool's
  // quota used up) and 200002 (one endpoint's limit).
  errorCodes: { '429000': 'RateLimitExceeded', '200002': 'RateLimitExceeded' },
  // A unified trading account (UTA) keeps its assets elsewhere; ccxt would read it through other
  // calls, where our books would count one account twice. It is refused at connection, and
  // ccxt is told the account is classic (`uta: false`), so that a later change of mode fails
  // the refresh instead of reading it wrongly.
  refuseAccount: {
    method: 'utaPrivateGetAccountMode',
    reason: (answer) =>
      (answer as { data?: { selfAccountMode?: unknown } } | undefined)?.data?.selfAccountMode === 'UNIFIED'
        ? 'This KuCoin account uses the Unified Trading Account, which we cannot read yet. Connect a classic KuCoin account, or another exchange.'
        : undefined,
  },
  // Spot markets only (contract markets are another host's calls on every market load), and no
  // tickers: ccxt reads fees off them, which balances and ledgers do not need.
  ccxtOptions: { options: { uta: false, fetchMarkets: { types: ['spot'], fetchTickersFees: false } } },
};
