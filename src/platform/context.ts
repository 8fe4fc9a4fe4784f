import type { ChainSources } from '../bitcoin/chain-for-mode.js';
import type { ProviderRegistry } from '../connect/providers/registry.js';
import type { Config } from './config/config.js';
import type { Clock } from './clock.js';
import type { SecretBox } from './crypto/secret-box.js';
import type { Db, DbCapabilities } from './db/database.js';

/**
 * What services, request handlers and jobs need from the outside world (decorated onto Fastify as `ctx`).
 * Services take the parts they use as plain arguments, so jobs and the CLI call them the same way.
 */
export interface AppContext {
  config: Config;
  db: Db;
  capabilities: DbCapabilities;
  clock: Clock;
  secretBox: SecretBox;
  /** Bitcoin chain data per mode (sandbox chain in test mode, Esplora in live mode). */
  chains: ChainSources;
  /** Exchanges and wallets an account holder can connect, per mode. */
  providers: ProviderRegistry;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
