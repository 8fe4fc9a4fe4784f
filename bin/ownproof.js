#!/usr/bin/env -S node --max-semi-space-size=32
// Node options: src/platform/node-flags.ts says which and why (a test keeps this line in step).
// The service runs its TypeScript sources directly through tsx (esbuild): no build step to forget.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
