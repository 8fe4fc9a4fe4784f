import type { SessionPermission } from '../session.schemas.js';
import { html } from '../../platform/web/html.js';
import { csrfField, exitForm, type FlowView } from './flow-view.js';
import { PERMISSION_TEXT } from './permission-text.js';
import type { PageContent } from '../../platform/web/page-surface.js';

/** Step 1: who is asking and for what, before anything is connected. */
export function disclaimerPage(view: FlowView, permissions: readonly SessionPermission[]): PageContent {
  return {
    status: 200,
    title: `Connect your accounts to ${view.clientName}`,
    body: html`<h1>${view.clientName} wants to connect to your accounts</h1>
<p class="lead">You’ll choose an exchange or a Bitcoin wallet next. If you continue, ${view.clientName} will be able to:</p>
<ul class="item-list" aria-label="Requested permissions">
${permissions.map((permission) => {
  const text = PERMISSION_TEXT[permission];
  return html`<li><span class="item-title">${text.title}</span><span class="item-text">${text.meaning}</span></li>`;
})}
</ul>
<p class="muted small">Only the accounts you connect are shared, and only when you choose Done at the end. Access is read-only: ${view.clientName} cannot move your assets.</p>
<div class="actions">
<form method="post" action="${view.base}/consent">
${csrfField(view)}
<button type="submit" class="button">Continue</button>
</form>
${exitForm(view, 'Cancel', 'secondary')}
</div>`,
  };
}
