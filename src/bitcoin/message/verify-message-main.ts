import { Command } from 'commander';
import { registerVerifyMessageCommand } from './cli.js';

// Stand-alone entry for the verify-message command (used by the end-to-end test, and handy
// before the main `ownproof` CLI wires it in): node --import tsx src/bitcoin/message/verify-message-main.ts verify-message --batch
const program = new Command('verify-message-main');
registerVerifyMessageCommand(program);
await program.parseAsync(process.argv);
