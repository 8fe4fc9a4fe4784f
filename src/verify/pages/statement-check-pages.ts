import { html, type SafeHtml } from '../../platform/web/html.js';
import type { PageContent } from '../../platform/web/page-surface.js';
import { statementFacts } from '../statements/statement-check-words.js';
import { MAX_STATEMENT_PDF_MIB, type StatementCheck } from '../statements/statement-document.schemas.js';

export interface StatementFormState {
  statementError?: string;
  hash?: string;
  hashError?: string;
}

/** The field's error line and the attributes that tie it to the input, when there is an error. */
function fieldError(id: string, error: string | undefined): { line: SafeHtml | string; describedBy: string } {
  return error
    ? {
        line: html`<span class="error-message" id="${id}-error"><span class="visually-hidden">Error:</span> ${error}</span>`,
        describedBy: ` ${id}-error`,
      }
    : { line: '', describedBy: '' };
}

/**
 * A statement is checked from its PDF (uploaded: multipart, so it works without JavaScript) or
 * from its document hash (a GET form, the same URL the statement's QR code opens).
 */
export function statementForms(action: string, state: StatementFormState = {}): SafeHtml {
  const upload = fieldError('statement', state.statementError);
  const hash = fieldError('document-hash', state.hashError);
  const base = action === '/' ? '' : action;
  return html`<form method="post" action="${base}/statement" enctype="multipart/form-data" novalidate>
<div class="field${state.statementError ? ' field-error' : ''}">
<label for="statement">Statement PDF</label>
<span class="hint" id="statement-hint">The PDF exactly as it was downloaded or sent to you (at most ${MAX_STATEMENT_PDF_MIB} MB).</span>
${upload.line}
<input type="file" id="statement" name="statement" accept="application/pdf,.pdf" aria-describedby="statement-hint${upload.describedBy}"${state.statementError ? html` aria-invalid="true"` : ''}>
</div>
<div class="actions"><button type="submit" class="button">Check the statement</button></div>
</form>
<form method="get" action="${action}" novalidate>
<div class="field${state.hashError ? ' field-error' : ''}">
<label for="document-hash">Or its document hash</label>
<span class="hint" id="document-hash-hint">The 64 characters printed at the foot of every page, after “Document hash (SHA-256)”.</span>
${hash.line}
<input type="text" id="document-hash" name="document_hash" value="${state.hash ?? ''}" class="code" autocomplete="off" autocapitalize="none" autocorrect="off" spellcheck="false" aria-describedby="document-hash-hint${hash.describedBy}"${state.hashError ? html` aria-invalid="true"` : ''}>
</div>
<div class="actions"><button type="submit" class="button button-secondary">Check the hash</button></div>
</form>`;
}

/** A document that did not pass: why, who it claims to come from, and the form to try another. */
export function notValidPage(
  what: 'receipt' | 'statement',
  check: { reason?: string | null; issuer?: string | null },
  advice: string,
  form: SafeHtml,
): PageContent {
  const noun = what === 'receipt' ? 'Receipt' : 'Statement';
  return {
    status: 200,
    title: `${noun} not valid`,
    body: html`<h1>This ${what} is not valid</h1>
<div class="error-summary" role="alert" aria-labelledby="result-title"><h2 id="result-title">Why</h2><p>${check.reason ?? 'It could not be checked.'}</p></div>
<p>Do not rely on what it says.${check.issuer ? html` It claims to come from <span class="code">${check.issuer}</span>.` : ''}${advice ? ` ${advice}` : ''}</p>
${form}`,
  };
}

/** What the check found: valid with what the statement states, or not valid and why. */
export function statementResultPage(action: string, check: StatementCheck): PageContent {
  if (!check.valid || !check.document)
    return notValidPage(
      'statement',
      check,
      'Ask whoever gave it to you for the PDF exactly as they downloaded it.',
      statementForms(action),
    );
  return {
    status: 200,
    title: 'Statement valid',
    body: html`<h1>This statement is valid</h1>
<p class="success" role="status">It is unaltered, exactly as ${check.issuer} issued it, and the proof of control of every claim in it holds.</p>
<dl class="facts">
${statementFacts(check.document).map(([label, text]) => html`<dt>${label}</dt><dd>${text}</dd>`)}
<dt>Document hash</dt><dd><span class="code">${check.document_hash}</span></dd>
<dt>Signed with</dt><dd><span class="code">${check.signing_key_id}</span></dd>
</dl>
<p class="muted small">Every transaction, with its full id, is in the statement’s signed data: the PDF lists them, and <span class="code">POST /v1/verify/statements/verify</span> returns them as JSON.</p>
<div class="actions"><a class="button button-secondary" href="${action}">Check another document</a></div>`,
  };
}
