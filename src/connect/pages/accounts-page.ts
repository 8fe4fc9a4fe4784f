import type { Account } from '../account.schemas.js';
import { html } from '../../platform/web/html.js';
import { accountCount, csrfField, exitForm, type FlowView } from './flow-view.js';
import type { PageContent } from '../../platform/web/page-surface.js';

/** Step 4: what is connected so far; connect another, or finish and share. */
export function accountsPage(view: FlowView, options: { accounts: readonly Account[] }): PageContent {
  const { accounts } = options;
  return {
    status: 200,
    title: 'Your connected accounts',
    body: html`<h1>You’ve connected ${accountCount(accounts.length)}</h1>
<ul class="item-list" aria-label="Connected accounts">
${accounts.map((a) => html`<li><span class="item-title">${a.display_name}</span><span class="item-text">${a.provider.name}</span>${ownership(view, a)}</li>`)}
</ul>
<p>Choose Done to share ${accounts.length === 1 ? 'this account' : 'these accounts'} with ${view.clientName}, or connect another one first.</p>
<div class="actions">
<form method="post" action="${view.base}/finish">
${csrfField(view)}
<button type="submit" class="button">Done</button>
</form>
<a class="button button-secondary" href="${view.base}/providers">Connect another account</a>
</div>
<div class="actions">
${exitForm(view, 'Cancel without sharing')}
</div>`,
  };
}

/**
 * A self-custody wallet can be proven to be the person's own (verify's proof pages); a proven one
 * says so. Exchange accounts show nothing: their login already was the proof of access.
 */
function ownership(view: FlowView, account: Account) {
  if (account.provider.type !== 'wallet' || account.provider.id !== 'bitcoin') return '';
  if (account.ownership.status === 'verified') return html`<span class="item-status">✓ Ownership proven</span>`;
  return html`<form class="item-action" method="post" action="${view.base}/accounts/${encodeURIComponent(account.id)}/prove">
${csrfField(view)}
<button type="submit" class="button button-secondary">Prove you control it</button>
</form>`;
}
