import { html } from './html.js';
import type { PageContent } from './page-surface.js';

/** Unknown paths under a surface that has no not-found page of its own. */
export function notFoundPage(): PageContent {
  return {
    status: 404,
    title: 'Page not found',
    body: html`<h1>Page not found</h1>
<p class="lead">The page you asked for doesn’t exist. The link may be mistyped or incomplete.</p>`,
  };
}

/** The CSRF check failed: a form from elsewhere, or cookies blocked. Nothing was changed. */
export function forbiddenPage(): PageContent {
  return {
    status: 403,
    title: 'Request refused',
    body: html`<h1>Your request couldn’t be verified</h1>
<p class="lead">Nothing was changed. For your security, this page only accepts forms it sent itself.</p>
<p>Go back, reload the page and try again. If it keeps happening, make sure your browser allows cookies for this site.</p>`,
  };
}

/**
 * A request we cannot read (wrong body type, too large, a broken upload, text no store can hold).
 * `detail` is the API error's message when there is one: written for whoever sent the request.
 */
export function badRequestPage(status: number, detail?: string): PageContent {
  return {
    status,
    title: 'Request not understood',
    body: html`<h1>Something was wrong with that request</h1>
<p class="lead">Nothing was changed. Go back, reload the page and try again.</p>
${detail === undefined ? '' : html`<p class="muted small">${detail}</p>`}`,
  };
}

/** Over a rate limit: when to try again (the Retry-After header says the same to programs). */
export function tooManyRequestsPage(retryAfterSeconds: number): PageContent {
  return {
    status: 429,
    title: 'Too many requests',
    body: html`<h1>Too many requests</h1>
<p class="lead">This page was asked for too often from your address in a short time. Nothing was changed.</p>
<p>Wait ${String(retryAfterSeconds)} second${retryAfterSeconds === 1 ? '' : 's'}, then try again.</p>`,
  };
}

/** Our fault. The reference lets support find the log entry without the user sharing the link. */
export function serverErrorPage(requestId: string): PageContent {
  return {
    status: 500,
    title: 'Something went wrong',
    body: html`<h1>Something went wrong on our side</h1>
<p class="lead">Please go back and try again in a moment.</p>
<p class="muted small">Reference: <span class="code">${requestId}</span></p>`,
  };
}
