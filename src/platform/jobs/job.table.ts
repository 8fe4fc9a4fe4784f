import type { Generated, Insertable, Selectable } from 'kysely';

export type JobStatus = 'pending' | 'running' | 'succeeded' | 'dead';

/** All times in this table are milliseconds since the epoch (leases and retry delays need them). */
export interface JobTable {
  seq: Generated<number>;
  id: string;
  type: string;
  /** JSON payload, validated against the job type's schema when enqueued and when run. */
  payload: string;
  status: JobStatus;
  /** Milliseconds since the epoch: when the job may next run. */
  run_at: number;
  attempts: number;
  max_attempts: number;
  /** Worker holding the lease while running. */
  locked_by: string | null;
  /** Milliseconds: a running job whose lease passed this is taken again by any worker. */
  locked_until: number | null;
  last_error: string | null;
  /** At most one job ever carries a given key (e.g. one webhook fan-out per event). */
  dedupe_key: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

export type JobRow = Selectable<JobTable>;
export type NewJobRow = Insertable<JobTable>;

export interface JobsTables {
  jobs: JobTable;
}
