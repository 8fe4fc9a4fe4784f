import type { FastifyInstance } from 'fastify';
import { bootstrapFirstClient } from '../clients/client.service.js';
import type { Config } from './config/config.js';
import { jobCatalog } from '../job-catalog.js';
import { withAdvisoryLock } from './db/locks.js';
import { Worker } from './jobs/worker.js';
import { buildApp } from './http/app.js';
import { openRuntime, type Runtime } from './runtime.js';

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
 * Starts `ownproof serve`: schema up to date, first-start bootstrap, HTTP listening and, unless
 * `worker: false`, a job worker in the same process.
 */
export async function startServer(
  config: Config,
  out: NodeJS.WritableStream = process.stdout,
  options: { worker?: boolean } = {},
): Promise<RunningServer> {
  const runtime = await openRuntime(config);
  // Processes starting together must not both create the bootstrap client.
  const bootstrap = await withAdvisoryLock(runtime.database, 'ownproof:bootstrap', () => bootstrapFirstClient(runtime.ctx));
  const app = await buildApp(runtime.ctx);
  await app.listen({ host: config.host, port: config.port });
  const worker = options.worker === false ? undefined : new Worker(runtime.ctx, jobCatalog(), { concurrency: config.workerConcurrency, log: app.log });
  worker?.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = config.port === 0 ? config.publicBaseUrl.replace(/:0$/, `:${port}`) : config.publicBaseUrl;

  const lines = [
    `ownproof is listening on ${config.host}:${port} (${runtime.database.description}; ${worker ? 'with' : 'without'} an in-process job worker)`,
    `  API base URL:      ${base}/v1`,
    `  Connect base URL:  ${config.connectBaseUrl}`,
    `  API reference:     ${base}/docs  (OpenAPI: ${base}/v1/openapi.json)`,
  ];
  if (bootstrap) {
    lines.push(
      '',
      `First start: created client "${bootstrap.name}" (${bootstrap.clientId}) with a test-mode API key.`,
      `  ${bootstrap.testKey}`,
      'It is shown only now and stored as a hash. Try:',
      `  curl -H "Authorization: Bearer ${bootstrap.testKey}" ${base}/v1/connect/account_holders`,
    );
  }
  out.write(`${lines.join('\n')}\n`);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await worker?.stop();
      await app.close();
      await runtime.close();
    })();
    return stopping;
  };
  return { app, runtime, worker, url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`, stop };
}
