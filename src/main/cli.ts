import type { Readable, Writable } from 'node:stream';
import { Command, CommanderError } from 'commander';
import { CliFailure, type CliDeps } from '../platform/cli.js';
import { ConfigError, loadConfig, readDotenv, type Config } from '../platform/config/config.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { openDatabase } from '../platform/db/database.js';
import { Worker } from '../platform/jobs/worker.js';
import { createLogger } from '../platform/http/logging.js';
import { openMetricsEndpoint } from '../platform/metrics/metrics-endpoint.js';
import type { Runtime } from '../platform/runtime.js';
import { service } from './modules.js';
import { startServer } from './server.js';

export interface CliIo {
  env: Record<string, string | undefined>;
  stdin?: Readable;
  stdout: Writable;
  stderr: Writable;
}

/**
 * `ownproof` — every command reads the same environment (DATABASE_URL, DATA_DIR, ...) as the server.
 * Resolves to the process exit code; `serve` resolves once listening and keeps the process alive.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const print = (text: string) => io.stdout.write(`${text}\n`);
  const config = (): Config => loadConfig(io.env);
  const withRuntime = async <T>(fn: (runtime: Runtime) => Promise<T>): Promise<T> => {
    const runtime = await service.openRuntime(config());
    try {
      return await fn(runtime);
    } finally {
      await runtime.close();
    }
  };

  const program = new Command('ownproof')
    .description('Account connection and Bitcoin ownership verification service')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  program
    .command('serve')
    .description('Run the HTTP server (API, hosted connect pages, portal) and, by default, a job worker')
    .option('--no-worker', 'do not run background jobs in this process (run `ownproof worker` elsewhere)')
    .action(async (options: { worker: boolean }) => {
      const server = await startServer(config(), io.stdout, { worker: options.worker });
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
      const settings = config();
      const runtime = await service.openRuntime(settings);
      const log = createLogger(settings.logLevel);
      const worker = new Worker(runtime.ctx, service.jobCatalog(), { concurrency: settings.workerConcurrency, log });
      // The worker has no HTTP server: METRICS_PORT gives it the scrape endpoint `serve` has.
      const metrics = await openMetricsEndpoint(runtime.ctx, log).catch(async (error: unknown) => {
        await runtime.close();
        throw error;
      });
      worker.start();
      print(`ownproof worker ${worker.id} is running (${runtime.database.description}, concurrency ${settings.workerConcurrency})`);
      if (metrics) print(`  Metrics: ${metrics.url}`);
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
      const database = openDatabase(config().database);
      try {
        const { applied } = await migrateToLatest(database);
        print(applied.length === 0 ? 'Database schema is up to date.' : `Applied ${applied.length} migration(s): ${applied.join(', ')}`);
      } finally {
        await database.destroy();
      }
    });

  let exitCode = 0;
  const cli: CliDeps = {
    withRuntime,
    print,
    fail(message) {
      throw new CliFailure(message);
    },
    stdin: io.stdin ?? process.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
    setExitCode: (code) => {
      exitCode = code;
    },
  };
  // Every module's own commands (client, key, jobs, verify-message, …).
  service.registerCommands(program, cli);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof ConfigError || error instanceof CliFailure) {
      io.stderr.write(`ownproof: ${error.message}\n`);
      return 1;
    }
    io.stderr.write(`ownproof: ${describeFailure(error)}\n`);
    return 1;
  }
}

/** One line for an unexpected failure: the cause a person can act on, never a stack trace. */
function describeFailure(error: unknown): string {
  const e = error as { code?: string; message?: string };
  const message = (e?.message || String(error)).split('\n')[0];
  if (e?.code && DATABASE_UNREACHABLE.has(e.code)) return `cannot reach the database (${message})`;
  return message ?? 'unknown error';
}

/** Socket errors and PostgreSQL's "wrong password" / "no such database" / "too many clients". */
const DATABASE_UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET', '28P01', '28000', '3D000', '53300']);

const isMain = process.argv[1] !== undefined && /(?:^|[\\/])(?:cli\.ts|ownproof(?:\.js)?)$/.test(process.argv[1]);
if (isMain) {
  const code = await runCli(process.argv.slice(2), { env: { ...readDotenv(), ...process.env }, stdout: process.stdout, stderr: process.stderr });
  if (code !== 0) process.exit(code);
}
