import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Db } from '../../src/platform/db/database.js';
import { defineJob } from '../../src/platform/jobs/catalog.js';

/**
 * Job types for queue tests. They write what they did into `job_effects`, a table the tests create,
 * so a test can see whether, how often and by whom a job ran.
 */
export async function createEffectsTable(db: Db): Promise<void> {
  await sql`create table job_effects (job_id text not null, label text not null, phase text not null, worker text not null)`.execute(db);
}

export async function effects(db: Db): Promise<{ job_id: string; label: string; phase: string; worker: string }[]> {
  const result = await sql<{ job_id: string; label: string; phase: string; worker: string }>`select * from job_effects`.execute(db);
  return result.rows;
}

async function note(db: Db, jobId: string, label: string, phase: string): Promise<void> {
  await sql`insert into job_effects (job_id, label, phase, worker) values (${jobId}, ${label}, ${phase}, ${String(process.pid)})`.execute(
    db,
  );
}

/** Records one 'done' row per run. */
export const recordJob = defineJob({
  type: 'test.record',
  payload: Type.Object({ label: Type.String() }),
  maxAttempts: 3,
  timeoutMs: 10_000,
  async run(payload, run) {
    await note(run.ctx.db, run.jobId, payload.label, 'done');
  },
});

/**
 * Notes 'started', waits `ms`, then records 'done' — idempotently: a second run after a crash adds
 * another 'started' but 'done' is written only if absent, as a real handler would check its effect.
 */
export const slowRecordJob = defineJob({
  type: 'test.slow_record',
  payload: Type.Object({ label: Type.String(), ms: Type.Integer() }),
  maxAttempts: 5,
  timeoutMs: 60_000,
  retryDelayMs: () => 0,
  async run(payload, run) {
    await note(run.ctx.db, run.jobId, payload.label, 'started');
    await new Promise((resolve) => setTimeout(resolve, payload.ms));
    const done = await sql<{ n: number }>`select count(*) as n from job_effects where job_id = ${run.jobId} and phase = 'done'`.execute(
      run.ctx.db,
    );
    if (Number(done.rows[0]?.n) === 0) await note(run.ctx.db, run.jobId, payload.label, 'done');
  },
});

/** Fails until its attempt number reaches `succeedOn`. */
export const flakyJob = defineJob({
  type: 'test.flaky',
  payload: Type.Object({ label: Type.String(), succeedOn: Type.Integer() }),
  maxAttempts: 3,
  timeoutMs: 10_000,
  retryDelayMs: (attempt) => attempt * 1000,
  async run(payload, run) {
    if (run.attempt < payload.succeedOn) throw new Error(`attempt ${run.attempt} failed (sk_test_${'S'.repeat(32)})`);
    await note(run.ctx.db, run.jobId, payload.label, 'done');
  },
});

/** Never finishes on its own: for timeouts. */
export const hangingJob = defineJob({
  type: 'test.hang',
  payload: Type.Object({}),
  maxAttempts: 1,
  timeoutMs: 200,
  async run(_payload, run) {
    await new Promise((_resolve, reject) => run.signal.addEventListener('abort', () => reject(run.signal.reason)));
  },
});

export const TEST_JOBS = [recordJob, slowRecordJob, flakyJob, hangingJob];
