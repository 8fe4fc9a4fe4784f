import type { PageSurface } from '../../../platform/web/page-surface.js';
import { BROWSER_WALLET_SCRIPT } from '../../claims/pages/proof.routes.js';
import { portalBaseUrl } from './portal-auth.service.js';
import { portalRoutes } from './portal.routes.js';

/**
 * The account-holder portal at `PUBLIC_BASE_URL/portal`: people sign in with an e-mail link to
 * answer access requests, see who has access to their claims, and revoke it.
 */
export const portalPages: PageSurface = {
  id: 'portal',
  baseUrl: portalBaseUrl,
  surfaceName: 'Portal',
  footer: 'Your Bitcoin ownership proofs, shared only as you decide. ownproof never asks for private keys or recovery words.',
  stylesheet: new URL('./portal.css', import.meta.url),
  scripts: [BROWSER_WALLET_SCRIPT],
  routes: portalRoutes,
};
