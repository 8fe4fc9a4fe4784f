import type { Db } from '../db/database.js';
import { defineGauge, defineHistogram, type CollectDeps, type GaugeSample } from '../metrics/metric.js';
import { readQueueStates, type QueueStateRow } from './job.repository.js';

export const jobRunDuration = defineHistogram({
  name: 'ownproof_job_run_duration_seconds',
  help: 'Job runs in this worker, by job type and outcome: succeeded, retried (failed, to run again after a delay), dead (failed for the last time), interrupted (handed back at shutdown).',
  labelNames: ['type', 'outcome'],
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 30, 60, 180, 600],
});

/**
 * Both queue gauges come from one read of the jobs table at each scrape, by whichever process is
 * scraped: every worker of every process shares the table, so each reports the whole queue
 * (aggregate them with max, not sum). Both gauges collect at once in a scrape; the second reuses
 * the first's read.
 */
const reading = new WeakMap<Db, Promise<{ rows: QueueStateRow[]; now: number }>>();
function queueStates(deps: CollectDeps): Promise<{ rows: QueueStateRow[]; now: number }> {
  let read = reading.get(deps.db);
  if (!read) {
    const now = deps.clock.now();
    read = readQueueStates(deps.db, now)
      .then((rows) => ({ rows, now }))
      .finally(() => reading.delete(deps.db));
    reading.set(deps.db, read);
  }
  return read;
}

export const jobsInQueue = defineGauge({
  name: 'ownproof_jobs',
  help: 'Jobs in the shared queue (the database, not this process), by job type and state: queued (due, waiting for a worker), scheduled (to run later: expiries, retry delays), running, dead (out of attempts, kept until retried).',
  labelNames: ['type', 'state'],
  async collect(deps) {
    const { rows } = await queueStates(deps);
    return rows.map((row): GaugeSample<'type' | 'state'> => ({ labels: { type: row.type, state: row.state }, value: row.count }));
  },
});

export const oldestJobAge = defineGauge({
  name: 'ownproof_jobs_oldest_age_seconds',
  help: 'Age of the oldest job in the shared queue, by job type and state: queued (how long it has been due without a worker taking it), running (how long since it was claimed).',
  labelNames: ['type', 'state'],
  async collect(deps) {
    const { rows, now } = await queueStates(deps);
    return rows
      .filter((row) => row.state === 'queued' || row.state === 'running')
      .map((row): GaugeSample<'type' | 'state'> => ({
        labels: { type: row.type, state: row.state },
        value: Math.max(0, now - row.since) / 1000,
      }));
  },
});
