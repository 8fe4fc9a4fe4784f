import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * Test files that run in a process of their own; every other file shares its worker's module graph
 * (below). The initialization-failure tests replace a module of ours with `vi.mock` (to make a page
 * fail to build). binance.test.ts measures the spacing of calls as its in-process fake receives
 * them (≥ 90 ms apart); in a worker that had run other files it once saw two 8 ms apart (a full
 * run, 2026-11-28), likely a pause of the shared process (a larger heap, longer GC) recording two
 * arrivals together. A fresh process keeps that measurement as it was before workers were shared.
 */
const OWN_MODULE_GRAPH = ['src/connect/pages/initialization-failure*.test.ts', 'src/connect/providers/binance.test.ts'];

/** What both projects share; the global set-up is the root's, so it runs once for both. */
const project = (test: TestProjectInlineConfiguration['test']): TestProjectInlineConfiguration => ({
  // As tsconfig.json's `paths`: the service and the tests run @ownproof/verify from its sources.
  resolve: { alias: { '@ownproof/verify': fileURLToPath(new URL('./packages/verify/src/index.ts', import.meta.url)) } },
  test: { pool: 'forks', testTimeout: 30_000, hookTimeout: 60_000, ...test },
});

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // Vitest's default (CPUs − 1) runs the files one at a time on a 2-core machine: 583 s for the
    // suite; two workers there took 481 s with every test passing (2026-11-24).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default'],
    projects: [
      project({
        name: 'shared',
        include: [
          'src/**/*.test.ts',
          'test/**/*.test.ts',
          'scripts/**/*.test.ts',
          'examples/*/test/**/*.test.ts',
          'packages/*/src/**/*.test.ts',
          'packages/*/test/**/*.test.ts',
        ],
        exclude: OWN_MODULE_GRAPH,
        // The files a worker runs share one module graph: the service's modules load once per
        // worker instead of once per file (docs/architecture.md, "Tests").
        isolate: false,
      }),
      project({ name: 'isolated', include: OWN_MODULE_GRAPH }),
    ],
  },
});
