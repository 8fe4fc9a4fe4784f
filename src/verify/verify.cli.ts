import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import type { JSONWebKeySet } from 'jose';
import { commandGroup, readBytes, readText, type CliDeps } from '../platform/cli.js';
import type { ReceiptVerdict, VerificationKeys } from './receipt.js';

/** Exit codes of `verify-claim`, as `verify-message` has them. */
const EXIT_VALID = 0;
const EXIT_INVALID = 1;
const EXIT_USAGE = 2;

/** `ownproof keys rotate|list` (needs the database), `ownproof verify-claim` and `verify-statement` (need nothing). */
export function registerVerifyCommands(program: Command, cli: CliDeps): void {
  const keys = commandGroup(program, 'keys', 'Rotate and list keys');
  keys
    .command('rotate')
    .description('Add a new receipt signing key; the old ones stay published so existing receipts keep verifying')
    .option('--json', 'print one JSON object {kid, retired}')
    .action(async (options: { json?: boolean }) => {
      const { rotateSigningKey } = await import('./signing-key.service.js');
      await cli.withRuntime(async (runtime) => {
        const rotated = await rotateSigningKey(runtime.ctx);
        if (options.json) cli.print(JSON.stringify(rotated));
        else cli.print(`New receipt signing key ${rotated.kid}${rotated.retired.length ? `; retired ${rotated.retired.join(', ')} (still published for verification)` : ''}.`);
      });
    });
  keys
    .command('list')
    .description('List receipt signing keys, newest first')
    .option('--json', 'one JSON object per line')
    .action(async (options: { json?: boolean }) => {
      const { describeSigningKeys } = await import('./signing-key.service.js');
      await cli.withRuntime(async (runtime) => {
        const all = await describeSigningKeys(runtime.ctx);
        for (const key of all) cli.print(options.json ? JSON.stringify(key) : `${key.kid}  ${key.status}  created ${new Date(key.created_at * 1000).toISOString()}`);
        if (all.length === 0 && !options.json) cli.print('No signing key yet: the first claim creates one.');
      });
    });

  program
    .command('verify-claim')
    .description('Check a claim receipt offline: its signature with a saved JWKS, and the Bitcoin proof inside it')
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
      const keys = await readKeySet(cli, 'verify-claim', options.jwks);
      if (!keys) return;
      const input: Readable | string = file === '-' ? cli.stdin : file;
      const { receiptVerifier } = await import('./receipt.js');
      const verify = receiptVerifier(keys);
      if (options.batch) {
        try {
          const lines = createInterface({ input: typeof input === 'string' ? createReadStream(input) : input, crlfDelay: Infinity });
          for await (const line of lines) {
            if (line.trim() === '') continue;
            cli.stdout.write(`${JSON.stringify(publicVerdict(await verify(line)))}\n`);
          }
        } catch (error) {
          cli.stderr.write(`verify-claim: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
          cli.setExitCode(EXIT_USAGE);
          return;
        }
        cli.setExitCode(EXIT_VALID);
        return;
      }
      let receipt: string;
      try {
        receipt = typeof input === 'string' ? await readFile(input, 'utf8') : await readText(input);
      } catch (error) {
        cli.stderr.write(`verify-claim: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
        cli.setExitCode(EXIT_USAGE);
        return;
      }
      const verdict = await verify(receipt);
      cli.print(options.json ? JSON.stringify(publicVerdict(verdict)) : describeVerdict(verdict));
      cli.setExitCode(verdict.valid ? EXIT_VALID : EXIT_INVALID);
    });

  program
    .command('verify-statement')
    .description('Check a statement PDF offline with a saved JWKS: that it is unaltered as issued, its signed data, and the Bitcoin proof of each claim')
    .argument('<file>', 'the statement PDF, or - for stdin')
    .requiredOption('--jwks <file>', "the issuer's keys, saved from its /.well-known/jwks.json")
    .option('--json', 'print the verdict as JSON (with everything the statement states)')
    .addHelpText('after', '\nExit status: 0 valid, 1 invalid, 2 bad usage (unreadable file or key set).')
    .action(async (file: string, options: { jwks: string; json?: boolean }) => {
      const keys = await readKeySet(cli, 'verify-statement', options.jwks);
      if (!keys) return;
      let pdf: Buffer;
      try {
        pdf = file === '-' ? await readBytes(cli.stdin) : await readFile(file);
      } catch (error) {
        cli.stderr.write(`verify-statement: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
        cli.setExitCode(EXIT_USAGE);
        return;
      }
      const [{ checkStatementPdf }, { describeStatementCheck }] = await Promise.all([import('./statement-check.js'), import('./statement-check-words.js')]);
      const verdict = await checkStatementPdf(pdf, keys);
      cli.print(options.json ? JSON.stringify(verdict) : describeStatementCheck(verdict));
      cli.setExitCode(verdict.valid ? EXIT_VALID : EXIT_INVALID);
    });
}

/** The key set in `file` (a saved JWKS), or undefined after saying why it cannot be read (exit 2). */
async function readKeySet(cli: CliDeps, command: string, file: string): Promise<VerificationKeys | undefined> {
  const { verificationKeys } = await import('./receipt.js');
  try {
    const jwks = JSON.parse(await readFile(file, 'utf8')) as JSONWebKeySet;
    if (!Array.isArray(jwks.keys)) throw new Error('it has no "keys" array');
    return verificationKeys(jwks);
  } catch (error) {
    cli.stderr.write(`${command}: cannot read the key set ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
    cli.setExitCode(EXIT_USAGE);
    return undefined;
  }
}

/**
 * The verdict as JSON. `status` is always null: whether a claim was revoked lives only in the
 * issuer's database, which an offline check never reads (the online check answers it).
 */
function publicVerdict(verdict: ReceiptVerdict) {
  return verdict.valid ? { valid: true, issuer: verdict.issuer, kid: verdict.kid, claim: verdict.claim, status: null } : { valid: false, reason: verdict.reason };
}

function describeVerdict(verdict: ReceiptVerdict): string {
  if (!verdict.valid) return `INVALID: ${verdict.reason}`;
  const { claim } = verdict;
  const subject = claim.subject.type === 'address' ? `address ${claim.subject.address}` : `wallet ${claim.subject.descriptor}`;
  const lines = [
    `VALID: ${verdict.issuer} states that account holder ${claim.account_holder_id} controls the ${claim.network} ${subject}`,
    `  claim ${claim.id}, proven by ${claim.proof.format}${claim.proof.signed_path ? ` with the key at ${claim.proof.signed_path} (${claim.proof.address})` : ''}`,
    `  verified ${new Date(claim.verified_at * 1000).toISOString()} at block ${claim.chain.height} (${claim.chain.block_hash}); signed with key ${verdict.kid}`,
  ];
  if (claim.proof.format === 'deposit') lines.push(`  a deposit cannot be re-checked offline: look up transaction ${claim.proof.txid} on a block explorer`);
  else lines.push('  the Bitcoin signature was verified again here');
  lines.push(`  not checked: whether the claim was revoked since it was issued — only the issuer knows; check the receipt at ${verdict.issuer}/verify`);
  return lines.join('\n');
}
