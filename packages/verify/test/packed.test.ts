import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainSources } from '../../../src/bitcoin/chain-for-mode.js';
import { buildSandboxChain } from '../../../src/bitcoin/sandbox/sandbox-chain.js';
import { engines } from '../../../test/support/database.js';
import { writeOfflineProject } from '../../../test/support/offline-project.js';
import { at, makeStatementWorld, octoberHistory } from '../../../test/support/statements.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';

const REPO = path.resolve(import.meta.dirname, '../../..');
const PUBLIC_BASE_URL = 'https://proofs.example.com';
const run = promisify(execFile);

/** The child's environment without the npm_* variables of the `npm`/`npx` that started the tests: they would point npm at this repository. */
const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

/** Runs a command to its end; never throws on a non-zero exit (the exit code is what is checked). */
async function exec(file: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env: cleanEnv(), maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? String(error),
    };
  }
}

/** One byte of `text` changed in the middle of its `part`-th dot-separated part (0: header, 1: payload). */
function tamperJws(jws: string, part: number): string {
  const parts = jws.trim().split('.');
  const target = parts[part] as string;
  const i = target.length >> 1;
  parts[part] = `${target.slice(0, i)}${target[i] === 'A' ? 'B' : 'A'}${target.slice(i + 1)}`;
  return parts.join('.');
}

/**
 * The tarball an auditor gets: `npm pack`ed from this workspace, installed offline into an empty
 * project outside the repository (so nothing resolves to the service's sources or modules), its
 * `ownproof-verify` CLI and library run with plain `node` on a receipt and a statement PDF that the
 * service issued, on each engine.
 */
