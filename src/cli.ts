import type { Readable, Writable } from 'node:stream';
import { Command, CommanderError, Option } from 'commander';
import { registerVerifyMessageCommand } from './bitcoin/message/cli.js';
import { ClientNotFoundError, createClient, rollApiKey } from './clients/client.service.js';
import { ConfigError, loadConfig, readDotenv, type Config } from './platform/config/config.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { openDatabase } from './platform/db/database.js';
import { openRuntime, type Runtime } from './platform/runtime.js';
import { jobCatalog } from './job-catalog.js';
import { registerJobsCommands, wholeNumber } from './platform/jobs/jobs.cli.js';
import { Worker } from './platform/jobs/worker.js';
import { startServer } from './platform/server.js';

export interface CliIo {
  env: Record<string, string | undefined>;
  stdin?: Readable;
  stdout: Writable;
  stderr: Writable;
}

/** A failure to report as one line on stderr, with exit code 1. */
class CliFailure extends Error {}

/**
 * `ownproof` — every command reads the same environment (DATABASE_URL, DATA_DIR, ...) as the server.
 * Resolves to the process exit code; `serve` resolves once listening and keeps the process alive.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const print = (text: string) => io.stdout.write(`${text}\n`);
  const config = (): Config => loadConfig(io.env);
  const withRuntime = async <T>(fn: (runtime: Runtime) => Promise<T>): Promise<T> => {
    const runtime = await openRuntime(config());
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
      const runtime = await openRuntime(settings);
      const worker = new Worker(runtime.ctx, jobCatalog(), { concurrency: settings.workerConcurrency });
      worker.start();
      print(`ownproof worker ${worker.id} is running (${runtime.database.description}, concurrency ${settings.workerConcurrency})`);
      const shutdown = () => {
        // Finish what is running (or hand it back to the queue), then exit.
        void worker.stop().then(async () => {
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
  registerVerifyMessageCommand(program, {
    stdin: io.stdin ?? process.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
    setExitCode: (code) => {
      exitCode = code;
    },
  });

  const client = program.command('client').description('Manage API clients');
  client
    .command('create')
    .description('Create a client with one test key and one live key (shown once)')
    .requiredOption('--name <name>', 'display name shown to account holders')
    .option('--json', 'print one JSON object {client_id, test_key, live_key}')
    .action(async (options: { name: string; json?: boolean }) => {
      if (options.name.trim() === '' || options.name.length > 200) throw new CliFailure('--name must be 1 to 200 characters');
      await withRuntime(async (runtime) => {
        const created = await createClient(runtime.ctx, { name: options.name });
        if (options.json) {
          print(JSON.stringify({ client_id: created.clientId, test_key: created.testKey, live_key: created.liveKey }));
        } else {
          print(`Created client "${created.name}" (${created.clientId}).`);
          print(`  test key: ${created.testKey}`);
          print(`  live key: ${created.liveKey}`);
          print('The keys are shown only now and stored as hashes.');
        }
      });
    });

  registerJobsCommands(program, {
    withRuntime,
    print,
    fail(message) {
      throw new CliFailure(message);
    },
  });

  const key = program.command('key').description('Manage API keys');
  key
    .command('roll')
    .description('Issue a new key for a client and mode; the old keys stop working after the grace period')
    .requiredOption('--client <id>', 'client id (cli_...)')
    .addOption(new Option('--mode <mode>', 'which key to roll').choices(['test', 'live']).makeOptionMandatory())
    .option('--grace <seconds>', 'keep the old keys working this many seconds', wholeNumber('must be a whole number of seconds'), 0)
    .option('--json', 'print one JSON object {client_id, mode, key, old_keys_expire_at}')
    .action(async (options: { client: string; mode: 'test' | 'live'; grace: number; json?: boolean }) => {
      await withRuntime(async (runtime) => {
        const rolled = await rollApiKey(runtime.ctx, { clientId: options.client, mode: options.mode, graceSeconds: options.grace });
        if (options.json) {
          print(JSON.stringify({ client_id: options.client, mode: options.mode, key: rolled.key, old_keys_expire_at: rolled.oldKeysExpireAt }));
        } else {
          print(`New ${options.mode} key for ${options.client}: ${rolled.key}`);
          const when = options.grace === 0 ? 'now' : `at ${new Date(rolled.oldKeysExpireAt * 1000).toISOString()}`;
          if (rolled.expiringKeyHints.length > 0) print(`Old key(s) ${rolled.expiringKeyHints.join(', ')} stop working ${when}.`);
        }
      }).catch((error: unknown) => {
        if (error instanceof ClientNotFoundError) throw new CliFailure(`no client with id ${options.client}`);
        throw error;
      });
    });

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
