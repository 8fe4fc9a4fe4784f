import type { ValidatorFactory } from '@fastify/ajv-compiler';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyServerOptions,
} from 'fastify';
import { requestIdGenerator } from '../crypto/random.js';
import type { AppModule } from '../module.js';
import { registerPageSurface, surfacePrefix } from '../web/page-kit.js';
import { bearerAuth } from './auth.js';
import type { AppContext } from '../context.js';
import { handleError } from './error-handler.js';
import { ApiError, errorBody } from './errors.js';
import { healthRoutes } from './health.routes.js';
import { addIdempotencyHooks } from './idempotency.js';
import { acceptJsonBodiesOnly } from './json-body.js';
import { bufferedStdout, loggerOptions } from './logging.js';
import { registerOpenApi } from './openapi.js';
import { lazyRequestLogger } from './request-logger.js';
import { addRateLimitHooks } from './rate-limit.js';
import type { Scope } from '../scope.js';
import { ErrorResponse } from './schemas.js';
import { API_SECURITY_HEADERS } from './security-headers.js';
import { acceptDeclaredInputsOnly, buildValidatorCompiler } from './validation.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const round = (ms: number) => Math.round(ms * 10) / 10;

export interface BuildAppOptions {
  /** false silences request logs (tests); otherwise logs go to stdout as JSON lines. */
  logger?: boolean | { stream: NodeJS.WritableStream };
  /** Extra plugins registered inside `/v1` after the modules' routes, under the API's hooks (tests add probe routes). */
  apiPlugins?: FastifyPluginAsync[];
}

/**
 * Assembles the HTTP application: third-party plugins, then our platform pieces, then what the
 * modules contribute — public routes, page surfaces (each wrapped in the page kit) and API routes
 * (inside `/v1`, after authentication, rate limits and idempotency). Returns it not yet
 * listening, so tests can inject requests or add routes before `ready()`.
 */
export async function buildApp(ctx: AppContext, modules: readonly AppModule[], options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const logger: FastifyServerOptions['logger'] =
    options.logger === false
      ? false
      : ({
          ...loggerOptions(ctx.config.logLevel),
          stream: typeof options.logger === 'object' ? options.logger.stream : bufferedStdout().stream,
        } as FastifyServerOptions['logger']);
  const app = Fastify({
    logger,
    bodyLimit: BODY_LIMIT_BYTES,
    // A hop count is valid at run time though Fastify's typings only list the other forms.
    trustProxy: ctx.config.trustProxy as boolean | string[],
    genReqId: requestIdGenerator(),
    requestIdHeader: false,
    // One access-log line per request at most (below), instead of Fastify's two ("incoming", "completed").
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger,
    // Fastify's typing of validator factories is tied to its own Ajv wrapper; ours has the same runtime contract.
    schemaController: { compilersFactory: { buildValidator: buildValidatorCompiler as unknown as ValidatorFactory } },
    routerOptions: { ignoreTrailingSlash: true },
    // `/api/v1/...` is an alias of `/v1/...` (some spec examples carry the /api prefix).
    rewriteUrl: (request) => {
      const url = request.url ?? '/';
      return url === '/api/v1' || url.startsWith('/api/v1/') || url.startsWith('/api/v1?') ? url.slice(4) : url;
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('ctx', ctx);
  const knownRoutes: { method: string; pattern: RegExp }[] = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(`^${route.url.replace(/\/+$/, '').replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*')}/?$`);
    for (const method of [route.method].flat()) knownRoutes.push({ method, pattern });
  });
  app.setErrorHandler(handleError);
  app.addSchema(ErrorResponse);
  // Access log: requests that failed at info, successful ones at debug. A line costs as much as a
  // small API request, so a busy server does not write one per success unless asked to
  // (LOG_LEVEL=debug); proxies in front of it usually keep access logs anyway.
  // Logged as the response is sent (onSend): an onResponse hook would make Fastify listen for every
  // response's 'finish' event, which measurably slows every request.
  const logSuccesses = ctx.config.logLevel === 'debug' || ctx.config.logLevel === 'trace';
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode >= 400) request.log.info({ req: request, status: reply.statusCode, ms: round(reply.elapsedTime) }, 'request');
    else if (logSuccesses) request.log.debug({ req: request, status: reply.statusCode, ms: round(reply.elapsedTime) }, 'request');
    done(null, payload);
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(API_SECURITY_HEADERS);
    reply.header('request-id', request.id);
    done();
  });

  await registerOpenApi(app, modules.flatMap((m) => m.openApiTags ?? []));
  await app.register(healthRoutes);
  for (const plugin of modules.flatMap((m) => m.publicRoutes ?? [])) await app.register(plugin);
  // Pages (HTML, forms, CSRF) outside the JSON API, each surface under its own prefix.
  const surfaces = modules.flatMap((m) => m.pages ?? []);
  const prefixes = surfaces.map((s) => surfacePrefix(s.baseUrl(ctx.config)));
  const clash = prefixes.findIndex((p, i) => prefixes.indexOf(p) !== i);
  if (clash !== -1) throw new Error(`two page surfaces are mounted at "${prefixes[clash] || '/'}"; give them different base URLs`);
  for (const surface of surfaces) await registerPageSurface(app, surface);

  await app.register(
    async (api) => {
      acceptJsonBodiesOnly(api);
      // Declared up front so every request object has the same shape (V8 keeps it fast).
      api.decorateRequest('scope', null as unknown as Scope);
      api.addHook('onRequest', bearerAuth(ctx));
      // Both are per API key (client and mode), so they come after authentication.
      addRateLimitHooks(api, ctx);
      addIdempotencyHooks(api, ctx);
      // A request carries only the body and query parameters its route declares.
      api.addHook('onRoute', acceptDeclaredInputsOnly);
      for (const plugin of modules.flatMap((m) => m.apiRoutes ?? [])) await api.register(plugin);
      for (const plugin of options.apiPlugins ?? []) await api.register(plugin);
    },
    { prefix: '/v1' },
  );

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = [...new Set(knownRoutes.filter((r) => r.pattern.test(path)).map((r) => r.method))].filter(
      (method) => method !== 'HEAD',
    );
    const error = allowed.length > 0 ? new ApiError('method_not_allowed') : new ApiError('route_not_found', {
      message: `Unrecognised request URL (${request.method} ${path}).`,
    });
    if (allowed.length > 0) reply.header('Allow', allowed.join(', '));
    return reply.status(error.status).send(errorBody(error, request.id));
  });

  return app;
}
