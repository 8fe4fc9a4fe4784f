import { describe, expect, it } from 'vitest';
import { PassThrough, Readable } from 'node:stream';
import { Command } from 'commander';
import { runOwnproof } from '../../../test/support/cli-process.js';
import { makeWallet, signBip322, signLegacy } from './fixtures/signers.js';
import { EXIT_INVALID, EXIT_USAGE, EXIT_VALID, registerVerifyMessageCommand } from './cli.js';

const wallet = makeWallet('p2wpkh');
const message = 'I control this address';
const signature = signBip322(wallet, message, 'simple');
const legacyWallet = makeWallet('p2pkh', 'testnet');
const legacySignature = signLegacy(legacyWallet.privateKeys[0]!, message, 'compressed');

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
}

/** Runs the command in-process with injected streams. */
async function run(args: string[], stdinText = ''): Promise<Run> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (d: Buffer) => out.push(d));
  stderr.on('data', (d: Buffer) => err.push(d));
  let exitCode: number | undefined;
  const program = new Command().exitOverride();
  registerVerifyMessageCommand(program, {
    stdin: Readable.from([stdinText]),
    stdout,
    stderr,
    setExitCode: (code) => {
      exitCode = code;
    },
  });
  await program.parseAsync(['verify-message', ...args], { from: 'user' });
  return { stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(), exitCode };
}

describe('verify-message (single)', () => {
  it('prints one VALID line and exits 0 for a valid signature', async () => {
    const r = await run(['--address', wallet.address, '--message', message, '--signature', signature]);
    expect(r.exitCode).toBe(EXIT_VALID);
    expect(r.stdout).toBe(`VALID: the signature proves control of ${wallet.address} (BIP-322 simple, P2WPKH, mainnet).\n`);
  });

  it('prints one INVALID line with the reason and exits 1 for an invalid signature', async () => {
    const r = await run(['--address', wallet.address, '--message', message + '!', '--signature', signature]);
    expect(r.exitCode).toBe(EXIT_INVALID);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stdout).toMatch(/^INVALID: the signature does not verify for this message and address/);
  });

  it('prints the result as JSON with --json', async () => {
    const r = await run(['--address', legacyWallet.address, '--message', message, '--signature', legacySignature, '--json']);
    expect(r.exitCode).toBe(EXIT_VALID);
    expect(JSON.parse(r.stdout)).toEqual({
      valid: true,
      result: 'valid',
      format: 'legacy',
      address_type: 'p2pkh',
      network: 'testnet',
      reason: null,
    });
  });

  it('passes messages starting with a dash and empty messages through unchanged', async () => {
    const dashed = signBip322(wallet, '-n', 'simple');
    expect((await run(['--address', wallet.address, '--message', '-n', '--signature', dashed])).exitCode).toBe(EXIT_VALID);
    const empty = signBip322(wallet, '', 'simple');
    expect((await run(['--address', wallet.address, '--message', '', '--signature', empty])).exitCode).toBe(EXIT_VALID);
  });

  it('exits 2 and names the missing options', async () => {
    const r = await run(['--address', wallet.address]);
    expect(r.exitCode).toBe(EXIT_USAGE);
    expect(r.stderr).toMatch(/missing --message, --signature/);
    expect(r.stdout).toBe('');
  });
});

describe('verify-message --batch', () => {
  it('writes one JSON result per input line, in order, and exits 0 even for invalid signatures', async () => {
    const lines = [
      JSON.stringify({ address: wallet.address, message, signature }),
      JSON.stringify({ address: wallet.address, message: 'other', signature }),
      '',
      'not json',
      JSON.stringify({ address: wallet.address, message: 5, signature }),
      JSON.stringify([1, 2]),
      JSON.stringify({ address: legacyWallet.address, message, signature: legacySignature }),
    ];
    const r = await run(['--batch'], lines.join('\r\n') + '\n');
    expect(r.exitCode).toBe(EXIT_VALID);
    const results = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { valid: boolean; reason: string | null });
    expect(results.map((x) => x.valid)).toEqual([true, false, false, false, false, true]);
    expect(results[2]!.reason).toBe('input line 4: not valid JSON');
    expect(results[3]!.reason).toBe('input line 5: "message" must be a string');
    expect(results[4]!.reason).toMatch(/^input line 6: expected a JSON object/);
  });

  it('writes nothing for empty input', async () => {
    const r = await run(['--batch'], '');
    expect(r).toMatchObject({ stdout: '', exitCode: EXIT_VALID });
  });
});

describe('verify-message over a real pipe (end to end)', () => {
  it('answers a batch through the ownproof command in a child process', async () => {
    const input = Array.from({ length: 50 }, (_, i) =>
      JSON.stringify({ address: wallet.address, message: i % 2 === 0 ? message : `${message} ${i}`, signature }),
    );
    const run = await runOwnproof(['verify-message', '--batch'], {}, input.join('\n') + '\n{broken\n');
    expect(run.code, run.stderr).toBe(0);
    const results = run.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { valid: boolean });
    expect(results).toHaveLength(51);
    expect(results.slice(0, 50).map((x) => x.valid)).toEqual(input.map((_, i) => i % 2 === 0));
    expect(results[50]).toMatchObject({ valid: false, reason: 'input line 51: not valid JSON' });
  });
});
