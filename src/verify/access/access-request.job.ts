import { Type } from '@sinclair/typebox';
import { declareJob } from '../../platform/jobs/catalog.js';

/** Expires a request still pending at its deadline (enqueued when the request is created). */
export const expireAccessRequestJob = declareJob({
  type: 'verify.expire_access_request',
  payload: Type.Object({ access_request_id: Type.String() }),
  maxAttempts: 10,
  timeoutMs: 30_000,
});

/** Attempts at the request e-mail: with the default backoff, retries go on for about two hours. */
export const NOTIFY_MAX_ATTEMPTS = 12;

/** E-mails the account holder about a new request; the outcome shows on the request (`notification`). */
export const notifyAccessRequestJob = declareJob({
  type: 'verify.notify_access_request',
  payload: Type.Object({ access_request_id: Type.String() }),
  maxAttempts: NOTIFY_MAX_ATTEMPTS,
  timeoutMs: 60_000,
});

/** E-mails a portal sign-in link to whoever has this address, if anyone does (the sign-in page answers the same either way). */
export const portalSignInMailJob = declareJob({
  type: 'verify.portal_sign_in_mail',
  payload: Type.Object({ email: Type.String(), access_request_id: Type.Optional(Type.String()) }),
  // A sign-in link is wanted now; after a few minutes the person asks again.
  maxAttempts: 3,
  timeoutMs: 60_000,
});
