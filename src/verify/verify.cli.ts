import type { Command } from 'commander';
import { commandGroup, type CliDeps } from '../platform/cli.js';

/**
 * `ownproof keys rotate|list` (needs the database), `ownproof verify-claim` and `verify-statement`
 * (need nothing: @ownproof/verify's commands, so the service checks exactly as anyone offline does).
 */
export function registerVerifyCommands(program: Command, cli: CliDeps): void {
  const keys = commandGroup(program, 'keys', 'Rotate and list keys');
  keys
    .command('rotate')
    .description('Add a new receipt signing key; the old ones stay published so existing receipts keep verifying')
    .option('--json', 'print one JSON object {kid, retired}')
    .action(async (options: { json?: boolean }) => {
      const { rotateSigningKey } = await import('./claims/signing-key.service.js');
      await cli.withRuntime(async (runtime) => {
        const rotated = await rotateSigningKey(runtime.ctx);
        if (options.json) cli.print(JSON.stringify(rotated));
        else
          cli.print(
            `New receipt signing key ${rotated.kid}${rotated.retired.length ? `; retired ${rotated.retired.join(', ')} (still published for verification)` : ''}.`,
          );
      });
    });
  keys
    .command('list')
    .description('List receipt signing keys, newest first')
    .option('--json', 'one JSON object per line')
    .action(async (options: { json?: boolean }) => {
      const { describeSigningKeys } = await import('./claims/signing-key.service.js');
      await cli.withRuntime(async (runtime) => {
        const all = await describeSigningKeys(runtime.ctx);
        for (const key of all)
          cli.print(
            options.json ? JSON.stringify(key) : `${key.kid}  ${key.status}  created ${new Date(key.created_at * 1000).toISOString()}`,
          );
        if (all.length === 0 && !options.json) cli.print('No signing key yet: the first claim creates one.');
      });
    });

  program
    .command('verify-claim')
    .description(
      'Check a claim receipt offline: its signature with a saved JWKS, and the Bitcoin proof inside it (as `ownproof-verify receipt` does)',
    )
    .argument('[file]', 'a file holding the receipt, or - for stdin', '-')
    .requiredOption('--jwks <file>', "the issuer's keys, saved from its /.well-known/jwks.json")
    .option('--json', 'print the verdict as JSON')
    .option('--batch', 'read one receipt per line, write one JSON verdict per line')
    .addHelpText(
      'after',
      '\nExit status: 0 valid, 1 invalid, 2 bad usage (unreadable file or key set). With --batch: 0 unless the input cannot be read.\n' +
        'Valid means the receipt is genuine. Whether its claim was revoked since is known only to the issuer: check the receipt at its /verify page.',
    )
    .action(async (file: string, options: { jwks: string; json?: boolean; batch?: boolean }) => {
      const { runReceiptCheck } = await import('@ownproof/verify');
      cli.setExitCode(await runReceiptCheck(cli, { name: 'verify-claim', file, ...options }));
    });

  program
    .command('verify-statement')
    .description(
      'Check a statement PDF offline with a saved JWKS: that it is unaltered as issued, its signed data, and the Bitcoin proof of each claim (as `ownproof-verify statement` does)',
    )
    .argument('<file>', 'the statement PDF, or - for stdin')
    .requiredOption('--jwks <file>', "the issuer's keys, saved from its /.well-known/jwks.json")
    .option('--json', 'print the verdict as JSON (with everything the statement states)')
    .addHelpText('after', '\nExit status: 0 valid, 1 invalid, 2 bad usage (unreadable file or key set).')
    .action(async (file: string, options: { jwks: string; json?: boolean }) => {
      const [{ runStatementCheck }, { checkStatementPdf }, { describeStatementCheck }] = await Promise.all([
        import('@ownproof/verify'),
        import('./statements/statement-check.js'),
        import('./statements/statement-check-words.js'),
      ]);
      cli.setExitCode(
        await runStatementCheck(
          cli,
          { name: 'verify-statement', file, ...options },
          { check: checkStatementPdf, describe: describeStatementCheck },
        ),
      );
    });
}
