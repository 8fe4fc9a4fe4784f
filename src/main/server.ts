import type { FastifyInstance } from 'fastify';
import type { Config } from '../platform/config/config.js';
import { withAdvisoryLock } from '../platform/db/locks.js';
import { Worker } from '../platform/jobs/worker.js';
import { openMetricsEndpoint, type MetricsEndpoint } from '../platform/metrics/metrics-endpoint.js';
import { servedSurfaces } from '../platform/module.js';
import type { Runtime, RuntimeOptions } from '../platform/runtime.js';
import { service } from './modules.js';

export interface RunningServer {
  app: FastifyInstance;
  runtime: Runtime;
  /** The in-process job worker, unless started with `worker: false`. */
  worker: Worker | undefined;
  /** The address actually bound (the port may have been 0). */
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts `ownproof serve`: schema up to date, the modules' start-up work (first-start bootstrap),
 * HTTP listening and, unless `worker: false`, a job worker in the same process. `given`: test seams
 * (a server process of the tests, `test/support/serve-main.ts`); the CLI gives none.
 */
export async function startServer(
  config: Config,
  out: NodeJS.WritableStream = process.stdout,
  options: { worker?: boolean; given?: RuntimeOptions['given'] } = {},
): Promise<RunningServer> {
  const runtime = await service.openRuntime(config, options.given ? { given: options.given } : {});
  const app = await service.buildApp(runtime.ctx);
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = config.port === 0 ? config.publicBaseUrl.replace(/:0$/, `:${port}`) : config.publicBaseUrl;
  /** A configured URL as reachable now (with PORT=0 the bound port replaces the configured one). */
  const reachable = (url: string) => (url.startsWith(config.publicBaseUrl) ? base + url.slice(config.publicBaseUrl.length) : url);
  let started: string[];
  let metrics: MetricsEndpoint | undefined;
  try {
    // Processes starting together must not both do it (e.g. create the bootstrap client).
    started = await withAdvisoryLock(runtime.database, 'ownproof:bootstrap', () => service.onServe(runtime.ctx, { baseUrl: base }));
    metrics = await openMetricsEndpoint(runtime.ctx, app.log);
  } catch (error) {
    await app.close();
    await runtime.close();
    throw error;
  }
  const worker =
    options.worker === false
      ? undefined
      : new Worker(runtime.ctx, service.jobCatalog(), { concurrency: config.workerConcurrency, log: app.log });
  worker?.start();

  const surfaces = servedSurfaces(service.modules, config);
  const lines = [
    `ownproof is listening on ${config.host}:${port} (${runtime.database.description}; ${worker ? 'with' : 'without'} an in-process job worker)`,
    `  API base URL:      ${base}/v1`,
    ...surfaces.map((surface) => `  ${`Pages (${surface.id}):`.padEnd(18)} ${reachable(surface.baseUrl(config))}`),
    `  API reference:     ${base}/docs  (OpenAPI: ${base}/v1/openapi.json)`,
    ...(metrics ? [`  Metrics:           ${metrics.url}`] : []),
    ...started,
  ];
  out.write(`${lines.join('\n')}\n`);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await worker?.stop();
      await app.close();
      await metrics?.close();
      await runtime.close();
    })();
    return stopping;
  };
  return { app, runtime, worker, url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`, stop };
}
