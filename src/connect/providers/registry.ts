import type { ChainSources } from '../../bitcoin/chain-for-mode.js';
import type { Mode } from '../../platform/scope.js';
import { bitcoinWalletProvider } from './bitcoin-wallet.js';
import type { Provider } from './provider.js';
import { sandboxExchange } from './sandbox-exchange.js';

/** The providers an account holder can choose from, per mode. */
export interface ProviderRegistry {
  list(mode: Mode): readonly Provider[];
  find(mode: Mode, id: string): Provider | undefined;
}

/**
 * Test mode: the sandbox exchange and the Bitcoin wallet on the sandbox chain. Live mode: real
 * exchanges (added with the live-exchange work) and the Bitcoin wallet on mainnet chain data.
 * `extra` lets tests add providers behind the same interface.
 */
export function createProviderRegistry(deps: { chains: ChainSources; extra?: Partial<Record<Mode, Provider[]>> }): ProviderRegistry {
  const byMode: Record<Mode, Provider[]> = {
    test: [sandboxExchange, bitcoinWalletProvider('test', () => deps.chains.forMode('test')), ...(deps.extra?.test ?? [])],
    live: [bitcoinWalletProvider('live', () => deps.chains.forMode('live')), ...(deps.extra?.live ?? [])],
  };
  return {
    list: (mode) => byMode[mode],
    find: (mode, id) => byMode[mode].find((p) => p.id === id),
  };
}
