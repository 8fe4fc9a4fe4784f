import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_INVALID, EXIT_USAGE, EXIT_VALID, runVerifyCli, USAGE } from './commands.js';

/** `ownproof-verify …` in this process: its exit code and what it wrote. */
async function verify(args: string[], stdin = '') {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const collect = (stream: PassThrough) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    return () => text;
  };
  const [out, err] = [collect(stdout), collect(stderr)];
  const code = await runVerifyCli(args, { stdin: Readable.from([stdin]), stdout, stderr });
  return { code, stdout: out(), stderr: err() };
}

/** The command line's own answers: usage, unreadable inputs. Real receipts and statements: test/packed.test.ts and the service's tests. */
describe('ownproof-verify', () => {
  let dir: string;
  let jwks: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ownproof-verify-cli-'));
    jwks = path.join(dir, 'jwks.json');
    writeFileSync(jwks, JSON.stringify({ keys: [] }));
    writeFileSync(path.join(dir, 'not-a-set.json'), '{"kty":"OKP"}');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints its usage with --help and exits 0', async () => {
    expect(await verify(['--help'])).toEqual({ code: EXIT_VALID, stdout: USAGE, stderr: '' });
  });

  it.each([
    [[], 'say what to check: receipt or statement'],
    [['claim', 'x.jws', '--jwks', 'k.json'], 'unknown command claim: receipt or statement'],
    [['receipt', 'x.jws'], '--jwks FILE is required'],
    [['statement', '--jwks', 'k.json'], 'give the statement PDF to check'],
    [['statement', 'a.pdf', '--jwks', 'k.json', '--batch'], '--batch is for receipts'],
    [['receipt', 'a.jws', 'b.jws', '--jwks', 'k.json'], 'one file at a time'],
    [['receipt', '--jwks'], "Option '--jwks <value>' argument missing"],
    [['receipt', '--colour'], "Unknown option '--colour'"],
  ])('refuses %j with why and its usage, exit 2', async (args, problem) => {
    const result = await verify(args);
    expect(result.code).toBe(EXIT_USAGE);
    expect(result.stderr).toContain(problem);
    expect(result.stderr).toContain('Usage: ownproof-verify receipt');
    expect(result.stdout).toBe('');
  });

  it('exits 2 when the key set or the file cannot be read, naming which', async () => {
    const noKeys = await verify(['receipt', '-', '--jwks', path.join(dir, 'missing.json')]);
    expect(noKeys).toMatchObject({ code: EXIT_USAGE, stdout: '' });
    expect(noKeys.stderr).toMatch(/^ownproof-verify receipt: cannot read the key set .*missing\.json: ENOENT/);
    const notASet = await verify(['statement', path.join(dir, 'a.pdf'), '--jwks', path.join(dir, 'not-a-set.json')]);
    expect(notASet.stderr).toContain('cannot read the key set');
    expect(notASet.stderr).toContain('it has no "keys" array');
    const noFile = await verify(['statement', path.join(dir, 'missing.pdf'), '--jwks', jwks]);
    expect(noFile).toMatchObject({ code: EXIT_USAGE, stdout: '' });
    expect(noFile.stderr).toMatch(/^ownproof-verify statement: cannot read .*missing\.pdf: ENOENT/);
  });

  it('reads a receipt from stdin by default and says why it is not one (exit 1)', async () => {
    const result = await verify(['receipt', '--jwks', jwks], 'not a receipt\n');
    expect(result).toEqual({
      code: EXIT_INVALID,
      stdout: 'INVALID: the receipt is not a compact JWS (three base64url parts separated by dots)\n',
      stderr: '',
    });
  });

  it('says a file that is not a PDF is not a statement (exit 1)', async () => {
    const result = await verify(['statement', '-', '--jwks', jwks, '--json'], 'hello');
    expect(result.code).toBe(EXIT_INVALID);
    expect(JSON.parse(result.stdout)).toMatchObject({ object: 'statement_check', valid: false, reason: 'not a PDF', document: null });
  });
});
