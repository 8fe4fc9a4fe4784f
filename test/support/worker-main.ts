/**
 * A real worker process for queue tests: the production Worker and runtime, with the test job
 * types. Environment: DATABASE_URL, LEASE_MS, CONCURRENCY.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { service } from '../../src/main/modules.js';
import { loadConfig } from '../../src/platform/config/config.js';
import { JobCatalog } from '../../src/platform/jobs/catalog.js';
import { Worker } from '../../src/platform/jobs/worker.js';
import { TEST_JOBS } from './test-jobs.js';

const config = loadConfig({
  ...process.env,
  DATA_DIR: mkdtempSync(path.join(tmpdir(), 'ownproof-worker-')),
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
});
const runtime = await service.openRuntime(config);
const worker = new Worker(runtime.ctx, new JobCatalog(TEST_JOBS), {
  leaseMs: Number(process.env.LEASE_MS ?? 30_000),
  concurrency: Number(process.env.CONCURRENCY ?? 16),
  pollIntervalMs: 50,
});
worker.start();
process.stdout.write(`WORKER_READY ${worker.id}\n`);
process.once('SIGTERM', () => {
  void worker.stop(Number(process.env.STOP_GRACE_MS ?? 10_000)).then(async () => {
    await runtime.close();
    process.exit(0);
  });
});
