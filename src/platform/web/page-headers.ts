import { securityHeaders } from '../http/security-headers.js';

/**
 * Headers for every HTML page except the Content-Security-Policy, which depends on the page (see
 * `pageCsp`). The full helmet set, unlike the API's subset: these responses are documents a
 * browser renders, so framing, sniffing and cross-origin isolation all matter.
 */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  ...securityHeaders({ contentSecurityPolicy: false, xFrameOptions: { action: 'deny' } }),
  // The hosted URL carries the session secret: never cache it, never let a shared cache keep it.
  'cache-control': 'no-store',
};

/**
 * The pages' policy: only our own stylesheet, no scripts (unless the page asks for its surface's
 * one script: then `script-src 'self'`, still never inline), no framing, and forms that post
 * only to us. `formActionOrigins` adds the origin of the session's return URL: Chromium applies
 * form-action to the redirect that follows a form POST, so without it the 303 to the return URL
 * after Done or Cancel would be blocked. Only http(s) origins can be listed; other return URLs
 * (custom app schemes) are offered as a link instead of a redirect.
 */
export function pageCsp(formActionOrigins: readonly string[] = [], options: { script?: boolean } = {}): string {
  return [
    "default-src 'none'",
    ...(options.script ? ["script-src 'self'"] : []),
    "style-src 'self'",
    "img-src 'self' data:",
    `form-action ${["'self'", ...formActionOrigins].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** Every page's headers, built once: pages that need another policy (a return URL's origin) set their own when sent. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = { ...PAGE_SECURITY_HEADERS, 'content-security-policy': pageCsp() };
