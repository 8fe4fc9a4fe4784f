import { describe, expect, it } from 'vitest';
import { runOwnproof, runOwnproofHere } from '../../../test/support/cli-process.js';
import { verifyMessage } from '../message/verify-message.js';
import { sandboxWallet } from './sandbox-wallet.js';

describe('ownproof sandbox sign-message', () => {
  it('signs a multi-line message read byte for byte from stdin with the sandbox key of the address', async () => {
    const address = sandboxWallet().address('change', 3);
    const message = 'line one\nline two';
    const run = await runOwnproof(['sandbox', 'sign-message', '--address', address, '--message-file', '-'], {}, message);
    expect(run.code, run.stderr).toBe(0);
    const signature = run.stdout.trim();
    expect(verifyMessage({ address, message, signature })).toMatchObject({ valid: true, format: 'bip322-simple' });
  });

  it('refuses a mainnet address, and an address that is not the sandbox wallet’s', async () => {
    const mainnet = await runOwnproofHere([
      'sandbox',
      'sign-message',
      '--address',
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      '--message',
      'x',
    ]);
    expect(mainnet.code).toBe(1);
    expect(mainnet.stderr.trim()).toBe('ownproof: the sandbox wallet never signs for mainnet addresses');
    const stranger = await runOwnproofHere([
      'sandbox',
      'sign-message',
      '--address',
      'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
      '--message',
      'x',
    ]);
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toContain('is not an address of the sandbox wallet');
  });
});
