import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { readText, type CliDeps } from '../../platform/cli.js';

/**
 * `ownproof sandbox sign-message`: signs a test-mode challenge with the sandbox wallet's public
 * keys, so the ownership proof can be tried without a wallet. Refuses mainnet addresses.
 */
export function registerSandboxCommands(program: Command, cli: CliDeps): void {
  const sandbox = program.command('sandbox').description('Test-mode helpers (the sandbox wallet’s keys are public; never for real funds)');
  sandbox
    .command('sign-message')
    .description('Sign a message with the sandbox wallet’s key for a test-network address; prints the signature')
    .requiredOption('--address <address>', 'an address of the sandbox wallet (docs/sandbox.md)')
    .option('--message <text>', 'the exact message to sign')
    .option('--message-file <file>', 'read the message from a file (or - for stdin), byte for byte: multi-line challenges')
    .action(async (options: { address: string; message?: string; messageFile?: string }) => {
      if ((options.message === undefined) === (options.messageFile === undefined)) cli.fail('give either --message or --message-file');
      const message =
        options.message ??
        (options.messageFile === '-' ? await readText(cli.stdin) : await readFile(options.messageFile as string, 'utf8'));
      const { signWithSandboxWallet } = await import('./sandbox-signer.js');
      const signed = signWithSandboxWallet(options.address, message);
      if (!signed.ok) cli.fail(signed.reason);
      cli.print(signed.signature);
    });
}
