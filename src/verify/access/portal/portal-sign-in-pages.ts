import { csrfField } from '../../../platform/web/form-values.js';
import { html } from '../../../platform/web/html.js';
import type { PageContent } from '../../../platform/web/page-surface.js';

// The portal's pages for someone not signed in: asking for a sign-in link and using one.

/** Signed out: the sign-in form. */
export function signInPage(
  prefix: string,
  csrfToken: string,
  options: { email?: string; requestId?: string; error?: string; notice?: string; status?: number } = {},
): PageContent {
  const error = options.error;
  return {
    status: options.status ?? (error ? 422 : 200),
    title: `${error ? 'Error: ' : ''}Sign in`,
    body: html`<h1>Sign in to your portal</h1>
${options.notice ? html`<div class="notice" role="status"><p>${options.notice}</p></div>` : ''}
<p class="lead">Here you review requests to share proof of your Bitcoin wallets, see who has access, and revoke it. Enter the e-mail address the request was sent to: we e-mail you a link that signs you in.</p>
${error ? html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title"><h2 id="error-summary-title">There is a problem</h2><p><a href="#email">${error}</a></p></div>` : ''}
<form method="post" action="${prefix}/sign-in" novalidate>
${csrfField(csrfToken)}
${options.requestId ? html`<input type="hidden" name="request" value="${options.requestId}">` : ''}
<div class="field${error ? ' field-error' : ''}">
<label for="email">E-mail address</label>
${error ? html`<span class="error-message" id="email-error"><span class="visually-hidden">Error:</span> ${error}</span>` : ''}
<input id="email" name="email" type="email" autocomplete="email" spellcheck="false" value="${options.email ?? ''}"${error ? html` aria-invalid="true" aria-describedby="email-error"` : ''}>
</div>
<div class="actions"><button type="submit" class="button">E-mail me a sign-in link</button></div>
</form>`,
  };
}

/** After asking for a link: the same words whether or not anyone has the address. */
export function checkMailPage(email: string): PageContent {
  return {
    status: 200,
    title: 'Check your e-mail',
    body: html`<h1>Check your e-mail</h1>
<p class="lead">If <strong>${email}</strong> belongs to someone a company asked to share proofs with, a sign-in link is on its way to it.</p>
<p>The link works once, within 15 minutes. Nothing there? Look in your spam folder, check the address, or ask for a new link in a minute.</p>`,
  };
}

/** A production server without SMTP_URL: no link can reach anyone, whoever asks. */
export function noMailPage(): PageContent {
  return {
    status: 503,
    title: 'Sign-in links cannot be sent',
    body: html`<h1>Sign-in links cannot be sent right now</h1>
<p class="lead">This server cannot send e-mail at the moment, so it cannot send you a sign-in link.</p>
<p>Please try again later, or tell the company that asked you to share your proofs.</p>`,
  };
}

/** Too many links asked for. */
export function tooManySignInsPage(prefix: string, csrfToken: string, retryAfterSeconds: number): PageContent {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return signInPage(prefix, csrfToken, {
    status: 429,
    notice: `Too many sign-in links were asked for. Try again in ${minutes === 1 ? 'a minute' : `${minutes} minutes`}.`,
  });
}

/** A sign-in link, before it is used: one button, so a mail scanner that opens links signs no one in. */
export function confirmSignInPage(action: string, csrfToken: string): PageContent {
  return {
    status: 200,
    title: 'Sign in',
    body: html`<h1>Sign in to your portal</h1>
<p class="lead">Continue to sign in with the link from your e-mail.</p>
<form method="post" action="${action}">
${csrfField(csrfToken)}
<div class="actions"><button type="submit" class="button">Continue</button></div>
</form>`,
  };
}
