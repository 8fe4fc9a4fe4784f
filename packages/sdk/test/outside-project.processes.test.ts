import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServingProcess } from '../../../test/support/cli-process.js';
import { freePort } from '../../../test/support/free-port.js';
import { writeOfflineProject } from '../../../test/support/offline-project.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const FIXTURES = path.join(import.meta.dirname, 'outside-project');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

/** The workspace packages an integrator installs from npm (name → folder), packed as `npm publish` would pack them. */
const PACKAGES: Record<string, string> = { '@ownproof/sdk': 'packages/sdk', '@ownproof/verify': 'packages/verify' };
const NAMES = Object.keys(PACKAGES);

/**
 * An integrator's own project, outside this repository: the packed tarballs installed with no
 * network (`npm install --offline`), a journey type-checked with `tsc --strict` against the
 * declarations in the tarball and compiled, then run with Node against `ownproof serve` on SQLite.
 * TypeScript and Node's type declarations are the repository's (an integrator brings their own).
 */
describe('the packed SDK and verifier in a project of its own', () => {
  let work: string;
  let project: string;
  let serve: ServingProcess;

  /** tsc in the project, with the integrator's usual settings and `--strict`; `files` the only inputs. */
  async function typeCheck(files: string[], emit: boolean): Promise<{ code: number; output: string }> {
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2022'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          outDir: 'dist',
          skipLibCheck: false,
          typeRoots: [path.join(ROOT, 'node_modules/@types')],
          types: ['node'],
        },
        files,
      }),
    );
    try {
      const { stdout } = await run(process.execPath, [TSC, '-p', project, '--strict', ...(emit ? [] : ['--noEmit'])], { cwd: project });
      return { code: 0, output: stdout };
    } catch (error) {
      const failed = error as { code: number; stdout: string };
      return { code: failed.code, output: failed.stdout };
    }
  }

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'ownproof-outside-'));
    project = path.join(work, 'lender');
    mkdirSync(project);
    // `npm pack` runs the packages' prepack: types generated from the served document, then tsc.
    // The server starts after it: both compile the whole service, too much at once on 2 cores.
    const packed = await run('npm', ['pack', '--json', '--pack-destination', project, ...NAMES.flatMap((name) => ['-w', name])], {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
    });
    serve = await startServe({ DATA_DIR: path.join(work, 'data'), PORT: String(await freePort()) });
    const tarballs = (JSON.parse(packed.stdout) as { name: string; filename: string }[]).map((p) => ({
      name: p.name,
      folder: PACKAGES[p.name] as string,
      tarball: path.join(project, p.filename),
    }));
    expect(tarballs.map((t) => t.name)).toEqual(NAMES);
    // The verifier has dependencies: the lockfile lets npm take them from its cache, offline.
    writeOfflineProject(project, tarballs);
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund'], { cwd: project });
    for (const file of readdirSync(FIXTURES)) copyFileSync(path.join(FIXTURES, file), path.join(project, file));
  }, 240_000);

  afterAll(async () => {
    await serve?.process.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('installs the SDK with nothing but its own files (no dependencies), and both as ESM with declarations', async () => {
    const { stdout } = await run('npm', ['ls', '--all', '--json'], { cwd: project });
    const tree = JSON.parse(stdout) as { dependencies: Record<string, { version: string; dependencies?: object }> };
    expect(Object.keys(tree.dependencies)).toEqual(NAMES);
    expect(tree.dependencies['@ownproof/sdk']?.dependencies).toBeUndefined();
    const installed = readdirSync(path.join(project, 'node_modules/@ownproof/sdk/dist'));
    expect(installed).toEqual(expect.arrayContaining(['index.js', 'index.d.ts']));
    expect(installed.filter((f) => f.includes('.test.'))).toEqual([]);
    expect(readdirSync(path.join(project, 'node_modules/@ownproof/verify/dist/packages/verify/src'))).toEqual(
      expect.arrayContaining(['index.js', 'index.d.ts']),
    );
  });

  it('type-checks a journey under tsc --strict, and reports a mistyped call as an error', async () => {
    const good = await typeCheck(['journey.ts'], false);
    expect(good.output).toBe('');
    expect(good.code).toBe(0);
    const bad = await typeCheck(['mistyped.ts'], false);
    expect(bad.code).not.toBe(0);
    expect(bad.output).toMatch(
      /mistyped\.ts\(6,\d+\): error TS2820: Type '"balance"' is not assignable to type '"balances" \| "transactions" \| "addresses"'/,
    );
    expect(bad.output).toMatch(/mistyped\.ts\(9,\d+\): error TS2339: Property 'accounts' does not exist/);
    // Two runs of tsc: ~25 s on an idle 2-core machine.
  }, 120_000);

  it('runs the compiled journey against ownproof serve: session, balances, grant, webhook, statement and its PDF', async () => {
    const compiled = await typeCheck(['journey.ts'], true);
    expect(compiled.code, compiled.output).toBe(0);
    const apiKey = /sk_test_\w+/.exec(serve.banner)?.[0] as string;
    const { stdout } = await run(process.execPath, [path.join(project, 'dist/journey.js')], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', OWNPROOF_BASE_URL: serve.url, OWNPROOF_API_KEY: apiKey },
    });
    const result = JSON.parse(stdout) as Record<string, unknown>;
    expect(result).toMatchObject({
      session: 'completed',
      accounts: 1,
      balances: ['1.66298776 BTC'],
      grant: 'granted',
      statement: 'completed',
      pdf: '%PDF-',
      valid: true,
      offline: { valid: true, claims: 1 },
      missing: '404 resource_missing id',
    });
    expect(result.webhookAccounts).toHaveLength(1);
  }, 120_000);
});
