#!/usr/bin/env node
// The service runs its TypeScript sources directly through tsx (esbuild): no build step to forget.
import { register } from 'tsx/esm/api';

register();
await import('../src/main/cli.ts');
