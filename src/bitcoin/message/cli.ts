import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import type { VerificationResult, verifyMessage } from './verify-message.js';

/** Streams and exit hook of the command, injectable for tests. */
export interface VerifyMessageIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Records the exit status; the default sets `process.exitCode` (the process ends on its own). */
  setExitCode: (code: number) => void;
}

/** Single mode: the signature is valid. */
export const EXIT_VALID = 0;
/** Single mode: invalid or inconclusive. */
export const EXIT_INVALID = 1;
/** Bad usage (missing options) or unreadable input. */
export const EXIT_USAGE = 2;

const FORMAT_NAMES: Record<string, string> = {
  'bip322-simple': 'BIP-322 simple',
  'bip322-full': 'BIP-322 full',
  'bip322-pof': 'BIP-322 proof of funds',
  legacy: 'legacy signmessage',
};

/** One human-readable line for a verdict. */
export function describeResult(address: string, r: VerificationResult): string {
  const what = [r.format ? FORMAT_NAMES[r.format] : null, r.address_type?.toUpperCase(), r.network].filter(Boolean).join(', ');
  const suffix = what ? ` (${what})` : '';
  if (r.valid) {
    const notes = [
      r.time_lock ? ` Valid at time ${r.time_lock.lock_time} and age ${r.time_lock.sequence}.` : '',
      r.proven_outputs ? ` Proves ${r.proven_outputs.length} more output(s); check them on chain.` : '',
    ].join('');
    return `VALID: the signature proves control of ${address}${suffix}.${notes}`;
  }
  return `${r.result.toUpperCase()}: ${r.reason}${suffix}`;
}

function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (err) => (err ? reject(err) : resolve()));
  });
}

function malformedLine(lineNumber: number, problem: string): VerificationResult {
  return {
    valid: false,
    result: 'invalid',
    format: null,
    address_type: null,
    network: null,
    reason: `input line ${lineNumber}: ${problem}`,
  };
}

/** Parses one batch line into a verdict with `verify`; never throws. */
function verifyBatchLine(verify: typeof verifyMessage, line: string, lineNumber: number): VerificationResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return malformedLine(lineNumber, 'not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return malformedLine(lineNumber, 'expected a JSON object {"address","message","signature"}');
  }
  const { address, message, signature } = parsed as Record<string, unknown>;
  for (const [name, value] of [
    ['address', address],
    ['message', message],
    ['signature', signature],
  ] as const) {
    if (typeof value !== 'string') return malformedLine(lineNumber, `"${name}" must be a string`);
  }
  return verify({ address: address as string, message: message as string, signature: signature as string });
}

/**
 * Batch mode: one JSON object per input line, one JSON verdict per output line, in order.
 * Blank lines are skipped. Invalid signatures and malformed lines are verdicts, not errors.
 */
export async function runBatch(io: Pick<VerifyMessageIo, 'stdin' | 'stdout'>): Promise<void> {
  const { verifyMessage } = await import('./verify-message.js');
  const lines = createInterface({ input: io.stdin, crlfDelay: Infinity });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === '') continue;
    await write(io.stdout, JSON.stringify(verifyBatchLine(verifyMessage, line, lineNumber)) + '\n');
  }
}

interface Options {
  address?: string;
  message?: string;
  signature?: string;
  json?: boolean;
  batch?: boolean;
}

/**
 * Adds `verify-message` to a commander program:
 *
 *   verify-message --address A --message M --signature S [--json]
 *     exit 0 when valid, 1 when invalid or inconclusive, 2 on bad usage
 *   verify-message --batch
 *     reads {"address","message","signature"} JSON lines on stdin, writes one JSON verdict per
 *     line on stdout in the same order, exits 0 whatever the verdicts
 *
 * The network is taken from each address.
 */
export function registerVerifyMessageCommand(program: Command, io: Partial<VerifyMessageIo> = {}): Command {
  const streams: VerifyMessageIo = {
    stdin: io.stdin ?? process.stdin,
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    setExitCode:
      io.setExitCode ??
      ((code) => {
        process.exitCode = code;
      }),
  };
  return program
    .command('verify-message')
    .description('Verify a Bitcoin signed message (BIP-322 simple/full/proof of funds, or legacy signmessage)')
    .option('--address <address>', 'the address that signed (its network is used)')
    .option('--message <message>', 'the exact message that was signed')
    .option('--signature <signature>', 'the base64 signature, optionally with a smp/ful/pof prefix')
    .option('--json', 'print the result as JSON')
    .option('--batch', 'read {"address","message","signature"} JSON lines on stdin, write one JSON result per line')
    .addHelpText(
      'after',
      '\nExit status: 0 valid, 1 invalid or inconclusive, 2 bad usage. With --batch: 0 unless the input cannot be read.',
    )
    .action(async (opts: Options) => {
      if (opts.batch) {
        try {
          await runBatch(streams);
          streams.setExitCode(EXIT_VALID);
        } catch (e) {
          await write(streams.stderr, `verify-message: cannot read the batch input: ${e instanceof Error ? e.message : String(e)}\n`);
          streams.setExitCode(EXIT_USAGE);
        }
        return;
      }
      const missing = (['address', 'message', 'signature'] as const).filter((k) => opts[k] === undefined);
      if (missing.length > 0) {
        await write(streams.stderr, `verify-message: missing ${missing.map((m) => `--${m}`).join(', ')} (or use --batch)\n`);
        streams.setExitCode(EXIT_USAGE);
        return;
      }
      const { verifyMessage } = await import('./verify-message.js');
      const result = verifyMessage({ address: opts.address!, message: opts.message!, signature: opts.signature! });
      await write(streams.stdout, (opts.json ? JSON.stringify(result) : describeResult(opts.address!, result)) + '\n');
      streams.setExitCode(result.valid ? EXIT_VALID : EXIT_INVALID);
    });
}
