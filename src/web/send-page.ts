import type { FastifyReply } from 'fastify';
import type { SafeHtml } from './html.js';
import { renderPage } from './layout.js';
import { pageCsp } from './page-headers.js';

export interface PageContent {
  status: number;
  title: string;
  body: SafeHtml;
}

/**
 * Sends a page inside the shared layout. The security headers were set by the web plugin's
 * onRequest hook; only the CSP is per page, when its forms may lead to the session's return URL.
 */
export function sendPage(
  reply: FastifyReply,
  page: PageContent,
  options: { stylesheet: string; testMode?: boolean; formActionOrigins?: readonly string[] },
): FastifyReply {
  if (options.formActionOrigins?.length) reply.header('content-security-policy', pageCsp(options.formActionOrigins));
  return reply
    .status(page.status)
    .type('text/html; charset=utf-8')
    .send(renderPage({ title: page.title, body: page.body, stylesheet: options.stylesheet, testMode: options.testMode ?? false }));
}
