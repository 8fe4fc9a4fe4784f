import type { Config } from './config/config.js';
import { systemClock, type Clock } from './clock.js';
import { resolveMasterKey } from './crypto/master-key.js';
import { createSecretBox } from './crypto/secret-box.js';
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
  const ctx: AppContext = {
    config,
    db: database.db,
    capabilities: database.capabilities,
    clock: options.clock ?? systemClock,
    secretBox: createSecretBox(resolveMasterKey(config)),
  };
  return { ctx, database, close: () => database.destroy() };
}
