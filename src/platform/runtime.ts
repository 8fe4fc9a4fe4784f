import type { Config } from './config/config.js';
import { systemClock, type Clock } from './clock.js';
import { resolveMasterKey } from './crypto/master-key.js';
import { createSecretBox, type SecretBox } from './crypto/secret-box.js';
import { createChainSources, type ChainSources } from '../bitcoin/chain-for-mode.js';
import { createProviderRegistry } from '../connect/providers/registry.js';
import { openDatabase, type DatabaseHandle } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import type { AppContext } from './context.js';

export interface Runtime {
  ctx: AppContext;
  database: DatabaseHandle;
  close(): Promise<void>;
}

/**
 * Opens the database, brings its schema up to date and assembles the context every entry point
 * (server, worker, CLI) shares.
 */
export async function openRuntime(config: Config, options: { clock?: Clock } = {}): Promise<Runtime> {
  const database = openDatabase(config.database);
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.destroy();
    throw error;
  }
  const ctx = createAppContext({ config, database, clock: options.clock ?? systemClock, secretBox: createSecretBox(resolveMasterKey(config)) });
  return { ctx, database, close: () => database.destroy() };
}

/** Assembles the context from its parts; chain sources and providers follow from the config. */
export function createAppContext(parts: {
  config: Config;
  database: Pick<DatabaseHandle, 'db' | 'capabilities'>;
  clock: Clock;
  secretBox: SecretBox;
  chains?: ChainSources;
  extraProviders?: Parameters<typeof createProviderRegistry>[0]['extra'];
}): AppContext {
  const chains = parts.chains ?? createChainSources({ esploraUrl: parts.config.esploraUrl });
  return {
    config: parts.config,
    db: parts.database.db,
    capabilities: parts.database.capabilities,
    clock: parts.clock,
    secretBox: parts.secretBox,
    chains,
    providers: createProviderRegistry({ chains, ...(parts.extraProviders ? { extra: parts.extraProviders } : {}) }),
  };
}
