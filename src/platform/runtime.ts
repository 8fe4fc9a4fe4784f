import type { Config } from './config/config.js';
import { systemClock, type Clock } from './clock.js';
import { resolveMasterKeys } from './crypto/master-key.js';
import { openSecretBox, type SecretBox } from './crypto/secret-box.js';
import { openDatabase, type DatabaseHandle } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { createMailer } from './mail/create-mailer.js';
import { Metrics } from './metrics/metrics.js';
import type { AppContext } from './context.js';
import type { AppModule } from './module.js';

export interface Runtime {
  ctx: AppContext;
  database: DatabaseHandle;
  close(): Promise<void>;
}

/** What a context is built from: the platform's parts, and any parts given up front (test seams). */
export interface ContextParts {
  config: Config;
  /** `connections` feeds the pool metrics; without it they stay empty. */
  database: Pick<DatabaseHandle, 'db' | 'capabilities'> & Partial<Pick<DatabaseHandle, 'connections'>>;
  clock: Clock;
  secretBox: SecretBox;
  /** Parts that modules would otherwise build (a test's chain or providers, a test network). */
  given?: Partial<AppContext>;
}

/**
 * Assembles the context: the platform's parts, then each module's (in module order, so a module
 * can build on the parts of modules before it). A part in `given` is kept as given.
 *
 * The metrics registry holds every module's declared metrics. The mailer is built here from the
 * configuration (SMTP_URL, or the outbox in this database) unless one is given; whoever made the
 * context closes it (`Runtime.close`, the test app).
 */
export function createAppContext(modules: readonly AppModule[], parts: ContextParts): AppContext {
  const given = parts.given ?? {};
  const { db, connections } = parts.database;
  const metrics = new Metrics(
    modules.flatMap((m) => m.metrics ?? []),
    { db, clock: parts.clock, logLevel: parts.config.logLevel, ...(connections ? { connections } : {}) },
  );
  const ctx = {
    config: parts.config,
    db,
    capabilities: parts.database.capabilities,
    clock: parts.clock,
    secretBox: parts.secretBox,
    metrics,
    mailer: given.mailer ?? createMailer(parts.config, { db, clock: parts.clock, metrics }),
    ...given,
  } as AppContext;
  for (const module of modules) {
    for (const [name, part] of Object.entries(module.context?.(ctx) ?? {})) {
      if (!Object.hasOwn(given, name)) (ctx as unknown as Record<string, unknown>)[name] = part;
    }
  }
  if (typeof ctx.apiKeys !== 'function') throw new Error('no module provides API key authentication (ctx.apiKeys)');
  return ctx;
}

export interface RuntimeOptions {
  clock?: Clock;
  /** Context parts given up front (test seams, see ContextParts); production gives none. */
  given?: Partial<AppContext>;
}

/**
 * Opens the database, brings its schema up to date and assembles the context every entry point
 * (server, worker, CLI) shares.
 */
export async function openRuntime(config: Config, modules: readonly AppModule[], options: RuntimeOptions = {}): Promise<Runtime> {
  const database = openDatabase(config.database);
  const clock = options.clock ?? systemClock;
  let secretBox: SecretBox;
  try {
    await migrateToLatest(database);
    // The data keys are unwrapped here, once: a process without the master key that wraps them
    // stops now, saying so, instead of failing on its first secret.
    secretBox = await openSecretBox(database.db, resolveMasterKeys(config), clock);
  } catch (error) {
    await database.destroy();
    throw error;
  }
  const ctx = createAppContext(modules, { config, database, clock, secretBox, ...(options.given ? { given: options.given } : {}) });
  return {
    ctx,
    database,
    async close() {
      await ctx.mailer.close();
      await database.destroy();
    },
  };
}
