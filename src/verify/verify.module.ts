import { composeModule } from '../platform/module.js';
import { accessPart, accessTestHelpersPart } from './access/access.module-part.js';
import { claimsPart } from './claims/claims.module-part.js';
import { documentCheckPages } from './pages/document-check.surface.js';
import { statementsPart } from './statements/statements.module-part.js';

/**
 * Verify, in three subdomains that each declare their part (`<subdomain>.module-part.ts`):
 * `claims/` (proofs of Bitcoin ownership, claims, receipts and the keys that sign them), `access/`
 * (access requests, sharing and the portal) and `statements/` (statements of shared claims and
 * their PDFs). `pages/` is the public document check (`/verify`), which checks receipts and
 * statement PDFs alike.
 */
export const verifyModule = composeModule({ name: 'verify' }, [
  // First, as before the split: surfaces are mounted in this order.
  { pages: [documentCheckPages] },
  claimsPart,
  accessPart,
  statementsPart,
  accessTestHelpersPart,
]);
