#!/usr/bin/env node
// Runs the compiled JavaScript in dist/ (scripts/build.ts, run by `npm install`'s prepare step).
let cli;
try {
  cli = await import('../dist/main/cli.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.url ?? error.message).includes('/dist/main/cli.js')) throw error;
  process.stderr.write('ownproof: dist/ is missing: build it with `npm run build` (`npm install` does)\n');
  process.exit(1);
}
await cli.main();
