import { createChainSources, type ChainSources } from './chain-for-mode.js';
import { registerVerifyMessageCommand } from './message/cli.js';
import { registerSandboxCommands } from './sandbox/sandbox.cli.js';
import { defineModule } from '../platform/module.js';

declare module '../platform/context.js' {
  interface AppContext {
    /** Bitcoin chain data per mode (sandbox chain in test mode, Esplora in live mode). */
    chains: ChainSources;
  }
}

/** Bitcoin: chain data for the other modules (`ctx.chains`), `ownproof verify-message` and `ownproof sandbox`. */
export const bitcoinModule = defineModule({
  name: 'bitcoin',
  context: (ctx) => ({ chains: createChainSources({ esploraUrl: ctx.config.esploraUrl }) }),
  commands: (program, cli) => {
    registerVerifyMessageCommand(program, cli);
    registerSandboxCommands(program, cli);
  },
});
