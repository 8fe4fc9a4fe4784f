import { eventsOf } from '../../platform/events/event-catalog.js';
import type { ModulePart } from '../../platform/module.js';
import { expireAccessRequestJob, notifyAccessRequestJob, portalSignInMailJob } from './access-request.jobs.js';
import { accessRequestRoutes } from './access-request.routes.js';
import { AccessRequest } from './access-request.schemas.js';
import { accessTestHelperRoutes } from './access-test-helpers.routes.js';
import { portalPages } from './portal/portal.surface.js';

/** Access: clients' requests to see claims, their e-mails, sharing and its withdrawal, and the account holder's portal. */
export const accessPart: ModulePart = {
  apiRoutes: [accessRequestRoutes],
  pages: [portalPages],
  jobs: [notifyAccessRequestJob, expireAccessRequestJob, portalSignInMailJob],
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
