import type { AppContext } from '../../src/platform/context.js';

/**
 * True when no job is running and none is due at the context's clock: background work has settled.
 * The clock is read after the query, not before: a job queued while the query waited (by a job that
 * finished meanwhile) is due at its queueing time, which a time read before would put in the future,
 * and the queue would look idle with that job waiting (seen on a loaded machine, PostgreSQL).
 */
export async function queueIdle(ctx: Pick<AppContext, 'db' | 'clock'>): Promise<boolean> {
  const waiting = await ctx.db.selectFrom('jobs').select(['status', 'run_at']).where('status', 'in', ['running', 'pending']).execute();
  const now = ctx.clock.now();
  return waiting.every((job) => job.status === 'pending' && Number(job.run_at) > now);
}
