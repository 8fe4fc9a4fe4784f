import { defineModule } from '../platform/module.js';
import { createDepositWallets, type DepositWallets } from './deposit-wallets.js';
import { accessRequestRoutes } from './access-request.routes.js';
import { expireAccessRequestJob, notifyAccessRequestJob, portalSignInMailJob } from './access-request.jobs.js';
import { claimPublicRoutes, claimRoutes } from './claim.routes.js';
import { receiptCheckPages } from './pages/receipt-check.surface.js';
import { portalPages } from './portal/portal.surface.js';
import { registerVerifyCommands } from './verify.cli.js';

declare module '../platform/context.js' {
  interface AppContext {
    /** Where deposit proofs are paid, per mode (the sandbox's deposit account; DEPOSIT_XPUB in live mode). */
    depositWallets: DepositWallets;
  }
}

/**
 * Verify: proofs of Bitcoin ownership (challenges), claims and their signed receipts, the keys
 * that sign them, and checking a receipt online or offline.
 */
export const verifyModule = defineModule({
  name: 'verify',
  context: (ctx) => ({ depositWallets: createDepositWallets(ctx.config.depositXpub) }),
  apiRoutes: [claimRoutes, accessRequestRoutes],
  jobs: [notifyAccessRequestJob, expireAccessRequestJob, portalSignInMailJob],
  publicRoutes: [claimPublicRoutes],
  pages: [receiptCheckPages, portalPages],
  commands: registerVerifyCommands,
  openApiTags: [
    { name: 'Claims', description: 'Receipts of Bitcoin ownership that account holders shared with you, and checking any receipt.' },
    { name: 'Access requests', description: 'Asking account holders, by e-mail and through their portal, to share claims with you.' },
  ],
});
