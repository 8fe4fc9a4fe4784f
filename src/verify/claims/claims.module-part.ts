import { eventsOf } from '../../platform/events/event-catalog.js';
import type { ModulePart } from '../../platform/module.js';
import { claimPublicRoutes, claimRoutes } from './claim.routes.js';
import { Claim } from './claim.schemas.js';
import { createDepositWallets, type DepositWallets } from './deposit-wallets.js';

declare module '../../platform/context.js' {
  interface AppContext {
    /** Where deposit proofs are paid, per mode (the sandbox's deposit account; DEPOSIT_XPUB in live mode). */
    depositWallets: DepositWallets;
  }
}

/**
 * Claims: proofs of Bitcoin ownership (challenges), claims and their signed receipts, the keys that
 * sign them and checking a receipt. The proof pages (`pages/`) are mounted by connect and the portal.
 */
export const claimsPart: ModulePart = {
  context: (ctx) => ({ depositWallets: createDepositWallets(ctx.config.depositXpub) }),
  apiRoutes: [claimRoutes],
  publicRoutes: [claimPublicRoutes],
  events: eventsOf(Claim, {
    'claim.created':
      'A wallet was proven in your connect session and the person chose Done: the claim is now shared with you (sent with `session.completed`).',
    'claim.revoked': 'The account holder withdrew the claim: its `status` is `revoked`. Sent to every client it was shared with.',
    'claim.access_revoked':
      'The account holder stopped sharing the claim with you: `access.revoked_at` says when. Later reads of it are 404.',
  }),
  openApiTags: [
    { name: 'Claims', description: 'Receipts of Bitcoin ownership that account holders shared with you, and checking any receipt.' },
  ],
};
