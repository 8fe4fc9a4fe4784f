import type { Static, TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import { sql } from 'kysely';
import type { Db, DbCapabilities } from '../db/database.js';
import { decodeJson } from '../db/json-column.js';
import type { JobRow, JobStatus, NewJobRow } from './job.table.js';

/**
 * `jobs.payload`, read against the payload schema of the job's type (its catalog entry's compiled
 * check): one column, a schema per job type.
 */
export function jobPayload<S extends TSchema>(job: Pick<JobRow, 'id' | 'payload'>, check: TypeCheck<S>): Static<S> {
  return decodeJson(check, 'jobs', 'payload', job.id, job.payload);
}

export async function insertJob(db: Db, row: NewJobRow): Promise<void> {
  await db.insertInto('jobs').values(row).execute();
}

/** Inserts unless a job with the same dedupe key exists; true when inserted. */
export async function insertJobOnce(db: Db, row: NewJobRow): Promise<boolean> {
  const result = await db
    .insertInto('jobs')
    .values(row)
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/**
 * Atomically takes up to `limit` jobs of the given types, giving them a lease owned by `workerId`:
 * `due` — pending jobs whose run_at has come, oldest first; `abandoned` — running jobs whose lease
 * expired (their worker died). Each kind is its own statement so that each walks its index in order
 * instead of sorting every pending job on every claim.
 * PostgreSQL locks the candidate rows with SKIP LOCKED, so concurrent workers never take the same
 * job and never wait on each other. SQLite has one writer at a time, so the UPDATE is atomic.
 */
export async function claimJobs(
  db: Db,
  capabilities: DbCapabilities,
  input: { workerId: string; now: number; leaseMs: number; limit: number; types: string[]; kind: 'due' | 'abandoned' },
): Promise<JobRow[]> {
  const { workerId, now, leaseMs, limit, types } = input;
  if (limit <= 0 || types.length === 0) return [];
  let candidates =
    input.kind === 'due'
      ? db.selectFrom('jobs').select('seq').where('status', '=', 'pending').where('run_at', '<=', now).orderBy('run_at')
      : db.selectFrom('jobs').select('seq').where('status', '=', 'running').where('locked_until', '<', now).orderBy('locked_until');
  candidates = candidates.where('type', 'in', types).limit(limit);
  if (capabilities.supportsSkipLocked) candidates = candidates.forUpdate().skipLocked();
  return db
    .updateTable('jobs')
    .set({
      status: 'running',
      locked_by: workerId,
      locked_until: now + leaseMs,
      attempts: sql<number>`attempts + 1`,
      updated_at: now,
    })
    .where('seq', 'in', candidates)
    .returningAll()
    .execute();
}

/** Extends the lease of a job this worker still holds; false when it was lost to another worker. */
export async function renewLease(db: Db, input: { id: string; workerId: string; lockedUntil: number }): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ locked_until: input.lockedUntil })
    .where('id', '=', input.id)
    .where('locked_by', '=', input.workerId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Marks a held job finished (succeeded or dead) or schedules its next attempt (pending). */
export async function settleJob(
  db: Db,
  input: { id: string; workerId: string; status: JobStatus; now: number; runAt?: number; error?: string | null; attemptsDelta?: number },
): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({
      status: input.status,
      locked_by: null,
      locked_until: null,
      updated_at: input.now,
      ...(input.runAt === undefined ? {} : { run_at: input.runAt }),
      ...(input.error === undefined ? {} : { last_error: input.error }),
      ...(input.status === 'succeeded' || input.status === 'dead' ? { finished_at: input.now } : {}),
      ...(input.attemptsDelta ? { attempts: sql<number>`attempts + ${input.attemptsDelta}` } : {}),
    })
    .where('id', '=', input.id)
    .where('locked_by', '=', input.workerId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Marks jobs this worker holds as succeeded, in one statement; returns how many it still held. */
export async function settleSucceededJobs(db: Db, input: { ids: string[]; workerId: string; now: number }): Promise<number> {
  const result = await db
    .updateTable('jobs')
    .set({ status: 'succeeded', locked_by: null, locked_until: null, updated_at: input.now, finished_at: input.now, last_error: null })
    .where('id', 'in', input.ids)
    .where('locked_by', '=', input.workerId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function findJob(db: Db, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listJobs(db: Db, filter: { status?: JobStatus; type?: string; limit: number }): Promise<JobRow[]> {
  let query = db.selectFrom('jobs').selectAll().orderBy('seq', 'desc').limit(filter.limit);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.type) query = query.where('type', '=', filter.type);
  return query.execute();
}

/** Puts a dead job back in the queue for a fresh set of attempts. */
export async function retryDeadJob(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ status: 'pending', attempts: 0, run_at: now, updated_at: now, finished_at: null })
    .where('id', '=', id)
    .where('status', '=', 'dead')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes succeeded jobs finished before `before`; dead jobs are kept for people to look at. */
export async function purgeSucceededJobs(db: Db, before: number): Promise<number> {
  const result = await db.deleteFrom('jobs').where('status', '=', 'succeeded').where('finished_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The queue by job type and state, for the metrics. */
export interface QueueStateRow {
  type: string;
  /** `queued`: pending and due; `scheduled`: pending with run_at to come (expiries, retry delays); `running`; `dead`. */
  state: 'queued' | 'scheduled' | 'running' | 'dead';
  count: number;
  /** Milliseconds: when the oldest of them became due (queued), was claimed (running), or was last touched. */
  since: number;
}

/**
 * Counts the jobs every worker shares, by type and state, with the oldest of each: one grouped
 * read over the `(status, run_at)` index (succeeded jobs, the bulk of the table, are not read).
 */
export async function readQueueStates(db: Db, now: number): Promise<QueueStateRow[]> {
  const state = sql<
    QueueStateRow['state']
  >`case when status = 'pending' and run_at > ${now} then 'scheduled' when status = 'pending' then 'queued' else status end`;
  return (
    db
      .selectFrom('jobs')
      .select((eb) => [
        'type',
        state.as('state'),
        eb.fn.countAll<number>().as('count'),
        eb.fn.min<number>(sql`case when status = 'pending' then run_at else updated_at end`).as('since'),
      ])
      .where('status', 'in', ['pending', 'running', 'dead'])
      // By the output column: the same expression written twice would carry two parameters, which
      // PostgreSQL does not take for one expression.
      .groupBy(['type', sql`state`])
      .execute()
  );
}
