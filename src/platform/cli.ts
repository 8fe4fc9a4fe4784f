import type { Readable, Writable } from 'node:stream';
import { InvalidArgumentError, type Command } from 'commander';
import type { Config } from './config/config.js';
import type { Runtime } from './runtime.js';

/**
 * What a module's `ownproof` commands get from the CLI (`src/main/commands.ts`): the configuration
 * and the runtime on demand, the process's streams, and the two ways to end — a result printed, or
 * one line of failure with exit code 1. A command imports the code it runs inside its action
 * (`await import(…)`), so `ownproof --help` and the commands that need no database load none of it.
 */
export interface CliDeps {
  /** The configuration from the environment (throws ConfigError naming the first wrong variable). */
  config(): Config;
  /** Opens the database and context, runs `fn`, closes them again. */
  withRuntime<T>(fn: (runtime: Runtime) => Promise<T>): Promise<T>;
  /** One line on stdout. */
  print(text: string): void;
  /** Ends the command with `ownproof: <message>` on stderr and exit code 1. */
  fail(message: string): never;
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** The exit code once the command finished without throwing (e.g. 1 for "signature invalid"). */
  setExitCode(code: number): void;
}

/** A failure to report as one line on stderr, with exit code 1 (`CliDeps.fail` throws it). */
export class CliFailure extends Error {}

/**
 * The command group `name` (`ownproof keys …`), made by whichever module adds to it first, so
 * several modules can put commands in one group (commander refuses a second command of one name).
 */
export function commandGroup(program: Command, name: string, description: string): Command {
  return program.commands.find((command) => command.name() === name) ?? program.command(name).description(description);
}

/** Commander parser for a whole number in [min, max], rejecting anything else with `message`. */
export function wholeNumber(message: string, min = 0, max = Infinity): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) throw new InvalidArgumentError(message);
    return n;
  };
}

/** Everything a stream (stdin) holds. */
export async function readBytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/** Everything a stream (stdin) holds, as UTF-8 text. */
export async function readText(stream: Readable): Promise<string> {
  return (await readBytes(stream)).toString('utf8');
}
