import { createChainSources, type ChainSources } from './chain-for-mode.js';
import { defineModule } from '../platform/module.js';

declare module '../platform/context.js' {
  interface AppContext {
    /** Bitcoin chain data per mode (sandbox chain in test mode, Esplora in live mode). */
    chains: ChainSources;
  }
}

/** Bitcoin: chain data for the other modules (`ctx.chains`). Its commands (`verify-message`, `sandbox`) are in src/main/commands.ts. */
export const bitcoinModule = defineModule({
  name: 'bitcoin',
  context: (ctx) => ({ chains: createChainSources({ esploraUrl: ctx.config.esploraUrl }) }),
});
