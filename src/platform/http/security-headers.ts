import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * Security headers computed once by helmet and then copied onto every response. helmet's own
 * middleware re-derives the same headers on each request, which cost more than the rest of our
 * request handling for a small API call; the headers do not depend on the request, so we ask
 * helmet once and reuse its answer.
 */
export function securityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
      return response;
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown;
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    failure = error;
  });
  if (failure) throw failure;
  return headers;
}

/**
 * Headers for the JSON API: nothing may load, embed or frame a response. The headers that only
 * matter for HTML documents (or only for browsers long gone: X-XSS-Protection, X-Download-Options)
 * are left to the HTML pages, which set the full helmet set.
 */
export const API_SECURITY_HEADERS = securityHeaders({
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});
