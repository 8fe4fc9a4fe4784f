import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../test/support/browser.js';
import { databaseEnv, runOwnproofHere, startServe, type ServingProcess } from '../test/support/cli-process.js';
import { freePort } from '../test/support/free-port.js';
import { createTestDatabase, engines, type TestDatabase } from '../test/support/database.js';
import { pdfPages } from '../test/support/pdf.js';

const ROOT = path.resolve(import.meta.dirname, '..');

interface DemoRun {
  code: number | null;
  lines: string[];
  stderr: string;
}

/** `npm run demo -- …args` as a person types it, from the repository's root, with no display. */
function runDemo(args: string[], env: Record<string, string> = {}): Promise<DemoRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'demo', '--', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, lines: stdout.trimEnd().split('\n'), stderr }));
  });
}

/** The PDF the demo's last line names: a statement that `ownproof verify-statement` finds valid offline with the saved keys. */
async function expectCheckedStatement(run: DemoRun, outDir: string): Promise<string> {
  expect(run.code, run.stderr).toBe(0);
  const pdfPath = run.lines.at(-1) as string;
  expect(path.dirname(pdfPath)).toBe(outDir);
  expect(pdfPath).toMatch(/stmt_\w+\.pdf$/);
  const pdf = readFileSync(pdfPath);
  const text = (await pdfPages(pdf)).join('\n');
  expect(text).toContain('Bitcoin statement');
  expect(text).toContain('Ada Lovelace');
  expect(text).toContain(path.basename(pdfPath, '.pdf'));
  const check = await runOwnproofHere(['verify-statement', pdfPath, '--jwks', path.join(outDir, 'jwks.json')], {
    DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
  });
  expect(check.code, check.stderr).toBe(0);
  expect(check.stdout).toContain('VALID: an unaltered statement');
  return pdfPath;
}

/** Each step the demo prints: its number, its time, and what it did, in the order of the journey. */
function expectJourneySteps(lines: string[], holder: RegExp): void {
  const steps = lines.filter((l) => /^\s*\d+\.\s+\d+\.\d\d s\s+\(at\s+\d+\.\d s\)\s+/.test(l)).map((l) => l.replace(/^.*?\)\s+/, ''));
  const expected = [
    /^Webhook endpoint we_\w+ created for http:\/\/127\.0\.0\.1:\d+\/webhooks$/,
    /^Account holder ah_\w+ created/,
    /^Session sess_\w+ created: http:\/\/127\.0\.0\.1:[1-9]\d*\/connect\/cs_test_\w+$/,
    new RegExp(`^Session completed ${holder.source}: .*; 2 accounts$`),
    /^Account acct_\w+ refreshed \(.+\): .*BTC/,
    /^Account acct_\w+ refreshed \(.+\): .*BTC/,
    /^Access request ar_\w+ created \(balances, statements\)$/,
    new RegExp(`^Access request granted ${holder.source}: claims clm_\\w+$`),
    /^Webhooks received and verified: session\.completed, access_request\.granted$/,
    /^Statement stmt_\w+ completed for the last 12 months$/,
    /^Statement PDF downloaded \(\d+ bytes\), checked by the server \(valid\) and saved with the signing keys$/,
  ];
  const journey = steps.slice(steps.findIndex((s) => s.startsWith('Webhook endpoint')));
  expect(journey.slice(0, expected.length)).toEqual(expected.map((pattern) => expect.stringMatching(pattern)));
  expect(journey.slice(expected.length).at(-1)).toMatch(/^Stopped /);
}

describe('npm run demo', () => {
  let outDir: string;
  beforeAll(() => {
    outDir = mkdtempSync(path.join(tmpdir(), 'ownproof-demo-out-'));
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('starts ownproof on a temporary SQLite directory, runs the journey through the SDK with test helpers, ends with the PDF path and stops the server', async () => {
    const run = await runDemo(['--out', outDir]);
    const pdfPath = await expectCheckedStatement(run, outDir);
    const started = /^\s*1\.\s.*Started ownproof at (http:\/\/127\.0\.0\.1:\d+) \(SQLite in (\S+), test key sk_test_/.exec(
      run.lines[0] as string,
    );
    expect(started, run.lines[0]).not.toBeNull();
    const [, url, dataDir] = started as RegExpExecArray;
    expectJourneySteps(run.lines, /by the test helper/);
    expect(run.lines.at(-3)).toBe(`Check it offline: npx ownproof verify-statement ${pdfPath} --jwks ${path.join(outDir, 'jwks.json')}`);
    expect(run.lines.at(-2)).toBe('The statement PDF:');
    // Everything it started is gone: the server answers no more, its directory is deleted.
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect(existsSync(dataDir as string)).toBe(false);
  }, 180_000);

  it('refuses DEMO_BASE_URL without a test key, starting nothing', async () => {
    const run = await runDemo(['--out', outDir], { DEMO_BASE_URL: 'http://127.0.0.1:1', DEMO_API_KEY: 'sk_live_x' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('DEMO_BASE_URL needs DEMO_API_KEY, a test-mode key (sk_test_…) of that server');
    expect(run.lines).toEqual(['']);
  }, 60_000);
});

describe.each(engines())('npm run demo against a running ownproof (DEMO_BASE_URL) on %s', (engine) => {
  let database: TestDatabase;
  let serve: ServingProcess;
  let apiKey: string;
  let outDir: string;

  beforeAll(async () => {
    outDir = mkdtempSync(path.join(tmpdir(), 'ownproof-demo-out-'));
    database = await createTestDatabase(engine);
    const dataDir = path.join(outDir, 'data');
    // A fixed port: hosted_url and e-mailed links are built from PORT, and PORT=0 would write :0.
    serve = await startServe({ ...databaseEnv(database.config), DATA_DIR: dataDir, PORT: String(await freePort()) });
    apiKey = /sk_test_\w+/.exec(serve.banner)?.[0] as string;
  }, 90_000);
  afterAll(async () => {
    await serve?.process.stop();
    await database?.destroy();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it('uses that server and key, starting none of its own, and leaves the server running', async () => {
    const run = await runDemo(['--out', outDir], { DEMO_BASE_URL: serve.url, DEMO_API_KEY: apiKey });
    await expectCheckedStatement(run, outDir);
    expect(run.lines[0]).toBe(`Using ownproof at ${serve.url}`);
    expectJourneySteps(run.lines, /by the test helper/);
    expect(run.lines.join('\n')).not.toContain('Started ownproof');
    expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
  }, 180_000);

  it.runIf(chromiumAvailable())(
    '--browser: a person’s part done in Chromium on the hosted pages and the portal, each page saved as a screenshot',
    async () => {
      const run = await runDemo(['--browser', '--headless', '--out', outDir], { DEMO_BASE_URL: serve.url, DEMO_API_KEY: apiKey });
      await expectCheckedStatement(run, outDir);
      expectJourneySteps(run.lines, /in headless Chromium/);
      const shots = run.lines.filter((l) => l.trim().startsWith('page: ')).map((l) => path.basename(l.trim().slice('page: '.length)));
      expect(shots).toEqual([
        '01-consent.png',
        '02-wallet-form.png',
        '03-ownership-challenge.png',
        '04-accounts.png',
        '05-back-at-the-lender.png',
        '06-portal-request.png',
        '07-portal-approved.png',
      ]);
      expect(readdirSync(path.join(outDir, 'screenshots')).sort()).toEqual(shots);
    },
    180_000,
  );
});
