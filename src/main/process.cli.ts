import type { Command } from 'commander';
import type { CliDeps } from '../platform/cli.js';

/** `ownproof serve`, `ownproof worker` and `ownproof migrate`: the long-running processes and the schema. */
export function registerProcessCommands(program: Command, cli: CliDeps): void {
  program
    .command('serve')
    .description('Run the HTTP server (API, hosted connect pages, portal) and, by default, a job worker')
    .option('--no-worker', 'do not run background jobs in this process (run `ownproof worker` elsewhere)')
    .action(async (options: { worker: boolean }) => {
      const config = cli.config();
      const { startServer } = await import('./server.js');
      const server = await startServer(config, cli.stdout, { worker: options.worker });
      const shutdown = (signal: string) => {
        server.app.log.info({ signal }, 'shutting down');
        void server.stop().then(() => process.exit(0));
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    });

  program
    .command('worker')
    .description('Run background jobs (any number of workers may share one database)')
    .action(async () => {
      const settings = cli.config();
      const [{ service }, { Worker }, { createLogger }, { openMetricsEndpoint }] = await Promise.all([
        import('./modules.js'),
        import('../platform/jobs/worker.js'),
        import('../platform/http/logging.js'),
        import('../platform/metrics/metrics-endpoint.js'),
      ]);
      const runtime = await service.openRuntime(settings);
      const log = createLogger(settings.logLevel);
      const worker = new Worker(runtime.ctx, service.jobCatalog(), { concurrency: settings.workerConcurrency, log });
      // The worker has no HTTP server: METRICS_PORT gives it the scrape endpoint `serve` has.
      const metrics = await openMetricsEndpoint(runtime.ctx, log).catch(async (error: unknown) => {
        await runtime.close();
        throw error;
      });
      worker.start();
      cli.print(`ownproof worker ${worker.id} is running (${runtime.database.description}, concurrency ${settings.workerConcurrency})`);
      if (metrics) cli.print(`  Metrics: ${metrics.url}`);
      const shutdown = () => {
        // Finish what is running (or hand it back to the queue), then exit.
        void worker.stop().then(async () => {
          await metrics?.close();
          await runtime.close();
          process.exit(0);
        });
      };
      process.once('SIGTERM', shutdown);
      process.once('SIGINT', shutdown);
    });

  program
    .command('migrate')
    .description('Apply pending database migrations and exit')
    .action(async () => {
      const config = cli.config();
      const [{ openDatabase }, { migrateToLatest }] = await Promise.all([
        import('../platform/db/database.js'),
        import('../platform/db/migrate.js'),
      ]);
      const database = openDatabase(config.database);
      try {
        const { applied } = await migrateToLatest(database);
        cli.print(
          applied.length === 0 ? 'Database schema is up to date.' : `Applied ${applied.length} migration(s): ${applied.join(', ')}`,
        );
      } finally {
        await database.destroy();
      }
    });
}
