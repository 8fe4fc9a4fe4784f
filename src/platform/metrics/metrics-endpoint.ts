import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.js';
import { requestIdGenerator } from '../crypto/random.js';
import { ApiError, errorBody } from '../http/errors.js';
import { API_SECURITY_HEADERS } from '../http/security-headers.js';

/** A process's scrape endpoint, listening. */
export interface MetricsEndpoint {
  /** Where Prometheus scrapes it: `http://host:port/metrics` (the bound port when METRICS_PORT=0). */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (Prometheus text format) on METRICS_HOST:METRICS_PORT, a listener of its
 * own, in `ownproof serve` and `ownproof worker` alike; undefined when METRICS_PORT is not set.
 * A port rather than a token on the API's port: the worker has no HTTP server to put it on, the
 * metrics stay off the public surface (the TLS proxy forwards the API's port only) and out of
 * the OpenAPI document, and a scraper needs no secret. Anything else on that port gets our JSON
 * errors: 404 `route_not_found`, 405 `method_not_allowed`.
 */
export async function openMetricsEndpoint(
  ctx: Pick<AppContext, 'config' | 'metrics'>,
  log: FastifyBaseLogger,
): Promise<MetricsEndpoint | undefined> {
  const at = ctx.config.metrics;
  if (!at) return undefined;
  ctx.metrics.includeProcessMetrics();
  const nextRequestId = requestIdGenerator();
  const fail = (response: ServerResponse, error: ApiError, requestId: string) => {
    response
      .writeHead(error.status, { 'content-type': 'application/json; charset=utf-8' })
      .end(JSON.stringify(errorBody(error, requestId)));
  };
  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestId = nextRequestId();
    response.setHeaders(new Map(Object.entries({ ...API_SECURITY_HEADERS, 'request-id': requestId, 'cache-control': 'no-store' })));
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics')
      return fail(
        response,
        new ApiError('route_not_found', { message: `Unrecognised request URL (${request.method} ${path}).` }),
        requestId,
      );
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      return fail(response, new ApiError('method_not_allowed'), requestId);
    }
    try {
      const text = await ctx.metrics.registry.metrics();
      response.writeHead(200, { 'content-type': ctx.metrics.registry.contentType }).end(request.method === 'HEAD' ? undefined : text);
    } catch (error) {
      log.error({ err: error, request_id: requestId }, 'metrics scrape failed');
      fail(response, new ApiError('api_error'), requestId);
    }
  }
  const server = createServer((request, response) => void answer(request, response));
  await new Promise<void>((resolve, reject) => {
    // Two processes on one host given the same METRICS_PORT: the second stops, saying which setting clashes.
    const refuse = (error: Error) =>
      reject(new Error(`cannot serve metrics on ${at.host}:${at.port} (METRICS_HOST, METRICS_PORT): ${error.message}`));
    server.once('error', refuse);
    server.listen(at.port, at.host, () => {
      server.off('error', refuse);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${at.host.includes(':') ? `[${at.host}]` : at.host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A scraper's keep-alive connection would hold close() open until it times out.
        server.closeIdleConnections();
      }),
  };
}
