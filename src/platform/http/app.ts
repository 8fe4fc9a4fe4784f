import http from 'node:http';
import type { ValidatorFactory } from '@fastify/ajv-compiler';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { requestIdGenerator } from '../crypto/random.js';
import { eventCatalog } from '../events/event-catalog.js';
import { servedSurfaces, type AppModule } from '../module.js';
import { registerPageSurface, surfacePrefix, type MountedSurface } from '../web/page-kit.js';
import { bearerAuth } from './auth.js';
import type { AppContext } from '../context.js';
import { clientErrorHandler } from './client-error.js';
import { handleError } from './error-handler.js';
import { ApiError, errorBody } from './errors.js';
import { healthRoutes } from './health.routes.js';
import { httpRecorder } from './http.metrics.js';
import { addIdempotencyHooks } from './idempotency.js';
import { acceptJsonBodiesOnly } from './json-body.js';
import { bufferedStdout, loggerOptions } from './logging.js';
import { registerOpenApi } from './openapi.js';
import { lazyRequestLogger } from './request-logger.js';
import { refuseBodiesOfClosedConnections } from './incomplete-body.js';
import { addIpRateLimitHooks, addRateLimitHooks } from './rate-limit.js';
import { createRateLimitStore } from './rate-limit-store.js';
import type { Scope } from '../scope.js';
import { ErrorResponse } from './schemas.js';
import { API_SECURITY_HEADERS } from './security-headers.js';
import { buildSerializerCompiler } from './serialization.js';
import { refuseUnstorableText } from './storable-text.js';
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
  const logger =
    options.logger === false
      ? false
      : ({
          ...loggerOptions(ctx.config.logLevel),
          stream: typeof options.logger === 'object' ? options.logger.stream : bufferedStdout().stream,
        } as Exclude<FastifyServerOptions['logger'], undefined>);
  const nextRequestId = requestIdGenerator();
  const mountedSurfaces: MountedSurface[] = [];
  const app = Fastify({
    logger,
    bodyLimit: BODY_LIMIT_BYTES,
    // A hop count is valid at run time though Fastify's typings only list the other forms.
    trustProxy: ctx.config.trustProxy as boolean | string[],
    genReqId: nextRequestId,
    requestIdHeader: false,
    // Requests Node's parser refuses (broken framing, a head over 16 KiB, headers that stall)
    // never reach Fastify: they are answered on the socket.
    clientErrorHandler: clientErrorHandler(nextRequestId),
    // URLs the router turns away before any route or hook of ours runs: a path that is not valid
    // percent-encoding (and a segment over maxParamLength, which cannot happen: see routerOptions).
    frameworkErrors: (_error, request, reply) => answerUnroutable(request, reply),
    // One access-log line per request at most (below), instead of Fastify's two ("incoming", "completed").
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger,
    // Fastify's typing of validator factories is tied to its own Ajv wrapper; ours has the same runtime contract.
    schemaController: {
      compilersFactory: { buildValidator: buildValidatorCompiler as unknown as ValidatorFactory, buildSerializer: buildSerializerCompiler },
    },
    // The router would answer a path segment over maxParamLength (100 by default) itself, with a
    // 414 in Fastify's shape. Node already caps the request line with the headers (431
    // headers_too_large), so the router's cap is set past it: every segment reaches its route,
    // whose schema says how long it may be (ids: MAX_ID_LENGTH).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: http.maxHeaderSize },
    // `/api/v1/...` is an alias of `/v1/...` (some spec examples carry the /api prefix).
    rewriteUrl: (request) => {
      const url = request.url ?? '/';
      return url === '/api/v1' || url.startsWith('/api/v1/') || url.startsWith('/api/v1?') ? url.slice(4) : url;
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('ctx', ctx);
  const knownRoutes: { method: string; pattern: RegExp }[] = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(
      `^${route.url
        .replace(/\/+$/, '')
        .replace(/:[^/]+/g, '[^/]+')
        .replace(/\*/g, '.*')}/?$`,
    );
    for (const method of [route.method].flat()) knownRoutes.push({ method, pattern });
  });
  app.setErrorHandler(handleError);
  refuseBodiesOfClosedConnections(app);
  app.addSchema(ErrorResponse);
  // Every route, API, public or page: no string of a request may hold text no store can keep.
  app.addHook('preValidation', refuseUnstorableText);
  // Access log: requests that failed at info, successful ones at debug. A line costs as much as a
  // small API request, so a busy server does not write one per success unless asked to
  // (LOG_LEVEL=debug); proxies in front of it usually keep access logs anyway.
  // Logged as the response is sent (onSend): an onResponse hook would make Fastify listen for every
  // response's 'finish' event, which measurably slows every request.
  const logSuccesses = ctx.config.logLevel === 'debug' || ctx.config.logLevel === 'trace';
  const metrics = httpRecorder(ctx.metrics);
  function logRequest(request: FastifyRequest, reply: FastifyReply) {
    if (reply.statusCode >= 400) request.log.info({ req: request, status: reply.statusCode, ms: round(reply.elapsedTime) }, 'request');
    else if (logSuccesses) request.log.debug({ req: request, status: reply.statusCode, ms: round(reply.elapsedTime) }, 'request');
  }
  function setResponseHeaders(request: FastifyRequest, reply: FastifyReply) {
    reply.headers(API_SECURITY_HEADERS);
    reply.header('request-id', request.id);
  }
  app.addHook('onSend', (request, reply, payload, done) => {
    logRequest(request, reply);
    metrics.answered(request, reply);
    done(null, payload);
  });
  app.addHook('onRequest', (request, reply, done) => {
    metrics.started();
    setResponseHeaders(request, reply);
    done();
  });

  await registerOpenApi(app, { tags: modules.flatMap((m) => m.openApiTags ?? []), events: eventCatalog(modules) });
  await app.register(healthRoutes);
  // One store for every limit: on PostgreSQL its counters are shared by every server process.
  const rateLimits = createRateLimitStore(ctx.config, ctx.capabilities);
  app.addHook('onClose', async () => rateLimits.close());
  addIpRateLimitHooks(app, rateLimits);
  for (const plugin of modules.flatMap((m) => m.publicRoutes ?? [])) await app.register(plugin);
  // Pages (HTML, forms, CSRF) outside the JSON API, each surface under its own prefix.
  const surfaces = servedSurfaces(modules, ctx.config);
  const prefixes = surfaces.map((s) => surfacePrefix(s.baseUrl(ctx.config)));
  const clash = prefixes.findIndex((p, i) => prefixes.indexOf(p) !== i);
  if (clash !== -1) throw new Error(`two page surfaces are mounted at "${prefixes[clash] || '/'}"; give them different base URLs`);
  for (const surface of surfaces) mountedSurfaces.push(await registerPageSurface(app, surface));

  await app.register(
    async (api) => {
      acceptJsonBodiesOnly(api);
      // Declared up front so every request object has the same shape (V8 keeps it fast).
      api.decorateRequest('scope', null as unknown as Scope);
      api.addHook('onRequest', bearerAuth(ctx));
      // Both are per API key (client and mode), so they come after authentication.
      addRateLimitHooks(api, rateLimits);
      addIdempotencyHooks(api, ctx);
      // A request carries only the body and query parameters its route declares.
      api.addHook('onRoute', acceptDeclaredInputsOnly);
      for (const plugin of modules.flatMap((m) => m.apiRoutes ?? [])) await api.register(plugin);
      for (const plugin of options.apiPlugins ?? []) await api.register(plugin);
    },
    { prefix: '/v1' },
  );

  const pathOf = (request: FastifyRequest) => request.url.split('?')[0] ?? '/';
  const routeNotFound = (request: FastifyRequest) =>
    new ApiError('route_not_found', { message: `Unrecognised request URL (${request.method} ${pathOf(request)}).` });

  app.setNotFoundHandler(async (request, reply) => {
    const path = pathOf(request);
    const allowed = [...new Set(knownRoutes.filter((r) => r.pattern.test(path)).map((r) => r.method))].filter(
      (method) => method !== 'HEAD',
    );
    const error = allowed.length > 0 ? new ApiError('method_not_allowed') : routeNotFound(request);
    if (allowed.length > 0) reply.header('Allow', allowed.join(', '));
    return reply.status(error.status).send(errorBody(error, request.id));
  });

  /**
   * A URL the router cannot route leads nowhere: it gets the not-found answer of whoever owns the
   * path (the surface under whose prefix it is, else the API's JSON 404; at the root a surface has
   * no not-found handler of its own, as for unknown paths). No hook ran, so the headers and the
   * log line they would have given are added here.
   */
  function answerUnroutable(request: FastifyRequest, reply: FastifyReply) {
    setResponseHeaders(request, reply);
    const path = pathOf(request);
    const surface = mountedSurfaces.find((s) => s.prefix !== '' && (path === s.prefix || path.startsWith(`${s.prefix}/`)));
    if (surface) {
      surface.sendNotFound(reply);
    } else {
      const error = routeNotFound(request);
      reply.status(error.status).send(errorBody(error, request.id));
    }
    logRequest(request, reply);
    metrics.answered(request, reply, false);
  }

  return app;
}
