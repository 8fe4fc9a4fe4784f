import { defineModule } from '../platform/module.js';
import { claimPublicRoutes, claimRoutes } from './claim.routes.js';
import { registerVerifyCommands } from './verify.cli.js';

/**
 * Verify: proofs of Bitcoin ownership (challenges), claims and their signed receipts, the keys
 * that sign them, and checking a receipt online or offline.
 */
export const verifyModule = defineModule({
  name: 'verify',
  apiRoutes: [claimRoutes],
  publicRoutes: [claimPublicRoutes],
  commands: registerVerifyCommands,
  openApiTags: [{ name: 'Claims', description: 'Receipts of Bitcoin ownership that account holders shared with you, and checking any receipt.' }],
});
