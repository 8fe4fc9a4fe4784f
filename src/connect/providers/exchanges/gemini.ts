import { geminiKeyPermissions } from '../key-permissions.js';
import type { ExchangeRow } from './row.js';

export const gemini: ExchangeRow = {
  id: 'gemini',
  name: 'Gemini',
  credentials: ['apiKey', 'secret'],
  steps: [
    'Sign in at gemini.com and open Settings → API → Create API key (scope: Primary account).',
    'Choose the "Auditor" role only; not Trader or Fund Manager.',
    'Copy the API key and the API secret.',
  ],
  keyPermissions: geminiKeyPermissions,
  // `transfers` (50 a call) and `mytrades` (500 a call, per market) answer the oldest items from
  // `timestamp` on: the next page starts one millisecond after the newest read.
  history: {
    kind: 'transfers',
    paging: { param: 'timestamp', pageSize: 50, by: 'time' },
    trades: { param: 'timestamp', pageSize: 500, by: 'time' },
  },
  // Gemini lists deposit addresses per network (POST /v1/addresses/:network), and ccxt needs the
  // network named: each native coin's own (ccxt's codes for Gemini's networks). Tokens are left
  // out: which network a token is on comes from a currency list ccxt scrapes off Gemini's web
  // pages, not from the API.
  depositAddresses: {
    kind: 'lookup',
    networks: {
      BTC: 'BTC',
      ETH: 'ERC20',
      BCH: 'BCH',
      LTC: 'LTC',
      ZEC: 'ZEC',
      FIL: 'FIL',
      DOGE: 'DOGE',
      XTZ: 'XTZ',
      AVAX: 'AVAXX',
      SOL: 'SOL',
      ATOM: 'ATOM',
      DOT: 'DOT',
    },
  },
  // ccxt reports Gemini's `MissingRole` as an authentication failure; its last answer (kept
  // with this option) tells a role that may not list addresses from a key that stopped working.
  ccxtOptions: { enableLastJsonResponse: true },
};
