import type { Command } from 'commander';
import type { CliDeps } from '../platform/cli.js';
import { registerKeyCommands } from '../platform/crypto/keys.cli.js';
import { registerJobsCommands } from '../platform/jobs/jobs.cli.js';
import { registerClientCommands } from '../clients/clients.cli.js';
import { registerVerifyMessageCommand } from '../bitcoin/message/cli.js';
import { registerSandboxCommands } from '../bitcoin/sandbox/sandbox.cli.js';
import { registerVerifyCommands } from '../verify/verify.cli.js';
import { registerProcessCommands } from './process.cli.js';

/** Adds some of `ownproof`'s commands to the program. */
export type CommandRegistrar = (program: Command, cli: CliDeps) => void;

/**
 * Every `ownproof` command, in the order `--help` lists them: the processes (serve, worker,
 * migrate), then each module's commands, in module order. A registrar only declares its commands
 * (names, options, help); each action imports the code it runs when it runs, so `--help` loads this
 * table and commander, and `verify-claim` adds only what checking a receipt takes — never the HTTP
 * server, the database drivers or the logger. Adding a module with commands is one line here.
 */
export const COMMANDS: readonly CommandRegistrar[] = [
  registerProcessCommands,
  registerJobsCommands,
  registerKeyCommands,
  registerClientCommands,
  registerVerifyMessageCommand,
  registerSandboxCommands,
  registerVerifyCommands,
];
