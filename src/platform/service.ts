import type { FastifyInstance } from 'fastify';
import type { Config } from './config/config.js';
import type { AppContext } from './context.js';
import { buildApp, type BuildAppOptions } from './http/app.js';
import { JobCatalog } from './jobs/catalog.js';
import type { AppModule } from './module.js';
import { platformModule } from './platform.module.js';
import { createAppContext, openRuntime, type ContextParts, type Runtime, type RuntimeOptions } from './runtime.js';

/** The service assembled from a list of modules: what the server, the worker, the CLI and tests start. */
export interface Service {
  readonly modules: readonly AppModule[];
  /** Opens the configured database (migrated) and builds the context. */
  openRuntime(config: Config, options?: RuntimeOptions): Promise<Runtime>;
  /** Builds a context on a database the caller opened (tests, benchmarks). */
  createContext(parts: ContextParts): AppContext;
  /** The HTTP application (API, public routes, page surfaces), not yet listening. */
  buildApp(ctx: AppContext, options?: BuildAppOptions): Promise<FastifyInstance>;
  /** Every job type of every module: what a worker runs. */
  jobCatalog(): JobCatalog;
  /** Runs every module's start-up work for `ownproof serve`; returns the banner lines they add. */
  onServe(ctx: AppContext, server: { baseUrl: string }): Promise<string[]>;
}

/** Binds the platform's assembly functions to the platform's module followed by the domains' `domains`. */
export function composeService(domains: readonly AppModule[]): Service {
  const modules = [platformModule, ...domains];
  const names = modules.map((m) => m.name);
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated !== undefined) throw new Error(`module ${repeated} is listed twice`);
  return {
    modules,
    openRuntime: (config, options) => openRuntime(config, modules, options),
    createContext: (parts) => createAppContext(modules, parts),
    buildApp: (ctx, options) => buildApp(ctx, modules, options),
    jobCatalog: () => new JobCatalog(modules.flatMap((m) => m.jobs ?? [])),
    async onServe(ctx, server) {
      const lines: string[] = [];
      for (const module of modules) lines.push(...((await module.onServe?.(ctx, server)) ?? []));
      return lines;
    },
  };
}
