import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import type { JSONWebKeySet } from 'jose';
import { describeReceiptVerdict, describeStatementVerdict, receiptVerdictJson } from './describe.js';
import { verificationKeys, type VerificationKeys } from './jws.js';
import { receiptVerifier } from './receipt.js';
import { checkStatementPdf, type StatementCheck } from './statement.js';

/** Exit codes: the check passed, it failed, or it could not be made (bad usage, unreadable file or key set). */
export const EXIT_VALID = 0;
export const EXIT_INVALID = 1;
export const EXIT_USAGE = 2;

export interface VerifyIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

export interface ReceiptCommand {
  /** How errors name the command (`ownproof-verify receipt`, `ownproof verify-claim`). */
  name: string;
  /** A file holding the receipt, or `-` for stdin. */
  file: string;
  /** A saved JWKS (the issuer's `/.well-known/jwks.json`). */
  jwks: string;
  json?: boolean | undefined;
  /** One receipt per line in, one JSON verdict per line out; exit 0 unless the input cannot be read. */
  batch?: boolean | undefined;
}

export type StatementCommand = Omit<ReceiptCommand, 'batch'>;

/** How a statement command checks and words its verdict: an issuer's own wording (the service words a statement as its check page does). */
export interface StatementReport<C extends StatementCheck> {
  check(pdf: Buffer, keys: VerificationKeys): Promise<C>;
  describe(check: C): string;
}
const OFFLINE_REPORT: StatementReport<StatementCheck> = { check: checkStatementPdf, describe: describeStatementVerdict };

/** Checks the receipt(s) of `command.file`, writes the verdict(s) and resolves to the exit code. */
export async function runReceiptCheck(io: VerifyIo, command: ReceiptCommand): Promise<number> {
  const keys = await readKeySet(io, command);
  if (!keys) return EXIT_USAGE;
  const verify = receiptVerifier(keys);
  const input = command.file === '-' ? io.stdin : undefined;
  if (command.batch) {
    try {
      const lines = createInterface({ input: input ?? createReadStream(command.file), crlfDelay: Infinity });
      for await (const line of lines) {
        if (line.trim() === '') continue;
        io.stdout.write(`${JSON.stringify(receiptVerdictJson(await verify(line)))}\n`);
      }
    } catch (error) {
      return cannotRead(io, command, command.file, error);
    }
    return EXIT_VALID;
  }
  let receipt: string;
  try {
    receipt = input ? (await readAll(input)).toString('utf8') : await readFile(command.file, 'utf8');
  } catch (error) {
    return cannotRead(io, command, command.file, error);
  }
  const verdict = await verify(receipt);
  io.stdout.write(`${command.json ? JSON.stringify(receiptVerdictJson(verdict)) : describeReceiptVerdict(verdict)}\n`);
  return verdict.valid ? EXIT_VALID : EXIT_INVALID;
}

/** Checks the statement PDF of `command.file` ({@link checkStatementPdf} unless `report` says), writes the verdict and resolves to the exit code. */
export async function runStatementCheck(io: VerifyIo, command: StatementCommand): Promise<number>;
export async function runStatementCheck<C extends StatementCheck>(
  io: VerifyIo,
  command: StatementCommand,
  report: StatementReport<C>,
): Promise<number>;
export async function runStatementCheck(io: VerifyIo, command: StatementCommand, report = OFFLINE_REPORT): Promise<number> {
  const keys = await readKeySet(io, command);
  if (!keys) return EXIT_USAGE;
  let pdf: Buffer;
  try {
    pdf = command.file === '-' ? await readAll(io.stdin) : await readFile(command.file);
  } catch (error) {
    return cannotRead(io, command, command.file, error);
  }
  const verdict = await report.check(pdf, keys);
  io.stdout.write(`${command.json ? JSON.stringify(verdict) : report.describe(verdict)}\n`);
  return verdict.valid ? EXIT_VALID : EXIT_INVALID;
}

export const USAGE = `Usage: ownproof-verify receipt [FILE] --jwks JWKS [--json] [--batch]
       ownproof-verify statement FILE --jwks JWKS [--json]

Checks, offline, an ownproof claim receipt or statement PDF against the issuer's keys, saved from its
/.well-known/jwks.json. FILE is a path, or - for stdin (a receipt's default).
  --json    print the verdict as JSON
  --batch   (receipt) one receipt per line in, one JSON verdict per line out

Exit status: 0 valid, 1 invalid, 2 bad usage (unreadable file or key set).
With --batch: 0 unless the input cannot be read.
`;

/** `ownproof-verify …`: resolves to the exit code. */
export async function runVerifyCli(argv: string[], io: VerifyIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { jwks: { type: 'string' }, json: { type: 'boolean' }, batch: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    return usage(io, error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(USAGE);
    return EXIT_VALID;
  }
  const [what, file, ...extra] = positionals;
  if (what !== 'receipt' && what !== 'statement')
    return usage(io, what === undefined ? 'say what to check: receipt or statement' : `unknown command ${what}: receipt or statement`);
  if (extra.length > 0) return usage(io, `one file at a time (also given: ${extra.join(' ')})`);
  if (values.jwks === undefined) return usage(io, "--jwks FILE is required: the issuer's keys, saved from its /.well-known/jwks.json");
  const name = `ownproof-verify ${what}`;
  if (what === 'receipt')
    return runReceiptCheck(io, { name, file: file ?? '-', jwks: values.jwks, json: values.json, batch: values.batch });
  if (file === undefined) return usage(io, 'give the statement PDF to check (or - for stdin)');
  if (values.batch) return usage(io, '--batch is for receipts');
  return runStatementCheck(io, { name, file, jwks: values.jwks, json: values.json });
}

function usage(io: VerifyIo, problem: string): number {
  io.stderr.write(`ownproof-verify: ${problem}\n\n${USAGE}`);
  return EXIT_USAGE;
}

/** The key set in `command.jwks` (a saved JWKS), or undefined after saying why it cannot be read. */
async function readKeySet(io: VerifyIo, command: ReceiptCommand | StatementCommand): Promise<VerificationKeys | undefined> {
  try {
    const jwks = JSON.parse(await readFile(command.jwks, 'utf8')) as JSONWebKeySet;
    if (!Array.isArray(jwks?.keys)) throw new Error('it has no "keys" array');
    return verificationKeys(jwks);
  } catch (error) {
    io.stderr.write(`${command.name}: cannot read the key set ${command.jwks}: ${message(error)}\n`);
    return undefined;
  }
}

function cannotRead(io: VerifyIo, command: { name: string }, file: string, error: unknown): number {
  io.stderr.write(`${command.name}: cannot read ${file}: ${message(error)}\n`);
  return EXIT_USAGE;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}
