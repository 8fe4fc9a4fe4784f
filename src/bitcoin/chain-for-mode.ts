import type { Mode } from '../platform/scope.js';
import { EsploraChainSource, type ChainSource } from './chain/index.js';
import { buildSandboxChain } from './sandbox/sandbox-chain.js';

/** Where each mode reads Bitcoin chain data. */
export interface ChainSources {
  /** Undefined when the mode has no chain data configured (live mode without ESPLORA_URL). */
  forMode(mode: Mode): ChainSource | undefined;
}

/**
 * Test mode reads the deterministic sandbox chain (built on first use, ~0.3 s); live mode reads
 * mainnet from an Esplora-compatible server (self-hosted electrs or mempool.space) when configured.
 */
export function createChainSources(options: { esploraUrl: string | undefined; test?: ChainSource; live?: ChainSource }): ChainSources {
  let test = options.test;
  const live =
    options.live ?? (options.esploraUrl ? new EsploraChainSource({ baseUrl: options.esploraUrl, network: 'mainnet' }) : undefined);
  return {
    forMode(mode) {
      if (mode === 'live') return live;
      test ??= buildSandboxChain();
      return test;
    },
  };
}
