#!/usr/bin/env node
import { runVerifyCli } from './commands.js';

process.exitCode = await runVerifyCli(process.argv.slice(2), process);
