import type { Readable, Writable } from 'node:stream';
import { Command, CommanderError } from 'commander';
import { CliFailure, type CliDeps } from '../platform/cli.js';
import { ConfigError, loadConfig, readDotenv, type Config } from '../platform/config/config.js';
import type { Runtime } from '../platform/runtime.js';
import { COMMANDS } from './commands.js';

export interface CliIo {
  env: Record<string, string | undefined>;
  stdin?: Readable;
  stdout: Writable;
  stderr: Writable;
}

/**
 * `ownproof` — every command reads the same environment (DATABASE_URL, DATA_DIR, ...) as the server.
 * Resolves to the process exit code; `serve` resolves once listening and keeps the process alive.
 * Loads the command table alone: each command imports what it runs (src/main/commands.ts).
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const print = (text: string) => io.stdout.write(`${text}\n`);
  const config = (): Config => loadConfig(io.env);
  const withRuntime = async <T>(fn: (runtime: Runtime) => Promise<T>): Promise<T> => {
    const settings = config();
    const { service } = await import('./modules.js');
    const runtime = await service.openRuntime(settings);
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

  let exitCode = 0;
  const cli: CliDeps = {
    config,
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
  for (const register of COMMANDS) register(program, cli);

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
const DATABASE_UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ECONNRESET',
  '28P01',
  '28000',
  '3D000',
  '53300',
]);

/** The `ownproof` binary (bin/ownproof.js): the process's arguments, environment (and `.env`) and streams. */
export async function main(): Promise<void> {
  const code = await runCli(process.argv.slice(2), {
    env: { ...readDotenv(), ...process.env },
    stdout: process.stdout,
    stderr: process.stderr,
  });
  if (code !== 0) process.exit(code);
}
