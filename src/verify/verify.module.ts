import { eventsOf } from '../platform/events/event-catalog.js';
import { defineModule } from '../platform/module.js';
import { createDepositWallets, type DepositWallets } from './claims/deposit-wallets.js';
import { accessRequestRoutes } from './access/access-request.routes.js';
import { accessTestHelperRoutes } from './access/access-test-helpers.routes.js';
import { AccessRequest } from './access/access-request.schemas.js';
import { expireAccessRequestJob, notifyAccessRequestJob, portalSignInMailJob } from './access/access-request.jobs.js';
import { claimPublicRoutes, claimRoutes } from './claims/claim.routes.js';
import { Claim } from './claims/claim.schemas.js';
import { documentCheckPages } from './pages/document-check.surface.js';
import { portalPages } from './access/portal/portal.surface.js';
import { generateStatementJob } from './statements/statement.jobs.js';
import { statementGeneration } from './statements/statement.metrics.js';
import { statementCheckRoutes, statementDocumentRoutes } from './statements/statement-document.routes.js';
import { statementRoutes } from './statements/statement.routes.js';
import { Statement } from './statements/statement.schemas.js';

declare module '../platform/context.js' {
  interface AppContext {
    /** Where deposit proofs are paid, per mode (the sandbox's deposit account; DEPOSIT_XPUB in live mode). */
    depositWallets: DepositWallets;
  }
}

/**
 * Verify: proofs of Bitcoin ownership (challenges), claims and their signed receipts, the keys
 * that sign them, checking a receipt online or offline, access requests and the portal, and
 * statements of shared claims and their PDFs.
 */
export const verifyModule = defineModule({
  name: 'verify',
  context: (ctx) => ({ depositWallets: createDepositWallets(ctx.config.depositXpub) }),
  apiRoutes: [claimRoutes, accessRequestRoutes, statementRoutes, statementDocumentRoutes, accessTestHelperRoutes],
  jobs: [notifyAccessRequestJob, expireAccessRequestJob, portalSignInMailJob, generateStatementJob],
  events: [
    ...eventsOf(Claim, {
      'claim.created':
        'A wallet was proven in your connect session and the person chose Done: the claim is now shared with you (sent with `session.completed`).',
      'claim.revoked': 'The account holder withdrew the claim: its `status` is `revoked`. Sent to every client it was shared with.',
      'claim.access_revoked':
        'The account holder stopped sharing the claim with you: `access.revoked_at` says when. Later reads of it are 404.',
    }),
    ...eventsOf(AccessRequest, {
      'access_request.granted':
        'The account holder approved the request: `claim_ids` are the claims now shared with you (the spec’s “access granted”).',
      'access_request.declined': 'The account holder declined the request.',
      'access_request.expired': 'Nobody answered the request by its `expires_at`.',
      'access_request.canceled': 'You canceled the request (`POST /v1/verify/access_requests/{id}/cancel`).',
      'access_request.notification_failed':
        'The request’s e-mail could not be delivered: `notification.status` is `failed`, with the mail server’s `last_error`.',
    }),
    ...eventsOf(Statement, {
      'statement.completed':
        'The statement is ready (the spec’s “statement completed”): `completed`, with its `summary`, `chain` and, when one was asked for, its ' +
        '`valuation`. Its PDF can be downloaded now.',
      'statement.failed': 'The statement could not be computed: `failed`, with its `failure_reason`. Generate a new one.',
    }),
  ],
  metrics: [statementGeneration],
  publicRoutes: [claimPublicRoutes, statementCheckRoutes],
  pages: [documentCheckPages, portalPages],
  openApiTags: [
    { name: 'Claims', description: 'Receipts of Bitcoin ownership that account holders shared with you, and checking any receipt.' },
    { name: 'Access requests', description: 'Asking account holders, by e-mail and through their portal, to share claims with you.' },
    {
      name: 'Statements',
      description: 'Statements of the confirmed Bitcoin activity of shared claims over a period, per month of a time zone.',
    },
  ],
});
