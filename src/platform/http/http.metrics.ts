import type { FastifyReply, FastifyRequest } from 'fastify';
import { defineGauge, defineHistogram } from '../metrics/metric.js';
import type { Metrics } from '../metrics/metrics.js';

export const httpRequestDuration = defineHistogram({
  name: 'ownproof_http_request_duration_seconds',
  help: 'HTTP requests answered, by method, route template and status: from the request to the response handed to the socket.',
  labelNames: ['method', 'route', 'status'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

export const httpRequestsInFlight = defineGauge({
  name: 'ownproof_http_requests_in_flight',
  help: 'HTTP requests received and not yet answered.',
  labelNames: [],
});

/** The route label of a request that matched no route: its URL is never a label. */
const UNMATCHED = 'unmatched';

/**
 * Counts requests as they arrive (`started`, in the app's first onRequest hook) and as their
 * response is handed over (`answered`, in its onSend hook, where the access log line is written:
 * an onResponse hook would cost every request a 'finish' listener). The route label is the
 * route's template (`/v1/connect/accounts/:id`), never the URL: a URL holds ids and secrets.
 */
export function httpRecorder(metrics: Metrics) {
  const duration = metrics.histogram(httpRequestDuration);
  const inFlight = metrics.gauge(httpRequestsInFlight);
  return {
    started(): void {
      inFlight.inc();
    },
    /** `counted`: whether `started` ran for it (not for a request the router refused before any hook). */
    answered(request: FastifyRequest, reply: FastifyReply, counted = true): void {
      if (counted) inFlight.dec();
      const route = request.routeOptions.url ?? UNMATCHED;
      duration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    },
  };
}
