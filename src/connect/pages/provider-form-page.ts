import type { CredentialField, Provider } from '../providers/provider.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import { csrfField, exitForm, type FlowView } from './flow-view.js';
import type { PageContent } from '../../platform/web/page-surface.js';

export interface ProviderFormError {
  message: string;
  /** The credential field the message is about; absent for errors about the whole attempt. */
  field?: string;
}

/** Element ids from provider field names, which are ours but need not be valid id characters. */
function fieldId(name: string): string {
  return `field-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/**
 * Step 3: the provider's credential form. After a failed attempt the page shows the error at the
 * top (and next to its field), and keeps what was typed in non-secret fields. Passwords and fields
 * marked sensitive (an exchange's PEM key in a textarea) are never sent back, nor is a value the
 * provider rejected: a rejected wallet field may hold a private key or seed phrase pasted by
 * mistake, which must not be written into the page again.
 */
export function providerFormPage(
  view: FlowView,
  options: { provider: Provider; values?: Record<string, string>; error?: ProviderFormError; status?: number; signIn?: boolean },
): PageContent {
  const { provider, error } = options;
  const values = options.values ?? {};
  const fieldError = error?.field !== undefined && provider.credentialFields.some((f) => f.name === error.field) ? error.field : undefined;
  return {
    status: options.status ?? 200,
    title: `${error ? 'Error: ' : ''}Connect ${provider.name}`,
    body: html`<a class="back-link" href="${view.base}/providers">‹ Choose another provider</a>
<h1>Connect ${provider.name}</h1>
${
  error
    ? html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title">
<h2 id="error-summary-title">There is a problem</h2>
<p>${fieldError ? html`<a href="#${fieldId(fieldError)}">${error.message}</a>` : error.message}</p>
</div>`
    : ''
}
${provider.instructions ? html`<div class="notice"><p>${provider.instructions}</p></div>` : ''}
${
  options.signIn
    ? html`<form method="post" action="${view.base}/providers/${encodeURIComponent(provider.id)}/oauth">
${csrfField(view)}
<p>Sign in at ${provider.name} and allow read-only access: no key to create or copy.</p>
<div class="actions"><button type="submit" class="button">Sign in with ${provider.name}</button></div>
</form>
<h2>Or use a read-only API key</h2>`
    : ''
}
${provider.steps?.length ? html`<ol class="steps">${provider.steps.map((step) => html`<li>${step}</li>`)}</ol>` : ''}
<form method="post" action="${view.base}/providers/${encodeURIComponent(provider.id)}" novalidate>
${csrfField(view)}
${provider.credentialFields.map((field) =>
  credentialInput(field, {
    value: field.type === 'password' || field.sensitive || field.name === fieldError ? '' : (values[field.name] ?? ''),
    error: field.name === fieldError ? error?.message : undefined,
  }),
)}
<div class="actions">
<button type="submit" class="button">Connect</button>
</div>
</form>
<div class="actions">
${exitForm(view)}
</div>`,
  };
}

function credentialInput(field: CredentialField, state: { value: string; error: string | undefined }): SafeHtml {
  const id = fieldId(field.name);
  const describedBy = [field.hint ? `${id}-hint` : '', state.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const common = html`id="${id}" name="${field.name}"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${state.error ? html` aria-invalid="true"` : ''}`;
  // Credentials and wallet strings are not prose: no capitalisation or spelling fixes on phones.
  const plain = html`autocapitalize="none" autocorrect="off" spellcheck="false"`;
  const control =
    field.type === 'textarea'
      ? html`<textarea ${common} rows="4" autocomplete="${field.autocomplete ?? 'off'}" ${plain}>${state.value}</textarea>`
      : html`<input ${common} type="${field.type}" value="${state.value}" autocomplete="${field.autocomplete ?? 'off'}" ${plain}>`;
  return html`<div class="field${state.error ? ' field-error' : ''}">
<label for="${id}">${field.label}</label>
${field.hint ? html`<span class="hint" id="${id}-hint">${field.hint}</span>` : ''}
${state.error ? html`<span class="error-message" id="${id}-error"><span class="visually-hidden">Error:</span> ${state.error}</span>` : ''}
${control}
</div>`;
}
