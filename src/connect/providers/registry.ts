import type { ChainSources } from '../../bitcoin/chain-for-mode.js';
import type { Clock } from '../../platform/clock.js';
import { lazyModule } from '../../platform/lazy-module.js';
import type { Mode } from '../../platform/scope.js';
import { bitcoinWalletProvider } from './bitcoin-wallet.js';
import type { Ccxt } from './ccxt-errors.js';
import type { ExchangeThrottles } from './ccxt-instance.js';
import type { ExchangeCallLog } from './exchange-call-log.js';
import { ccxtProvider, type ExchangeOverrides } from './ccxt-provider.js';
import { EXCHANGES } from './exchanges.js';
import type { OAuthServer } from '../oauth/oauth-client.js';
import type { Provider } from './provider.js';
import { sandboxExchange } from './sandbox-exchange.js';

/** The providers an account holder can choose from, per mode. */
export interface ProviderRegistry {
  list(mode: Mode): readonly Provider[];
  find(mode: Mode, id: string): Provider | undefined;
}

/** ccxt is loaded on first use, once per process (see ccxt-provider.ts); the prices module loads it through this too. */
export const loadCcxt: () => Promise<Ccxt> = lazyModule(() => import('ccxt'));

/**
 * Test mode: the sandbox exchange and the Bitcoin wallet on the sandbox chain. Live mode: the
 * exchanges of the table (exchanges.ts) through ccxt, and the Bitcoin wallet on mainnet chain data.
 * `extra` lets tests add providers behind the same interface; `exchangeOverrides` and
 * `oauthServerOverrides` (by exchange id) let them point ccxt and the OAuth sign-in at local fakes.
 */
export function createProviderRegistry(deps: {
  chains: ChainSources;
  /** Dates a wallet's unconfirmed transactions (the chain gives them no time). */
  clock: Clock;
  /** ccxt's throttle per exchange, shared with every other caller of the exchange in this process. */
  throttles: ExchangeThrottles;
  /** The calls exchanges count per account, logged for every process (exchange-call-log.ts). */
  calls: ExchangeCallLog;
  extra?: Partial<Record<Mode, Provider[]>>;
  exchangeOverrides?: Partial<Record<string, ExchangeOverrides>>;
  oauthServerOverrides?: Partial<Record<string, Partial<OAuthServer>>>;
}): ProviderRegistry {
  const exchanges = EXCHANGES.map((row) => {
    const overrides = deps.exchangeOverrides?.[row.id];
    const oauthServer = deps.oauthServerOverrides?.[row.id];
    return ccxtProvider(row, {
      load: loadCcxt,
      throttles: deps.throttles,
      calls: deps.calls,
      ...(overrides ? { overrides } : {}),
      ...(oauthServer ? { oauthServer } : {}),
    });
  });
  const byMode: Record<Mode, Provider[]> = {
    test: [sandboxExchange, bitcoinWalletProvider('test', () => deps.chains.forMode('test'), deps.clock), ...(deps.extra?.test ?? [])],
    live: [...exchanges, bitcoinWalletProvider('live', () => deps.chains.forMode('live'), deps.clock), ...(deps.extra?.live ?? [])],
  };
  return {
    list: (mode) => byMode[mode],
    find: (mode, id) => byMode[mode].find((p) => p.id === id),
  };
}
