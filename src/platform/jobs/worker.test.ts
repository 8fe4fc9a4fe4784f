import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseEnv, runOwnproofHere, startNodeProcess } from '../../../test/support/cli-process.js';
import { TestClock } from '../../../test/support/clock.js';
import { until } from '../../../test/support/eventually.js';
import { createTestDatabase, engines, type TestDatabase } from '../../../test/support/database.js';
import { TEST_MASTER_KEY_BYTES, testConfig } from '../../../test/support/test-app.js';
import { createEffectsTable, effects, flakyJob, hangingJob, recordJob, slowRecordJob, TEST_JOBS } from '../../../test/support/test-jobs.js';
import type { AppContext } from '../context.js';
import { openSecretBox } from '../crypto/secret-box.js';
import { service } from '../../main/modules.js';
import { testDatabaseUrl } from '../../../test/support/postgres.js';
import { JobCatalog } from './catalog.js';
import { enqueueJob } from './enqueue.js';
import { claimJobs, findJob } from './job.repository.js';
import { Worker, type WorkerOptions } from './worker.js';

const WORKER_MAIN = path.resolve(import.meta.dirname, '../../../test/support/worker-main.ts');
const silent = pino({ level: 'silent' });

describe.each(engines())('job queue on %s', (engine) => {
  let database: TestDatabase;
  let ctx: AppContext;
  const clock = new TestClock();
  const workers: Worker[] = [];
  const startWorker = (options: WorkerOptions = {}) => {
    const worker = new Worker(ctx, new JobCatalog(TEST_JOBS), { pollIntervalMs: 20, log: silent, ...options });
    workers.push(worker);
    worker.start();
    return worker;
  };
  const job = (id: string | undefined) => findJob(ctx.db, id as string);

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    await createEffectsTable(database.handle.db);
    ctx = service.createContext({
      config: testConfig(),
      database: database.handle,
      clock,
      secretBox: await openSecretBox(database.handle.db, { current: TEST_MASTER_KEY_BYTES }, clock),
    });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop(100)));
    await database.destroy();
  });

  it('runs a job enqueued in a committed transaction, and never one whose transaction rolled back', async () => {
    const committed = await ctx.db.transaction().execute((trx) => enqueueJob(trx, clock, recordJob, { label: 'committed' }));
    let rolledBack: string | undefined;
    await expect(
      ctx.db.transaction().execute(async (trx) => {
        rolledBack = await enqueueJob(trx, clock, recordJob, { label: 'rolled-back' });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    const worker = startWorker();
    await until(
      () => job(committed),
      (row) => row?.status === 'succeeded',
    );
    expect(await job(rolledBack)).toBeUndefined();
    expect((await effects(ctx.db)).filter((e) => e.label === 'committed')).toHaveLength(1);
    expect((await effects(ctx.db)).some((e) => e.label === 'rolled-back')).toBe(false);
    await worker.stop();
  });

  it('refuses a payload that does not match the job type', async () => {
    await expect(enqueueJob(ctx.db, clock, recordJob, { label: 42 } as never)).rejects.toThrow(
      /jobs\.payload of job test\.record that does not fit its schema: \/label /,
    );
  });

  it("retries a failing job after the job type's delay, keeping the error (secrets redacted) until it succeeds", async () => {
    const worker = startWorker();
    const id = await enqueueJob(ctx.db, clock, flakyJob, { label: 'flaky', succeedOn: 3 });
    const first = await until(
      () => job(id),
      (row) => row?.attempts === 1 && row.status === 'pending',
    );
    expect(first?.last_error).toContain('attempt 1 failed');
    expect(first?.last_error).not.toContain('SSSS');
    expect(first!.run_at - clock.now()).toBeGreaterThan(500);
    // Not due yet: nothing happens until the delay has passed.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await job(id))?.attempts).toBe(1);
    clock.advance(1);
    await until(
      () => job(id),
      (row) => row?.attempts === 2 && row.status === 'pending',
    );
    clock.advance(2);
    const done = await until(
      () => job(id),
      (row) => row?.status === 'succeeded',
    );
    expect(done).toMatchObject({ attempts: 3, last_error: null, locked_by: null });
    await worker.stop();
  });

  it('marks a job dead after its last attempt and keeps it, with the error', async () => {
    const worker = startWorker();
    const id = await enqueueJob(ctx.db, clock, flakyJob, { label: 'doomed', succeedOn: 99 });
    for (let attempt = 1; attempt < 3; attempt++) {
      await until(
        () => job(id),
        (row) => row?.attempts === attempt && row.status === 'pending',
      );
      clock.advance(attempt);
    }
    const dead = await until(
      () => job(id),
      (row) => row?.status === 'dead',
    );
    expect(dead).toMatchObject({ attempts: 3, max_attempts: 3 });
    expect(dead?.last_error).toContain('attempt 3 failed');
    expect(dead?.finished_at).not.toBeNull();
    await worker.stop();
  });

  it('shows dead jobs with `ownproof jobs list` and queues one again with `ownproof jobs retry`', async () => {
    const worker = startWorker();
    const id = await enqueueJob(ctx.db, clock, flakyJob, { label: 'cli-dead', succeedOn: 99 });
    for (let attempt = 1; attempt < 3; attempt++) {
      await until(
        () => job(id),
        (row) => row?.attempts === attempt && row.status === 'pending',
      );
      clock.advance(attempt);
    }
    await until(
      () => job(id),
      (row) => row?.status === 'dead',
    );
    await worker.stop();
    const env = databaseEnv(database.config);
    const listed = await runOwnproofHere(['jobs', 'list', '--status', 'dead', '--type', 'test.flaky', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows.find((r) => r.id === id)).toMatchObject({
      status: 'dead',
      attempts: 3,
      max_attempts: 3,
      last_error: expect.stringContaining('attempt 3 failed'),
    });
    const retried = await runOwnproofHere(['jobs', 'retry', id as string], env);
    expect(retried).toMatchObject({ code: 0, stdout: `Job ${id} is queued again.\n` });
    expect(await job(id)).toMatchObject({ status: 'pending', attempts: 0 });
    const again = await runOwnproofHere(['jobs', 'retry', id as string], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`ownproof: no dead job with id ${id}\n`);
    // Leave nothing runnable behind for the next tests.
    await ctx.db
      .updateTable('jobs')
      .set({ status: 'dead' })
      .where('id', '=', id as string)
      .execute();
  });

  it('finishes a running job on SIGTERM before the worker process exits', async () => {
    const worker = startNodeProcess(['--import', 'tsx', WORKER_MAIN], { ...databaseEnv(database.config), STOP_GRACE_MS: '10000' });
    await worker.waitForLine(/^WORKER_READY/);
    const id = await enqueueJob(ctx.db, { now: () => Date.now() }, slowRecordJob, { label: 'sigterm', ms: 1_000 });
    await until(
      () => effects(ctx.db),
      (rows) => rows.some((r) => r.job_id === id && r.phase === 'started'),
    );
    expect(await worker.stop('SIGTERM')).toBe(0);
    expect(await job(id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect((await effects(ctx.db)).filter((r) => r.job_id === id).map((r) => r.phase)).toEqual(['started', 'done']);
  });

  it('aborts a job that runs past its timeout and counts it as a failure', async () => {
    const worker = startWorker();
    const id = await enqueueJob(ctx.db, clock, hangingJob, {});
    const dead = await until(
      () => job(id),
      (row) => row?.status === 'dead',
    );
    expect(dead?.last_error).toBe('timed out after 200 ms');
    await worker.stop();
  });

  it('takes over a job whose worker vanished, once its lease has expired', async () => {
    const id = await enqueueJob(ctx.db, clock, recordJob, { label: 'orphan' });
    const taken = await claimJobs(ctx.db, ctx.capabilities, {
      workerId: 'ghost',
      now: clock.now(),
      leaseMs: 60_000,
      limit: 100,
      types: ['test.record'],
      kind: 'due',
    });
    expect(taken.map((j) => j.id)).toContain(id);
    const worker = startWorker();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await job(id))?.locked_by).toBe('ghost');
    clock.advance(61);
    const done = await until(
      () => job(id),
      (row) => row?.status === 'succeeded',
    );
    expect(done?.attempts).toBe(2);
    expect((await effects(ctx.db)).filter((e) => e.job_id === id)).toHaveLength(1);
    await worker.stop();
  });

  it('creates at most one job per dedupe key', async () => {
    const first = await enqueueJob(ctx.db, clock, recordJob, { label: 'once' }, { dedupeKey: 'once-key' });
    const second = await enqueueJob(ctx.db, clock, recordJob, { label: 'once' }, { dedupeKey: 'once-key' });
    expect(first).toMatch(/^job_/);
    expect(second).toBeUndefined();
  });

  it('hands unfinished jobs back to the queue when stopped, without counting the attempt', async () => {
    const worker = startWorker();
    const id = await enqueueJob(ctx.db, clock, slowRecordJob, { label: 'handed-back', ms: 1_500 });
    await until(
      () => job(id),
      (row) => row?.status === 'running',
    );
    await worker.stop(100);
    expect(await job(id)).toMatchObject({ status: 'pending', attempts: 0, locked_by: null });
    const next = startWorker();
    await until(
      () => job(id),
      (row) => row?.status === 'succeeded',
      20_000,
    );
    await next.stop();
  });

  it('survives kill -9 mid-job: the job is taken again after its lease and done exactly once', async () => {
    const env = { ...databaseEnv(database.config), LEASE_MS: '1000' };
    const first = startNodeProcess(['--import', 'tsx', WORKER_MAIN], env);
    await first.waitForLine(/^WORKER_READY/);
    const id = await enqueueJob(ctx.db, { now: () => Date.now() }, slowRecordJob, { label: 'crash', ms: 1_500 });
    await until(
      () => effects(ctx.db),
      (rows) => rows.some((r) => r.job_id === id && r.phase === 'started'),
    );
    expect(await first.stop('SIGKILL')).toBeNull();
    expect((await job(id))?.status).toBe('running');

    const second = startNodeProcess(['--import', 'tsx', WORKER_MAIN], env);
    try {
      await second.waitForLine(/^WORKER_READY/);
      const done = await until(
        () => job(id),
        (row) => row?.status === 'succeeded',
        20_000,
      );
      expect(done?.attempts).toBe(2);
      const rows = (await effects(ctx.db)).filter((r) => r.job_id === id);
      expect(rows.filter((r) => r.phase === 'started')).toHaveLength(2);
      expect(rows.filter((r) => r.phase === 'done')).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });
});

describe.skipIf(!testDatabaseUrl())('two worker processes on PostgreSQL', () => {
  it('complete 1,000 jobs, each exactly once, none lost', async () => {
    const database = await createTestDatabase('postgres');
    const processes = [] as ReturnType<typeof startNodeProcess>[];
    try {
      await createEffectsTable(database.handle.db);
      const clock = { now: () => Date.now() };
      await database.handle.db.transaction().execute(async (trx) => {
        for (let i = 0; i < 1000; i++) await enqueueJob(trx, clock, recordJob, { label: `bulk-${i}` });
      });
      for (let i = 0; i < 2; i++) {
        processes.push(startNodeProcess(['--import', 'tsx', WORKER_MAIN], { ...databaseEnv(database.config), CONCURRENCY: '8' }));
      }
      await Promise.all(processes.map((p) => p.waitForLine(/^WORKER_READY/)));
      const rows = await until(
        () => effects(database.handle.db),
        (r) => r.length >= 1000,
        60_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 300)); // a double run would land by now
      const final = await effects(database.handle.db);
      expect(final).toHaveLength(1000);
      expect(new Set(final.map((r) => r.job_id)).size).toBe(1000);
      expect(new Set(rows.map((r) => r.worker)).size).toBe(2);
      const statuses = await database.handle.db.selectFrom('jobs').select('status').execute();
      expect(statuses.every((s) => s.status === 'succeeded')).toBe(true);
    } finally {
      await Promise.all(processes.map((p) => p.stop()));
      await database.destroy();
    }
  }, 90_000);
});
