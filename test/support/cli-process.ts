import { spawn } from 'node:child_process';
import path from 'node:path';
import type { DatabaseConfig } from '../../src/platform/config/config.js';

export const BIN = path.resolve(import.meta.dirname, '../../bin/ownproof.js');

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment that points a child process at a test database. */
export function databaseEnv(config: DatabaseConfig): Record<string, string> {
  return { DATABASE_URL: config.engine === 'sqlite' ? `sqlite:${config.file}` : config.url };
}

/** Runs `ownproof ...args` as a real child process and collects its output. */
export function runOwnproof(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
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
