import type { Static, TSchema } from '@sinclair/typebox';
import { newId } from '../crypto/random.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { encodeJson } from '../db/json-column.js';
import { payloadCheck, type JobDeclaration } from './catalog.js';
import { insertJob, insertJobOnce } from './job.repository.js';

export interface EnqueueOptions {
  /** Milliseconds since the epoch; default now. */
  runAt?: number;
  /** At most one job is ever created with this key; a second enqueue is a no-op. */
  dedupeKey?: string;
}

/**
 * Adds a job. Pass the transaction of the change that needs the job, so both commit or neither does.
 * Returns the job id, or undefined when the dedupe key was already used.
 */
export async function enqueueJob<S extends TSchema>(
  db: Db,
  clock: Clock,
  definition: JobDeclaration<S>,
  payload: Static<S>,
  options: EnqueueOptions = {},
): Promise<string | undefined> {
  // Checked before anything is written: a payload its handler could not read is refused here.
  const text = encodeJson(payloadCheck(definition), `jobs.payload of job ${definition.type}`, payload);
  const now = clock.now();
  const row = {
    id: newId('job'),
    type: definition.type,
    payload: text,
    status: 'pending' as const,
    run_at: options.runAt ?? now,
    attempts: 0,
    max_attempts: definition.maxAttempts,
    locked_by: null,
    locked_until: null,
    last_error: null,
    dedupe_key: options.dedupeKey ?? null,
    created_at: now,
    updated_at: now,
    finished_at: null,
  };
  if (options.dedupeKey === undefined) {
    await insertJob(db, row);
    return row.id;
  }
  return (await insertJobOnce(db, row)) ? row.id : undefined;
}
