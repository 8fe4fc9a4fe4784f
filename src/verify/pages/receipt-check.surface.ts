import type { FastifyPluginAsync } from 'fastify';
import { firstString } from '../../platform/web/form-values.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import type { PageContent, PageKit, PageSurface } from '../../platform/web/page-surface.js';
import { PROOF_FORMAT_WORDS, type ClaimStatement, type ReceiptCheck } from '../claim.schemas.js';
import { checkReceipt } from '../claim.service.js';

/** Longest receipt the form takes (a proof-of-funds claim with many inputs is the largest). */
const MAX_RECEIPT_CHARACTERS = 60_000;

function formSection(action: string, receipt: string, error?: string): SafeHtml {
  return html`<form method="post" action="${action}" novalidate>
<div class="field${error ? ' field-error' : ''}">
<label for="receipt">Claim receipt</label>
<span class="hint" id="receipt-hint">The receipt text you were given (three parts separated by dots, starting with “ey”).</span>
${error ? html`<span class="error-message" id="receipt-error"><span class="visually-hidden">Error:</span> ${error}</span>` : ''}
<textarea id="receipt" name="receipt" rows="6" class="code-block" autocomplete="off" autocapitalize="none" autocorrect="off" spellcheck="false" aria-describedby="receipt-hint${error ? ' receipt-error' : ''}"${error ? html` aria-invalid="true"` : ''}>${receipt}</textarea>
</div>
<div class="actions"><button type="submit" class="button">Check the receipt</button></div>
</form>`;
}

function checkPage(action: string, receipt = '', error?: string): PageContent {
  return {
    status: error ? 422 : 200,
    title: 'Check a claim receipt',
    body: html`<h1>Check a claim receipt</h1>
<p class="lead">A claim receipt says that a person controls a Bitcoin address or wallet, signed by the service that checked it. Paste one to see what it states, whether its signature holds, and whether the claim still stands.</p>
${formSection(action, receipt, error)}
<p class="muted small">Nothing you paste is stored. Offline, <span class="code">ownproof verify-claim</span> does the same check with this service’s published keys (<a href="/.well-known/jwks.json">/.well-known/jwks.json</a>).</p>`,
  };
}

function subjectText(claim: ClaimStatement): string {
  return claim.subject.type === 'address' ? `the ${claim.network} address ${claim.subject.address}` : `the ${claim.network} wallet ${claim.subject.descriptor}`;
}

function resultPage(action: string, receipt: string, check: ReceiptCheck): PageContent {
  if (!check.valid || !check.claim) {
    return {
      status: 200,
      title: 'Receipt not valid',
      body: html`<h1>This receipt is not valid</h1>
<div class="error-summary" role="alert" aria-labelledby="result-title"><h2 id="result-title">Why</h2><p>${check.reason ?? 'It could not be checked.'}</p></div>
<p>Do not rely on what it says. ${check.issuer ? html`It claims to come from <span class="code">${check.issuer}</span>.` : ''}</p>
${formSection(action, receipt)}`,
    };
  }
  const claim = check.claim;
  const revoked = check.status === 'revoked';
  return {
    status: 200,
    title: 'Receipt valid',
    body: html`<h1>This receipt is valid</h1>
<p class="${revoked ? 'lead' : 'success'}" role="status">${revoked ? 'Its signature holds, but the account holder has since revoked this claim.' : `${check.issuer} checked and signed it, and the Bitcoin proof inside it holds.`}</p>
<dl class="facts">
<dt>What it states</dt><dd>Account holder <span class="code">${claim.account_holder_id}</span> controls ${subjectText(claim)}.</dd>
<dt>Proven by</dt><dd>${PROOF_FORMAT_WORDS[claim.proof.format]}${claim.proof.signed_path ? html` with the key of <span class="code">${claim.proof.address}</span> (path ${claim.proof.signed_path})` : ''}${claim.proof.txid ? html`, transaction <span class="code">${claim.proof.txid}</span>` : ''}</dd>
<dt>Checked</dt><dd>${new Date(claim.verified_at * 1000).toISOString().replace('.000Z', ' UTC').replace('T', ' ')}, at block ${claim.chain.height}</dd>
<dt>Claim</dt><dd><span class="code">${claim.id}</span>${check.status ? `, ${check.status}` : ''}${claim.livemode ? '' : ' (test mode)'}</dd>
</dl>
<div class="actions"><a class="button button-secondary" href="${action}">Check another receipt</a></div>`,
  };
}

/** `GET /verify` shows the form; `POST /verify` checks the pasted receipt (no state changes, no CSRF needed). */
const receiptCheckRoutes: FastifyPluginAsync<{ kit: PageKit }> = async (app, { kit }) => {
  const PAGE = { schema: { hide: true }, config: { ipRateLimit: true } } as const;
  const action = kit.prefix || '/';
  app.get('/', PAGE, async (_request, reply) => kit.send(reply, checkPage(action)));
  app.post('/', PAGE, async (request, reply) => {
    const receipt = (firstString((request.body as Record<string, unknown> | undefined)?.receipt) ?? '').trim();
    if (receipt === '') return kit.send(reply, checkPage(action, '', 'Paste a claim receipt.'));
    if (receipt.length > MAX_RECEIPT_CHARACTERS) return kit.send(reply, checkPage(action, '', `A receipt is at most ${MAX_RECEIPT_CHARACTERS.toLocaleString('en')} characters; this is not one.`));
    return kit.send(reply, resultPage(action, receipt, await checkReceipt(app.ctx, receipt)));
  });
};

/**
 * The public receipt check at `PUBLIC_BASE_URL/verify`: anyone pastes a claim receipt and sees what
 * it states, or why it fails (the same check as `POST /v1/verify/claims/verify`).
 */
export const receiptCheckPages: PageSurface = {
  id: 'verify',
  baseUrl: (config) => `${config.publicBaseUrl}/verify`,
  surfaceName: 'Receipt check',
  footer: 'Claim receipts are checked with the keys ownproof publishes; nothing you paste is stored.',
  routes: receiptCheckRoutes,
};
