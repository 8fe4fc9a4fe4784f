import type { TSchema } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from './context.js';
import type { EventDeclaration } from './events/event-catalog.js';
import type { JobDefinition } from './jobs/catalog.js';
import type { MetricDefinition } from './metrics/metric.js';
import type { Config } from './config/config.js';
import type { PageSurface } from './web/page-surface.js';

/** A group of operations in the OpenAPI document (and the `/docs` page). */
export interface OpenApiTag {
  name: string;
  description: string;
}

/**
 * What a domain contributes to the service. The composition root (`src/main/modules.ts`) lists
 * every module once; the server, the worker, the CLI and the test app are all assembled from that
 * list, so adding a domain touches its folder, that list, a migration and the error table.
 */
export interface AppModule {
  /** Short name, unique among modules (`connect`, `verify`). */
  name: string;
  /**
   * This module's parts of the context (chain sources, providers, later a mailer or a claim
   * signer). Called once per context, in module order, so it may read the parts of modules listed
   * before it. A part the caller already gave (a test seam) is kept, not replaced.
   */
  context?(ctx: AppContext): Partial<AppContext>;
  /** JSON API routes, registered inside `/v1` after authentication, rate limits and idempotency. */
  apiRoutes?: readonly FastifyPluginAsync[];
  /** Routes anyone may call without an API key (JWKS, public verification), at the root. */
  publicRoutes?: readonly FastifyPluginAsync[];
  /** Server-rendered pages, each surface under its own prefix and wrapped in the page kit. */
  pages?: readonly PageSurface[];
  /** Background job types the worker runs. */
  jobs?: readonly JobDefinition<TSchema>[];
  /**
   * The event types it records (`recordEvent`), each with the schema of its `data.object`: the
   * OpenAPI document's webhooks and `Event` union are made from them. Every type in `EVENT_TYPES`
   * is declared by exactly one module.
   */
  events?: readonly EventDeclaration[];
  /** Metrics its code records through `ctx.metrics` (or that are read at every scrape): made in every context's registry. */
  metrics?: readonly MetricDefinition[];
  /** Tags its API routes use, in the order `/docs` shows them. */
  openApiTags?: readonly OpenApiTag[];
  /**
   * Work when `ownproof serve` starts, before it listens (e.g. the first start's bootstrap client).
   * Runs under a lock shared by every process starting on the same database. Returns lines for
   * the start-up banner.
   */
  onServe?(ctx: AppContext, server: { baseUrl: string }): Promise<string[]>;
}

/** Declares a module; the identity function gives the object literal its type. */
export function defineModule(module: AppModule): AppModule {
  return module;
}

/**
 * What one subdomain folder of a module contributes (verify's `claims/`, `access/`, `statements/`),
 * declared beside its code; the module's own file joins its parts with `composeModule`.
 */
export type ModulePart = Omit<AppModule, 'name' | 'onServe'>;

/** A module made of parts: each list is the parts' lists joined in part order, and the context is every part's. */
export function composeModule(module: Pick<AppModule, 'name' | 'onServe'>, parts: readonly ModulePart[]): AppModule {
  const join = <T>(pick: (part: ModulePart) => readonly T[] | undefined): T[] => parts.flatMap((part) => pick(part) ?? []);
  const contexts = join((part) => (part.context ? [part.context] : []));
  return defineModule({
    ...module,
    ...(contexts.length > 0 ? { context: (ctx) => Object.assign({}, ...contexts.map((context) => context(ctx))) } : {}),
    apiRoutes: join((part) => part.apiRoutes),
    publicRoutes: join((part) => part.publicRoutes),
    pages: join((part) => part.pages),
    jobs: join((part) => part.jobs),
    events: join((part) => part.events),
    metrics: join((part) => part.metrics),
    openApiTags: join((part) => part.openApiTags),
  });
}

/** The page surfaces of these modules that this configuration serves (`PageSurface.servedIn`), in module order. */
export function servedSurfaces(modules: readonly AppModule[], config: Config): PageSurface[] {
  return modules.flatMap((m) => m.pages ?? []).filter((surface) => surface.servedIn?.(config) ?? true);
}
