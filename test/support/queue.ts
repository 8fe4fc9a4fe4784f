import type { AppContext } from '../../src/platform/context.js';

/** True when no job is running and none is due at the context's clock: background work has settled. */
export async function queueIdle(ctx: Pick<AppContext, 'db' | 'clock'>): Promise<boolean> {
  const now = ctx.clock.now();
  const busy = await ctx.db
    .selectFrom('jobs')
    .select('id')
    .where((eb) => eb.or([eb('status', '=', 'running'), eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', now)])]))
    .executeTakeFirst();
  return busy === undefined;
}
