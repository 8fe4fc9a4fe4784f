import type { PageSurface } from '../../platform/web/page-surface.js';
import { BROWSER_WALLET_SCRIPT } from '../../verify/claims/pages/proof.routes.js';
import { hostedConnectRoutes } from './hosted-connect.routes.js';
import { invalidLinkPage } from './link-pages.js';

/**
 * The hosted connect flow, at the path of CONNECT_BASE_URL (`/connect` by default; a host of its
 * own such as `https://connect.example.com/` mounts it at the root).
 */
export const connectPages: PageSurface = {
  id: 'connect',
  baseUrl: (config) => config.connectBaseUrl,
  footer: 'Secure account connection by ownproof.',
  stylesheet: new URL('./connect.css', import.meta.url),
  scripts: [BROWSER_WALLET_SCRIPT],
  notFoundPage: invalidLinkPage,
  routes: hostedConnectRoutes,
};
