import { html } from '../../platform/web/html.js';
import type { PageContent } from '../../platform/web/page-surface.js';
import type { EndedSession } from '../hosted-flow.service.js';

const START_AGAIN = html`<p>If an app or website sent you here, go back to it and start again: it will give you a new link.</p>`;

/**
 * Unknown or malformed links. The same page for every unknown secret, so it tells nothing about
 * which links exist.
 */
export function invalidLinkPage(): PageContent {
  return {
    status: 404,
    title: 'Page not found',
    body: html`<h1>This link isn’t valid</h1>
<p class="lead">The page you asked for doesn’t exist. The link may be mistyped or incomplete.</p>
${START_AGAIN}`,
  };
}

/**
 * A session the person accepted in another browser (or on another device): only that one goes
 * on, so whoever else holds the link — the client that made it, too — cannot act for the person.
 */
export function otherBrowserPage(): PageContent {
  return {
    status: 403,
    title: 'Open in another browser',
    body: html`<h1>This connection is open in another browser</h1>
<p class="lead">It was started in another browser or on another device, and only that one can go on with it.</p>
<p>Go back to the browser where you started, or, if that is not possible, go back to the app or website that sent you here and start again.</p>`,
  };
}

/**
 * A link whose session ended, by how it ended and nothing else (no client, no account), since
 * whoever holds the link sees it: completed — the person pressed Done (and is back, by the back
 * button or a reload), so they are told they are done; abandoned — cancelled or expired, one page
 * for both.
 */
export function endedLinkPage(ended: EndedSession): PageContent {
  return ended.status === 'completed' ? doneLinkPage() : expiredLinkPage();
}

function doneLinkPage(): PageContent {
  return {
    status: 200,
    title: 'Done',
    body: html`<h1>You’re done</h1>
<p class="success" role="status">This connection is complete: nothing more is needed from you here.</p>
<p>You can close this tab, or go back to the app or website that sent you here.</p>`,
  };
}

/** A link that can't be used any more: a cancelled or expired session. */
function expiredLinkPage(): PageContent {
  return {
    status: 410,
    title: 'Link no longer valid',
    body: html`<h1>This link has expired</h1>
<p class="lead">This connection was cancelled or is too old, so the link can’t be used any more.</p>
${START_AGAIN}`,
  };
}

/**
 * The return from a provider's sign-in whose `state` names nothing that may still return: already
 * used (a reload, the back button), older than ten minutes, or made up.
 */
export function signInExpiredPage(): PageContent {
  return {
    status: 410,
    title: 'Sign-in no longer valid',
    body: html`<h1>This sign-in can’t be used</h1>
<p class="lead">It was already used, or it took longer than ten minutes, so nothing was connected from it.</p>
${START_AGAIN}`,
  };
}