describe('the packed @ownproof/verify', () => {
  let work: string;
  let project: string;
  const bin = () => path.join(project, 'node_modules/.bin/ownproof-verify');

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'ownproof-verify-packed-'));
    // `npm pack` runs the package's `prepare`: tsc builds dist/ from the sources first.
    const packed = await exec('npm', ['pack', '--workspace', 'packages/verify', '--pack-destination', work], REPO);
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = path.join(work, readdirSync(work).find((name) => name.endsWith('.tgz')) as string);
    project = path.join(work, 'integrator');
    mkdirSync(project);
    writeFileSync(path.join(project, path.basename(tarball)), readFileSync(tarball));
    writeOfflineProject(project, [
      { name: '@ownproof/verify', folder: 'packages/verify', tarball: path.join(project, path.basename(tarball)) },
    ]);
    const installed = await exec('npm', ['install', '--offline', '--no-audit', '--no-fund'], project);
    expect(installed.code, installed.stderr).toBe(0);
  }, 180_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('ships compiled JavaScript and declarations only: no TypeScript source, no tsx', () => {
    const files = readdirSync(path.join(project, 'node_modules/@ownproof/verify'), { recursive: true }).map(String);
    expect(files).toContain(path.normalize('dist/packages/verify/src/index.d.ts'));
    expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
    expect(readdirSync(path.join(project, 'node_modules'))).not.toContain('tsx');
  });

  it('type-checks an integrator’s code against its declarations with tsc --strict', async () => {
    writeFileSync(
      path.join(project, 'check.ts'),
      `import { readFileSync } from 'node:fs';
import { checkStatementPdf, receiptVerifier, verificationKeys, type ReceiptVerdict, type StatementCheck } from '@ownproof/verify';
const keys = verificationKeys(JSON.parse(readFileSync('jwks.json', 'utf8')));
const verdict: ReceiptVerdict = await receiptVerifier(keys)(readFileSync('receipt.jws', 'utf8'));
export const holder: string | undefined = verdict.valid ? verdict.claim.account_holder_id : verdict.claim?.account_holder_id;
const check: StatementCheck = await checkStatementPdf(readFileSync('statement.pdf'), keys);
export const closing: string | undefined = check.document?.data.summary.closing_balance;
// @ts-expect-error a verdict that is not valid has no kid
export const kid: string = verdict.valid ? verdict.kid : verdict.kid;
`,
    );
    const tsc = path.join(REPO, 'node_modules/typescript/bin/tsc');
    const options = [
      '--strict',
      '--noEmit',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--skipLibCheck',
      'false',
    ];
    const types = ['--types', 'node', '--typeRoots', path.join(REPO, 'node_modules/@types')];
    const result = await exec(process.execPath, [tsc, ...options, ...types, 'check.ts'], project);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 60_000);

  describe.each(engines())('with a receipt and a statement the service issued on %s', (engine) => {
    const sim = buildSandboxChain();
    let t: TestApp;
    let files: string;
    let claimId: string;
    let statementId: string;

    beforeAll(async () => {
      t = await startTestApp(engine, {
        seams: { chains: createChainSources({ esploraUrl: undefined, test: sim }) },
        config: { PUBLIC_BASE_URL },
      });
      const world = await makeStatementWorld(t);
      const claim = await world.proveAddress();
      claimId = claim.id;
      await octoberHistory(sim, claim);
      statementId = (
        await world.completedStatement({
          claim_ids: [claim.id],
          period: { open: at('2026-10-01T00:00:00Z'), close: at('2026-11-20T00:00:00Z') },
          timezone: 'Europe/London',
        })
      ).id;
      const pdf = await t.call(world.client.testKey, { method: 'GET', url: `/v1/verify/statements/${statementId}/document/pdf` });
      expect(pdf.statusCode, pdf.body.slice(0, 300)).toBe(200);
      const receipt = (await t.call(world.client.testKey, { method: 'GET', url: `/v1/verify/claims/${claim.id}` })).json()
        .receipt as string;
      // The keys an auditor saves from the issuer's public endpoint.
      const jwks = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      expect(jwks.statusCode).toBe(200);
      files = mkdtempSync(path.join(work, `${engine}-`));
      writeFileSync(path.join(files, 'jwks.json'), jwks.body);
      writeFileSync(path.join(files, 'receipt.jws'), receipt);
      writeFileSync(path.join(files, 'receipt-tampered.jws'), tamperJws(receipt, 1));
      writeFileSync(path.join(files, 'statement.pdf'), pdf.rawPayload);
      const changed = Buffer.from(pdf.rawPayload);
      changed[changed.length >> 1] = (changed[changed.length >> 1] as number) ^ 0x01;
      writeFileSync(path.join(files, 'statement-tampered.pdf'), changed);
    }, 120_000);
    afterAll(async () => t.close());

    const cli = (...args: string[]) => exec(process.execPath, [bin(), ...args, '--jwks', path.join(files, 'jwks.json')], project);

    it('says the receipt is valid, with the Bitcoin proof checked again, and exits 0', async () => {
      const result = await cli('receipt', path.join(files, 'receipt.jws'));
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`VALID: ${PUBLIC_BASE_URL} states that account holder`);
      expect(result.stdout).toContain(`claim ${claimId}, proven by bip322-simple`);
      expect(result.stdout).toContain('the Bitcoin signature was verified again here');
    });

    it('refuses a receipt with one changed character, says why and exits 1', async () => {
      const result = await cli('receipt', path.join(files, 'receipt-tampered.jws'));
      expect(result.code).toBe(1);
      expect(result.stdout).toBe(
        'INVALID: the receipt’s signature does not match the content it signs: it was altered or not issued with this key\n',
      );
    });

    it('says the statement PDF is unaltered as issued, and what it states, and exits 0', async () => {
      const result = await cli('statement', path.join(files, 'statement.pdf'));
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`VALID: an unaltered statement issued by ${PUBLIC_BASE_URL}`);
      expect(result.stdout).toContain(`Statement: ${statementId}, monthly layout`);
      expect(result.stdout).toContain(`, ${claimId}\n`);
      expect(result.stdout).toMatch(
        /Period: from 2026-10-01T00:00:00Z to 2026-11-20T00:00:00Z \(excluded\); the statement's time zone is Europe\/London/,
      );
    });

    it('refuses a statement PDF with one changed byte, says why and exits 1', async () => {
      const result = await cli('statement', path.join(files, 'statement-tampered.pdf'), '--json');
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stdout)).toMatchObject({
        valid: false,
        reason: 'the file was changed after it was issued: its content no longer matches its signature',
        document: null,
      });
    });

    it('checks both through the library API, imported by plain node', async () => {
      const script = `
        import { readFileSync } from 'node:fs';
        import { checkStatementPdf, verificationKeys, verifyReceipt } from '@ownproof/verify';
        const jwks = JSON.parse(readFileSync(process.argv[1], 'utf8'));
        const receipt = await verifyReceipt(readFileSync(process.argv[2], 'utf8'), jwks);
        const statement = await checkStatementPdf(readFileSync(process.argv[3]), verificationKeys(jwks));
        console.log(JSON.stringify({ receipt: receipt.valid && receipt.claim.id, statement: statement.valid && statement.document.statement.id }));
      `;
      const result = await exec(
        process.execPath,
        ['--input-type=module', '-e', script, ...['jwks.json', 'receipt.jws', 'statement.pdf'].map((name) => path.join(files, name))],
        project,
      );
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ receipt: claimId, statement: statementId });
    });
  });
});
