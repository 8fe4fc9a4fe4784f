import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Config } from '../config/config.js';
import type { SafeHtml } from './html.js';
import type { LayoutInput } from './layout.js';

/** A page a route renders: its status, and what goes into the layout. */
export interface PageContent extends Omit<LayoutInput, 'testMode'> {
  status: number;
  title: string;
  body: SafeHtml;
}

/** Per-response choices when sending a page. */
export interface SendPageOptions {
  /** Shows the "Test mode" badge. */
  testMode?: boolean;
  /**
   * Origins the page's forms may lead to after a redirect (Chromium applies the CSP's form-action
   * to the redirect that follows a form POST); `'self'` is always allowed.
   */
  formActionOrigins?: readonly string[];
  /**
   * Includes the kit's script (`assets/web.js`: copy buttons), for progressive enhancement only:
   * the page's CSP then allows `script-src 'self'` (never inline), and the page must work without it.
   */
  script?: boolean;
}

/** What a surface's routes get from the page kit. */
export interface PageKit {
  /** The path the surface is mounted at, without a trailing slash ('' at the root). */
  prefix: string;
  /** Sends a page in the surface's layout (the security headers are already set). */
  send(reply: FastifyReply, page: PageContent, options?: SendPageOptions): FastifyReply;
}

/**
 * A set of server-rendered pages under one prefix: the hosted connect flow, the account-holder
 * portal, the public verification page. The page kit wraps every surface the same way: form body
 * parsing, CSRF (double submit), the page security headers, HTML error and not-found pages, the
 * shared layout and stylesheet. Routes use `app.csrfProtection` as the preHandler of form POSTs
 * and `reply.generateCsrf()` for the token their forms carry (see `csrfField`).
 */
export interface PageSurface {
  /** Short lowercase name, unique among surfaces: names the CSRF cookie and log lines. */
  id: string;
  /** Where the surface is served: its path becomes the prefix, and https makes its cookies Secure. */
  baseUrl(config: Config): string;
  /** Whether this configuration serves the surface at all (default: always); one not served is not mounted nor announced. */
  servedIn?(config: Config): boolean;
  /** Shown beside the brand in the header; absent to show the brand alone. */
  surfaceName?: string;
  /** The footer line of every page. */
  footer: string;
  /** Styles of this surface's own components, appended to the kit's stylesheet. */
  stylesheet?: URL;
  /**
   * Progressive enhancements of this surface's components, appended to the kit's script (served
   * only to pages sent with `script: true`; every page must work without them).
   */
  scripts?: readonly URL[];
  /** The page for unknown paths under the prefix; default: the kit's "Page not found". */
  notFoundPage?(): PageContent;
  routes: FastifyPluginAsync<{ kit: PageKit }>;
}
