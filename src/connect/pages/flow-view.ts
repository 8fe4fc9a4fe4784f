import { csrfField as kitCsrfField } from '../../platform/web/form-values.js';
import { html, type SafeHtml } from '../../platform/web/html.js';

/** What every page of an open session needs: where its forms post, its CSRF token, who asks. */
export interface FlowView {
  /** Path of the session's pages: `{prefix}/{client_secret}`. */
  base: string;
  csrfToken: string;
  clientName: string;
}

export function csrfField(view: Pick<FlowView, 'csrfToken'>): SafeHtml {
  return kitCsrfField(view.csrfToken);
}

/** The Cancel button every step offers: it ends the session as abandoned. */
export function exitForm(view: FlowView, label = 'Cancel', style: 'secondary' | 'quiet' = 'quiet'): SafeHtml {
  return html`<form method="post" action="${view.base}/exit">
${csrfField(view)}
<button type="submit" class="button button-${style}">${label}</button>
</form>`;
}

/** "1 account" / "2 accounts". */
export function accountCount(count: number): string {
  return `${count} ${count === 1 ? 'account' : 'accounts'}`;
}
