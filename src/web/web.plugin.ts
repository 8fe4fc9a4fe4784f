import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import { hostedConnectRoutes } from './connect/hosted-connect.routes.js';
import { firstString } from './form-values.js';
import { badRequestPage, forbiddenPage, notFoundPage, serverErrorPage } from './error-pages.js';
import { PAGE_HEADERS } from './page-headers.js';
import { sendPage } from './send-page.js';
import { STYLESHEET } from './stylesheet.js';

/** Form bodies are a few short fields; a long wallet descriptor is a few kilobytes. */
const FORM_BODY_LIMIT = 64 * 1024;
const CSRF_FAILURES = new Set(['FST_CSRF_MISSING_SECRET', 'FST_CSRF_INVALID_TOKEN']);

/**
 * The path the pages live under: the path of CONNECT_BASE_URL, without a trailing slash ('' when
 * the connect base URL is a host of its own, such as https://connect.example.com/).
 */
export function webPagesPrefix(connectBaseUrl: string): string {
  return new URL(connectBaseUrl).pathname.replace(/\/+$/, '');
}

/**
 * Server-rendered pages (the hosted connect flow), registered at the root of the app under
 * `webPagesPrefix(connectBaseUrl)`. Everything a browser-facing page needs stays inside this
 * plugin: form bodies (the API keeps refusing anything but JSON), cookies and CSRF tokens, the
 * document security headers, and HTML error and not-found pages instead of the API's JSON.
 */
export const webPages: FastifyPluginAsync = async (app) => {
  const prefix = app.prefix;
  const secure = new URL(app.ctx.config.connectBaseUrl).protocol === 'https:';
  const stylesheet = `${prefix}/assets/${STYLESHEET.file}`;

  app.removeAllContentTypeParsers();
  await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  await app.register(cookie);
  await app.register(csrf, {
    // `__Secure-` makes browsers refuse the cookie from a plain-http origin that could plant it.
    cookieKey: secure ? '__Secure-ownproof_csrf' : 'ownproof_csrf',
    cookieOpts: { path: prefix || '/', httpOnly: true, sameSite: 'lax', secure },
    // Only from the form body: these pages have no script that could send a header.
    getToken: (request) => firstString((request.body as Record<string, unknown> | undefined)?._csrf),
  });

  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(PAGE_HEADERS);
    done();
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.code && CSRF_FAILURES.has(error.code)) {
      request.log.info({ code: error.code }, 'form refused: CSRF check failed');
      return sendPage(reply, forbiddenPage(), { stylesheet });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      request.log.info({ code: error.code, status }, 'page request rejected');
      return sendPage(reply, badRequestPage(status), { stylesheet });
    }
    request.log.error({ err: error }, 'page request failed');
    return sendPage(reply, serverErrorPage(request.id), { stylesheet });
  });

  // A not-found handler belongs to a prefix; at the root ('') the API's JSON handler answers instead.
  if (prefix !== '') {
    app.setNotFoundHandler((_request, reply) => sendPage(reply, notFoundPage(), { stylesheet }));
  }

  app.get(`/assets/${STYLESHEET.file}`, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .type('text/css; charset=utf-8')
      .send(STYLESHEET.body),
  );

  await app.register(hostedConnectRoutes, { prefix: '', stylesheet });
};
