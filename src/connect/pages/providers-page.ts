import type { Provider } from '../providers/provider.js';
import { html } from '../../platform/web/html.js';
import { exitForm, type FlowView } from './flow-view.js';
import type { PageContent } from '../../platform/web/page-surface.js';

/** Above this many providers the list gets a search box; a query in the URL always filters. */
const SEARCH_THRESHOLD = 6;
export const MAX_QUERY_LENGTH = 100;

/** Case- and accent-insensitive, so "bitstamp" finds "Bitstamp" and "etoro" finds "eToro". */
function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Providers whose name, description or id contain every word of the query. */
function filterProviders(providers: readonly Provider[], query: string): readonly Provider[] {
  const words = fold(query).split(/\s+/).filter(Boolean);
  if (words.length === 0) return providers;
  return providers.filter((p) => {
    const haystack = fold(`${p.name} ${p.description} ${p.id}`);
    return words.every((word) => haystack.includes(word));
  });
}

const KIND: Record<Provider['type'], string> = { exchange: 'Exchange', wallet: 'Self-custody wallet' };

/** Step 2: where are the assets? Each provider is a link; the search is a GET form (no script). */
export function providersPage(
  view: FlowView,
  options: { providers: readonly Provider[]; query: string; connectedCount: number },
): PageContent {
  const { providers, query, connectedCount } = options;
  const shown = filterProviders(providers, query);
  const searching = query.trim() !== '';
  const searchable = providers.length > SEARCH_THRESHOLD || searching;
  return {
    status: 200,
    title: 'Choose where your assets are held',
    body: html`${connectedCount > 0 ? html`<a class="back-link" href="${view.base}">‹ Back to your connected accounts</a>` : ''}
<h1>Where are your assets held?</h1>
<p class="lead">Choose an exchange, or a Bitcoin wallet you control yourself.</p>
${
  searchable
    ? html`<form class="search" method="get" action="${view.base}/providers" role="search">
<div class="field">
<label for="provider-search">Search providers</label>
<input id="provider-search" type="search" name="q" value="${query}" maxlength="${MAX_QUERY_LENGTH}" autocomplete="off" spellcheck="false">
</div>
<button type="submit" class="button button-secondary">Search</button>
</form>`
    : ''
}
${
  searching
    ? html`<p aria-live="polite">${shown.length === 0 ? html`No provider matches “${query}”.` : html`${shown.length} ${shown.length === 1 ? 'provider matches' : 'providers match'} “${query}”.`}
<a href="${view.base}/providers">Show all providers</a></p>`
    : ''
}
${
  shown.length > 0
    ? html`<ul class="provider-list">
${shown.map(
  (p) =>
    html`<li><a class="provider-link" href="${view.base}/providers/${encodeURIComponent(p.id)}"><span><span class="provider-kind">${KIND[p.type]}</span><span class="provider-name">${p.name}</span><span class="provider-text">${p.description}</span></span></a></li>`,
)}
</ul>`
    : ''
}
<div class="actions">
${exitForm(view)}
</div>`,
  };
}
