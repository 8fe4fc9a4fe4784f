import { Type } from '@sinclair/typebox';
import { defineJob, lazyModule } from '../../platform/jobs/catalog.js';

const accessRequests = lazyModule(() => import('./access-request.service.js'));
const repository = lazyModule(() => import('./access-request.repository.js'));
const mail = lazyModule(() => import('./verify-mail.js'));

/** Expires a request still pending at its deadline (enqueued when the request is created). */
export const expireAccessRequestJob = defineJob({
  type: 'verify.expire_access_request',
  payload: Type.Object({ access_request_id: Type.String() }),
  maxAttempts: 10,
  timeoutMs: 30_000,
  async run(payload, run) {
    const { findAccessRequestById } = await repository();
    const { expireIfDue } = await accessRequests();
    const row = await findAccessRequestById(run.ctx.db, payload.access_request_id);
    if (!row) return;
    const after = await expireIfDue(run.ctx, row);
    // A worker whose clock runs a little behind retries instead of leaving the request pending.
    if (after.status === 'pending') throw new Error('access request not due to expire yet');
  },
});

/** Attempts at the request e-mail: with the default backoff, retries go on for about two hours. */
export const NOTIFY_MAX_ATTEMPTS = 12;

/** E-mails the account holder about a new request; the outcome shows on the request (`notification`). */
export const notifyAccessRequestJob = defineJob({
  type: 'verify.notify_access_request',
  payload: Type.Object({ access_request_id: Type.String() }),
  maxAttempts: NOTIFY_MAX_ATTEMPTS,
  timeoutMs: 60_000,
  async run(payload, run) {
    const { sendAccessRequestMail } = await mail();
    await sendAccessRequestMail(run.ctx, payload.access_request_id, { lastAttempt: run.attempt >= NOTIFY_MAX_ATTEMPTS, log: run.log });
  },
});

/** E-mails a portal sign-in link to whoever has this address, if anyone does (the sign-in page answers the same either way). */
export const portalSignInMailJob = defineJob({
  type: 'verify.portal_sign_in_mail',
  payload: Type.Object({ email: Type.String(), access_request_id: Type.Optional(Type.String()) }),
  // A sign-in link is wanted now; after a few minutes the person asks again.
  maxAttempts: 3,
  timeoutMs: 60_000,
  async run(payload, run) {
    const { sendSignInMail } = await mail();
    await sendSignInMail(run.ctx, payload, { log: run.log });
  },
});
