import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // As tsconfig.json's `paths`: the service and the tests run @ownproof/verify from its sources.
  resolve: { alias: { '@ownproof/verify': fileURLToPath(new URL('./packages/verify/src/index.ts', import.meta.url)) } },
  test: {
    include: [
      'src/**/*.test.ts',
      'test/**/*.test.ts',
      'scripts/**/*.test.ts',
      'examples/*/test/**/*.test.ts',
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
    ],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Vitest's default (CPUs − 1) runs the files one at a time on a 2-core machine: 583 s for the
    // suite; two workers there took 481 s with every test passing (2026-11-24).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
