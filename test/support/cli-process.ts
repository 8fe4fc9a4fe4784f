import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { OAuthServer } from '../../src/connect/oauth/oauth-client.js';
import type { DatabaseConfig } from '../../src/platform/config/config.js';
import { TEST_MASTER_KEY } from './master-key.js';

export const BIN = path.resolve(import.meta.dirname, '../../bin/ownproof.js');
/** `ownproof serve` with test seams (serve-main.ts): the same server code, from the sources through tsx (the binary runs dist/). */
const SERVE_WITH_SEAMS = ['--import', 'tsx', path.resolve(import.meta.dirname, 'serve-main.ts')];

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Environment that points a child process at a test database: its URL, and the master key of the
 * test apps and contexts on it (TEST_MASTER_KEY), since a process without the master key that wraps
 * the database's data keys does not start.
 */
export function databaseEnv(config: DatabaseConfig): Record<string, string> {
  return { DATABASE_URL: config.engine === 'sqlite' ? `sqlite:${config.file}` : config.url, MASTER_KEY: TEST_MASTER_KEY };
}

/** Runs `ownproof ...args` as a real child process and collects its output. */
export function runOwnproof(
  args: string[],
  env: Record<string, string> = {},
  stdin?: string,
  nodeOptions: string[] = [],
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeOptions, BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

/**
 * Records every module a process resolves (ESM imports and CommonJS requires alike, through
 * `module.registerHooks`) and writes their URLs, one a line, to MODULE_TRACE_FILE as it exits.
 */
const MODULE_TRACE_HOOK = `data:text/javascript,${encodeURIComponent(`
import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';
const resolved = new Set();
registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); resolved.add(result.url); return result; } });
process.on('exit', () => writeFileSync(process.env.MODULE_TRACE_FILE, [...resolved].join('\\n')));
`)}`;

/** Runs `ownproof ...args` as runOwnproof does, and also says which modules the process loaded (file URLs). */
export async function runOwnproofTracingModules(
  args: string[],
  env: Record<string, string> = {},
  stdin?: string,
): Promise<ProcessResult & { modules: string[] }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ownproof-trace-'));
  const traceFile = path.join(dir, 'modules.txt');
  try {
    const result = await runOwnproof(args, { ...env, MODULE_TRACE_FILE: traceFile }, stdin, ['--import', MODULE_TRACE_HOOK]);
    return { ...result, modules: (await readFile(traceFile, 'utf8')).split('\n').filter(Boolean) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The packages (node_modules folders, `@scope/name` or `name`) among loaded module URLs, sorted, each once. */
export function packagesAmong(modules: string[]): string[] {
  const names = modules.map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1]).filter((name) => name !== undefined);
  return [...new Set(names)].sort();
}

/**
 * `ownproof …args` in this process: the command tree the binary runs, without a process's start-up
 * (a fraction of a second from dist/, but a database command also opens and migrates its database). For what a command says and does; what only a
 * separate process shows (its start-up, signals, exit codes of the binary, no database) stays with
 * runOwnproof. Logs are silent unless `env` sets LOG_LEVEL.
 */
export async function runOwnproofHere(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<ProcessResult> {
  const [{ runCli }, { captureStream }] = await Promise.all([import('../../src/main/cli.js'), import('./test-app.js')]);
  const stdout = captureStream();
  const stderr = captureStream();
  const code = await runCli(args, {
    env: { LOG_LEVEL: 'silent', ...env },
    stdin: Readable.from([Buffer.from(stdin ?? '')]),
    stdout: stdout.stream,
    stderr: stderr.stream,
  });
  return { code, stdout: stdout.lines.join(''), stderr: stderr.lines.join('') };
}

export interface LongRunningProcess {
  child: ChildProcess;
  /** Everything written to stdout so far. */
  output(): string;
  /** Resolves with the first stdout line matching `pattern`. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends a signal and resolves with the exit code (null when killed by the signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts a long-running Node process (the binary, or a TypeScript entry through `--import tsx`). */
export function startNodeProcess(args: string[], env: Record<string, string>): LongRunningProcess {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => stdout,
    waitForLine(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = stdout.split('\n').find((l) => pattern.test(l));
          if (line !== undefined) {
            cleanup();
            resolve(line);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
        }, timeoutMs);
        const onExit = (code: number | null) => {
          cleanup();
          reject(new Error(`process exited (${code}) before printing ${pattern}; stderr: ${stderr.slice(-2000)}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.off('exit', onExit);
        };
        child.stdout!.on('data', check);
        child.once('exit', onExit);
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface ServingProcess {
  process: LongRunningProcess;
  /** The address it listens on (PORT=0 picks a free port). */
  url: string;
  /** The start-up banner (printed in one write, so whole once its last line is seen). */
  banner: string;
}

/**
 * How long a server process may take to print its banner: two started at once while the rest of
 * the suite runs on a 2-core machine have taken over 20 s (tsx compiled the whole server first; the binary now runs dist/).
 * Inside the hook timeout (60 s).
 */
const SERVE_START_MS = 45_000;

/** Local fakes a server process reaches instead of the real services (serve-main.ts). */
export interface ServeSeams {
  /** ccxt exchange id → the origin of its fake (`https://127.0.0.1:<port>`). */
  exchanges?: Record<string, string>;
  /** Exchange id → its fake OAuth server's URLs. */
  oauthServers?: Record<string, Partial<OAuthServer>>;
}

/**
 * Starts `ownproof serve` on a free port (unless `env` sets PORT) and resolves once its banner is
 * printed. With `seams` it is the same server with those fakes in place of the real services.
 */
export async function startServe(env: Record<string, string>, args: string[] = [], seams?: ServeSeams): Promise<ServingProcess> {
  const command = seams ? [...SERVE_WITH_SEAMS, ...args] : [BIN, 'serve', ...args];
  const serving = startNodeProcess(command, { PORT: '0', ...env, ...(seams ? { TEST_SEAMS: JSON.stringify(seams) } : {}) });
  // A server that did not come up in time is stopped, not left running behind the failure.
  await serving.waitForLine(/API reference/, SERVE_START_MS).catch(async (error: unknown) => {
    await serving.stop('SIGKILL');
    throw error;
  });
  const banner = serving.output();
  const port = /listening on 127\.0\.0\.1:(\d+)/.exec(banner)?.[1];
  if (port === undefined) throw new Error(`no listening address in the banner: ${banner}`);
  return { process: serving, url: `http://127.0.0.1:${port}`, banner };
}
