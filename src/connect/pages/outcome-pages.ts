import { html, type SafeHtml } from '../../platform/web/html.js';
import { accountCount, type FlowView } from './flow-view.js';
import type { PageContent } from '../../platform/web/page-surface.js';

export type FlowOutcome = { kind: 'completed'; accountCount: number } | { kind: 'cancelled' } | { kind: 'initialization_failed' };

function outcomeText(clientName: string, outcome: FlowOutcome): { status: number; title: string; heading: string; text: SafeHtml } {
  switch (outcome.kind) {
    case 'completed':
      return {
        status: 200,
        title: 'All set',
        heading: 'You’re all set',
        text: html`<p class="success">${accountCount(outcome.accountCount)} shared with ${clientName}.</p>`,
      };
    case 'cancelled':
      return {
        status: 200,
        title: 'Connection cancelled',
        heading: 'Connection cancelled',
        text: html`<p class="lead">Nothing was shared with ${clientName}.</p>`,
      };
    case 'initialization_failed':
      return {
        status: 500,
        title: 'Connection could not start',
        heading: 'We couldn’t start the connection',
        text: html`<p class="lead">Something went wrong on our side, and nothing was shared with ${clientName}. Go back to ${clientName} and try again.</p>`,
      };
  }
}

/** The end of the flow when there is no return URL: the session is over, the tab can go. */
export function closeTabPage(clientName: string, outcome: FlowOutcome): PageContent {
  const text = outcomeText(clientName, outcome);
  return {
    status: text.status,
    title: text.title,
    body: html`<h1>${text.heading}</h1>
${text.text}
<p>You can close this tab now.</p>`,
  };
}

/**
 * The end of the flow when the return URL is an app's own scheme (`myapp://done`). Browsers do not
 * follow a redirect to such a URL reliably (Chromium ignores it without a user gesture), so the
 * person gets a button: tapping it is the gesture that opens the app.
 */
export function returnLinkPage(clientName: string, outcome: FlowOutcome, returnUrl: string): PageContent {
  const text = outcomeText(clientName, outcome);
  return {
    status: text.status,
    title: text.title,
    body: html`<h1>${text.heading}</h1>
${text.text}
<div class="actions">
<a class="button" href="${returnUrl}">Return to ${clientName}</a>
</div>
<p class="muted small">If nothing happens, switch back to the app yourself; you can close this tab.</p>`,
  };
}

/** A provider id in the URL that this session's mode does not offer. */
export function providerMissingPage(view: FlowView): PageContent {
  return {
    status: 404,
    title: 'Provider not available',
    body: html`<h1>This provider isn’t available</h1>
<p class="lead">It may not be offered here, or the link is mistyped.</p>
<div class="actions"><a class="button" href="${view.base}/providers">Choose a provider</a></div>`,
  };
}
