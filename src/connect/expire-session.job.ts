import { Type } from '@sinclair/typebox';
import { defineJob, lazyModule } from '../platform/jobs/catalog.js';

const sessionRepository = lazyModule(() => import('./session.repository.js'));
const sessionService = lazyModule(() => import('./session.service.js'));

/** Abandons a session that is still open at its deadline (enqueued when the session is created). */
export const expireSessionJob = defineJob({
  type: 'connect.expire_session',
  payload: Type.Object({ session_id: Type.String() }),
  maxAttempts: 10,
  timeoutMs: 30_000,
  async run(payload, run) {
    const { findSessionById } = await sessionRepository();
    const { expireIfDue } = await sessionService();
    const row = await findSessionById(run.ctx.db, payload.session_id);
    if (!row) return;
    const after = await expireIfDue(run.ctx, row);
    // A worker whose clock runs a little behind retries instead of leaving the session open.
    if (after.status === 'open') throw new Error('session not due to expire yet');
  },
});
