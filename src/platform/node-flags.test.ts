import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../../test/support/cli-process.js';
import { SERVICE_NODE_FLAGS } from './node-flags.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('Node options of the service processes', () => {
  it('the bin shebang and `npm start` pass exactly SERVICE_NODE_FLAGS', () => {
    const shebang = readFileSync(BIN, 'utf8').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S node ${SERVICE_NODE_FLAGS.join(' ')}`);
    const start = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
    expect(start).toBe(`node ${SERVICE_NODE_FLAGS.join(' ')} bin/ownproof.js serve`);
  });

  it('the bin runs through its shebang (env -S splits the options)', async () => {
    const child = spawn(BIN, ['--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: ownproof /);
  });
});
