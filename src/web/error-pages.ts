import { html } from './html.js';
import type { PageContent } from './send-page.js';

const START_AGAIN = html`<p>If an app or website sent you here, go back to it and start again: it will give you a new link.</p>`;

/**
 * Unknown or malformed links. The same page for every unknown secret, so it tells nothing about
 * which links exist.
 */
export function notFoundPage(): PageContent {
  return {
    status: 404,
    title: 'Page not found',
    body: html`<h1>This link isn’t valid</h1>
<p class="lead">The page you asked for doesn’t exist. The link may be mistyped or incomplete.</p>
${START_AGAIN}`,
  };
}

/**
 * A link whose session ended (completed, cancelled or expired). One page for all of them: whoever
 * holds an old link learns only that it no longer works.
 */
export function goneNotice(): PageContent {
  return {
    status: 410,
    title: 'Link no longer valid',
    body: html`<h1>This link has expired</h1>
<p class="lead">This connection link was already used or is too old, so it can’t be used any more.</p>
${START_AGAIN}`,
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

/** A request we cannot read (wrong body type, too large). */
export function badRequestPage(status: number): PageContent {
  return {
    status,
    title: 'Request not understood',
    body: html`<h1>Something was wrong with that request</h1>
<p class="lead">Nothing was changed. Go back, reload the page and try again.</p>`,
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
