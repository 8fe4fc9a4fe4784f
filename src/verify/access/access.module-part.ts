import { eventsOf } from '../../platform/events/event-catalog.js';
import { defineJob } from '../../platform/jobs/catalog.js';
import type { ModulePart } from '../../platform/module.js';
import { expireAccessRequestJob, NOTIFY_MAX_ATTEMPTS, notifyAccessRequestJob, portalSignInMailJob } from './access-request.job.js';
import { findAccessRequestById } from './access-request.repository.js';
import { accessRequestRoutes } from './access-request.routes.js';
import { AccessRequest } from './access-request.schemas.js';
import { accessTestHelperRoutes } from './access-test-helpers.routes.js';
import { expireIfDue } from './access-request.service.js';
import { portalPages } from './portal/portal.surface.js';
import { sendAccessRequestMail, sendSignInMail } from './verify-mail.js';

/** The expiry job's handler (exported for tests that run this job alone in a worker). */
export const expireAccessRequest = defineJob({
  ...expireAccessRequestJob,
  async run(payload, run) {
    const row = await findAccessRequestById(run.ctx.db, payload.access_request_id);
    if (!row) return;
    const after = await expireIfDue(run.ctx, row);
    // A worker whose clock runs a little behind retries instead of leaving the request pending.
    if (after.status === 'pending') throw new Error('access request not due to expire yet');
  },
});

const notifyAccessRequest = defineJob({
  ...notifyAccessRequestJob,
  async run(payload, run) {
    await sendAccessRequestMail(run.ctx, payload.access_request_id, { lastAttempt: run.attempt >= NOTIFY_MAX_ATTEMPTS, log: run.log });
  },
});

const portalSignInMail = defineJob({
  ...portalSignInMailJob,
  async run(payload, run) {
    await sendSignInMail(run.ctx, payload, { log: run.log });
  },
});

/** Access: clients' requests to see claims, their e-mails, sharing and its withdrawal, and the account holder's portal. */
export const accessPart: ModulePart = {
  apiRoutes: [accessRequestRoutes],
  pages: [portalPages],
  jobs: [notifyAccessRequest, expireAccessRequest, portalSignInMail],
  events: eventsOf(AccessRequest, {
    'access_request.granted':
      'The account holder approved the request: `claim_ids` are the claims now shared with you (the spec’s “access granted”).',
    'access_request.declined': 'The account holder declined the request.',
    'access_request.expired': 'Nobody answered the request by its `expires_at`.',
    'access_request.canceled': 'You canceled the request (`POST /v1/verify/access_requests/{id}/cancel`).',
    'access_request.notification_failed':
      'The request’s e-mail could not be delivered: `notification.status` is `failed`, with the mail server’s `last_error`.',
  }),
  openApiTags: [
    { name: 'Access requests', description: 'Asking account holders, by e-mail and through their portal, to share claims with you.' },
  ],
};

/** Test mode's stand-ins for the account holder (approve, decline, revoke): listed after every other part's routes, as each module lists its test helpers last. */
export const accessTestHelpersPart: ModulePart = { apiRoutes: [accessTestHelperRoutes] };
