import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../http/errors.js';
import { badRequestPage, forbiddenPage, notFoundPage, serverErrorPage, tooManyRequestsPage } from './error-pages.js';
import { CSRF_FIELD, firstString } from './form-values.js';
import { renderPage, type SurfaceLayout } from './layout.js';
import { PAGE_HEADERS, pageCsp } from './page-headers.js';
import type { PageKit, PageSurface } from './page-surface.js';
import { surfaceScript, surfaceStylesheet } from './stylesheet.js';

/** Form bodies are a few short fields; a long wallet descriptor is a few kilobytes. */
const FORM_BODY_LIMIT = 64 * 1024;
const CSRF_FAILURES = new Set(['FST_CSRF_MISSING_SECRET', 'FST_CSRF_INVALID_TOKEN']);

/** A surface as the app sees it once mounted. */
export interface MountedSurface {
  /** The path it is mounted at ('' at the root). */
  prefix: string;
  /**
   * Sends its not-found page with the page headers, for a URL under the prefix that the router
   * turned away before the surface's hooks and not-found handler could run.
   */
  sendNotFound(reply: FastifyReply): FastifyReply;
}

/** The path a surface is mounted at: its base URL's path without a trailing slash ('' at the root). */
export function surfacePrefix(baseUrl: string): string {
  return new URL(baseUrl).pathname.replace(/\/+$/, '');
}

/**
 * Mounts a page surface under its prefix, wrapped in the kit. Everything browser-specific stays
 * inside the surface's plugin context: the `application/x-www-form-urlencoded` parser (the API
 * keeps refusing anything but JSON), cookies and CSRF tokens, the document security headers, and
 * HTML error and not-found pages instead of the API's JSON. Each surface has its own CSRF cookie,
 * scoped to its path, so two surfaces never read each other's.
 */
export async function registerPageSurface(app: FastifyInstance, surface: PageSurface): Promise<MountedSurface> {
  const baseUrl = new URL(surface.baseUrl(app.ctx.config));
  const prefix = surfacePrefix(baseUrl.href);
  const secure = baseUrl.protocol === 'https:';
  const stylesheet = surfaceStylesheet(surface.stylesheet);
  const script = surfaceScript(surface.scripts);
  const layout: SurfaceLayout = {
    stylesheet: `${prefix}/assets/${stylesheet.file}`,
    script: `${prefix}/assets/${script.file}`,
    footer: surface.footer,
    ...(surface.surfaceName ? { surfaceName: surface.surfaceName } : {}),
  };
  const kit: PageKit = {
    prefix,
    send(reply, page, options = {}) {
      const withScript = options.script === true;
      if (options.formActionOrigins?.length || withScript)
        reply.header('content-security-policy', pageCsp(options.formActionOrigins, { script: withScript }));
      const { status, ...content } = page;
      return reply
        .status(status)
        .type('text/html; charset=utf-8')
        .send(renderPage(layout, { ...content, testMode: options.testMode ?? false, script: withScript }));
    },
  };
  const sendNotFound = (reply: FastifyReply) => kit.send(reply, surface.notFoundPage?.() ?? notFoundPage());

  await app.register(
    async (pages) => {
      pages.removeAllContentTypeParsers();
      await pages.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
      await pages.register(cookie);
      await pages.register(csrf, {
        // `__Secure-` makes browsers refuse the cookie from a plain-http origin that could plant it.
        cookieKey: `${secure ? '__Secure-' : ''}ownproof_${surface.id}_csrf`,
        cookieOpts: { path: prefix || '/', httpOnly: true, sameSite: 'lax', secure },
        // Only from the form body: these pages have no script that could send a header.
        getToken: (request) => firstString((request.body as Record<string, unknown> | undefined)?.[CSRF_FIELD]),
      });

      pages.addHook('onRequest', (_request, reply, done) => {
        reply.headers(PAGE_HEADERS);
        done();
      });

      pages.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
        if (error.code && CSRF_FAILURES.has(error.code)) {
          request.log.info({ code: error.code, surface: surface.id }, 'form refused: CSRF check failed');
          return kit.send(reply, forbiddenPage());
        }
        // Our own errors (the platform's hooks: rate limits, request text) carry their status and
        // headers (Retry-After) as the API's error handler reads them; Fastify's and plugins' carry statusCode.
        const status = error instanceof ApiError ? error.status : (error.statusCode ?? 500);
        if (status >= 400 && status < 500) {
          request.log.info({ code: error.code, status, surface: surface.id }, 'page request rejected');
          if (!(error instanceof ApiError)) return kit.send(reply, badRequestPage(status));
          reply.headers(error.headers);
          const retryAfter = Number(error.headers['retry-after']);
          return kit.send(
            reply,
            status === 429 && retryAfter > 0 ? tooManyRequestsPage(retryAfter) : badRequestPage(status, error.message),
          );
        }
        request.log.error({ err: error, surface: surface.id }, 'page request failed');
        return kit.send(reply, serverErrorPage(request.id));
      });

      // A not-found handler belongs to a prefix; at the root ('') the API's JSON handler answers instead.
      if (prefix !== '') {
        pages.setNotFoundHandler((_request, reply) => sendNotFound(reply));
      }

      pages.get(`/assets/${stylesheet.file}`, { schema: { hide: true } }, async (_request, reply) =>
        reply.header('cache-control', 'public, max-age=31536000, immutable').type('text/css; charset=utf-8').send(stylesheet.body),
      );
      pages.get(`/assets/${script.file}`, { schema: { hide: true } }, async (_request, reply) =>
        reply.header('cache-control', 'public, max-age=31536000, immutable').type('text/javascript; charset=utf-8').send(script.body),
      );

      await pages.register(surface.routes, { kit });
    },
    { prefix },
  );
  return { prefix, sendNotFound: (reply) => sendNotFound(reply.headers(PAGE_HEADERS)) };
}
