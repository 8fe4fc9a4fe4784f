import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../test/support/free-port.js';
import { buildDist } from '../build.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/ownproof.js');
/** tsx compiles the whole server before it listens: tens of seconds on a busy 2-core machine. */
const START_MS = 90_000;

/** An `ownproof serve` this process started, on a SQLite database in a temporary directory. */
export interface LocalOwnproof {
  /** Where it listens, e.g. `http://127.0.0.1:41234` (no `/v1`). */
  url: string;
  /** The test-mode key of the client its first start created. */
  apiKey: string;
  dataDir: string;
  /** Stops the server (SIGTERM, then waits for it to exit) and deletes its directory. */
  stop(): Promise<void>;
}

/**
 * Starts `node bin/ownproof.js serve` (`npm start` without its memory option, which a demo's few
 * statements do not need) with a fresh DATA_DIR: the first start creates the database and a
 * client, and prints that client's test key in its banner.
 * Everything else is set here, so neither a `.env` file nor the caller's environment can point it
 * at another database.
 */
export async function startLocalOwnproof(): Promise<LocalOwnproof> {
  // The binary runs dist/: built afresh, so that a source changed since `npm install` is what runs.
  await buildDist();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-demo-'));
  // A port chosen here rather than PORT=0: the server builds hosted_url and the e-mailed links
  // from PORT, and would write them with port 0.
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${path.join(dataDir, 'ownproof.sqlite')}`,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    // The banner is written at once; its key line comes after "API reference".
    const banner = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`ownproof did not start within ${START_MS / 1000} s`)), START_MS);
      const check = () => {
        if (/sk_test_\w+/.test(stdout)) {
          clearTimeout(timer);
          resolve(stdout);
        }
      };
      child.stdout.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`ownproof serve exited (${code}) before it was ready:\n${stderr.slice(-2000)}`));
      });
    });
    const apiKey = /sk_test_\w+/.exec(banner)?.[0];
    if (apiKey === undefined) throw new Error(`unexpected start-up banner:\n${banner}`);
    return { url: `http://127.0.0.1:${port}`, apiKey, dataDir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
