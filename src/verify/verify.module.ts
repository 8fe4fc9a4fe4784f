import { defineModule } from '../platform/module.js';
import { createDepositWallets, type DepositWallets } from './deposit-wallets.js';
import { accessRequestRoutes } from './access-request.routes.js';
import { expireAccessRequestJob, notifyAccessRequestJob, portalSignInMailJob } from './access-request.jobs.js';
import { claimPublicRoutes, claimRoutes } from './claim.routes.js';
import { documentCheckPages } from './pages/document-check.surface.js';
import { portalPages } from './portal/portal.surface.js';
import { generateStatementJob } from './statement.jobs.js';
import { statementGeneration } from './statement.metrics.js';
import { statementCheckRoutes, statementDocumentRoutes } from './statement-document.routes.js';
import { statementRoutes } from './statement.routes.js';
import { registerVerifyCommands } from './verify.cli.js';

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
  apiRoutes: [claimRoutes, accessRequestRoutes, statementRoutes, statementDocumentRoutes],
  jobs: [notifyAccessRequestJob, expireAccessRequestJob, portalSignInMailJob, generateStatementJob],
  metrics: [statementGeneration],
  publicRoutes: [claimPublicRoutes, statementCheckRoutes],
  pages: [documentCheckPages, portalPages],
  commands: registerVerifyCommands,
  openApiTags: [
    { name: 'Claims', description: 'Receipts of Bitcoin ownership that account holders shared with you, and checking any receipt.' },
    { name: 'Access requests', description: 'Asking account holders, by e-mail and through their portal, to share claims with you.' },
    { name: 'Statements', description: 'Statements of the confirmed Bitcoin activity of shared claims over a period, per month of a time zone.' },
  ],
});
