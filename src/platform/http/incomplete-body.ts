import type { FastifyInstance, FastifyRequest, preParsingHookHandler, RouteOptions } from 'fastify';
import { ApiError } from './errors.js';

/**
 * Node's error for a request stream whose client closed or reset the connection before the
 * declared length arrived (`connResetException('aborted')`), as a body reader raises it.
 */
export function isIncompleteBody(error: Error & { code?: unknown }, request: FastifyRequest): boolean {
  return error.code === 'ECONNRESET' && error.message === 'aborted' && request.raw.destroyed;
}

/** Methods whose body Fastify reads (the others never wait for one). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * A request whose client went away before its body was read is refused with 400 `body_incomplete`,
 * like one whose body breaks off while it is read (`isIncompleteBody`, in the error handler).
 * Why a hook: Node destroys the request stream when the connection closes, and a body reader
 * started on a destroyed stream waits for ever (no 'data', no 'end', no 'error'). That happens
 * whenever the client hangs up while an onRequest hook awaits (authentication, a rate limit kept
 * in PostgreSQL): the request would get no answer, no access log line, and hold the in-flight
 * gauge up for good. Added to the routes that take a body as they are registered, so GETs pay
 * nothing; it runs after the app's onRequest hooks and just before the body is read.
 */
export function refuseBodiesOfClosedConnections(app: FastifyInstance): void {
  const refuseIfClosed: preParsingHookHandler = (request, _reply, payload, done) => {
    if (request.raw.destroyed) done(new ApiError('body_incomplete'), payload);
    else done(null, payload);
  };
  app.addHook('onRoute', (route: RouteOptions) => {
    if (![route.method].flat().some((method) => BODY_METHODS.has(method))) return;
    route.preParsing = [...[route.preParsing ?? []].flat(), refuseIfClosed];
  });
}
