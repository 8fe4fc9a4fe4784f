import { Type } from '@sinclair/typebox';
import { declareJob } from '../platform/jobs/catalog.js';

/** Abandons a session that is still open at its deadline (enqueued when the session is created; run by `connect.module.ts`). */
export const expireSessionJob = declareJob({
  type: 'connect.expire_session',
  payload: Type.Object({ session_id: Type.String() }),
  maxAttempts: 10,
  timeoutMs: 30_000,
});
