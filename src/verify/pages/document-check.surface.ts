import type { FastifyError, FastifyPluginAsync } from 'fastify';
import { ApiError } from '../../platform/http/errors.js';
import { firstString } from '../../platform/web/form-values.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import type { PageContent, PageKit, PageSurface } from '../../platform/web/page-surface.js';
import { PROOF_FORMAT_WORDS, type ClaimStatement, type ReceiptCheck } from '../claims/claim.schemas.js';
import { checkReceipt } from '../claims/claim.service.js';
import multipart from '@fastify/multipart';
import { SHA256_HEX } from '@ownproof/verify';
import { MAX_STATEMENT_PDF_BYTES, MAX_STATEMENT_PDF_MIB } from '../statements/statement-document.schemas.js';
import { checkStatementFile, checkStatementHash, documentCheckUrl } from '../statements/statement-document.service.js';
import { notValidPage, statementForms, statementResultPage, type StatementFormState } from './statement-check-pages.js';

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

/** The start page: a statement (PDF or hash) and a claim receipt, each with its own form. */
function checkPage(action: string, forms: StatementFormState & { receipt?: string; receiptError?: string } = {}): PageContent {
  const failed = forms.receiptError ?? forms.statementError ?? forms.hashError;
  return {
    status: failed ? 422 : 200,
    title: 'Check a document',
    body: html`<h1>Check a document</h1>
<p class="lead">Statements and claim receipts issued by this service carry signatures anyone can check. Give one here to see whether it is genuine and unaltered, and what it states.</p>
<h2>A statement</h2>
${statementForms(action, forms)}
<h2>A claim receipt</h2>
<p>A claim receipt says that a person controls a Bitcoin address or wallet, signed by the service that checked it. Paste one to see what it states, whether its signature holds, and whether the claim still stands.</p>
${formSection(action, forms.receipt ?? '', forms.receiptError)}
<p class="muted small">Nothing you give here is stored. Offline, <span class="code">ownproof verify-statement</span> and <span class="code">ownproof verify-claim</span> do the same checks with this service’s published keys (<a href="/.well-known/jwks.json">/.well-known/jwks.json</a>).</p>`,
  };
}

function subjectText(claim: ClaimStatement): string {
  return claim.subject.type === 'address'
    ? `the ${claim.network} address ${claim.subject.address}`
    : `the ${claim.network} wallet ${claim.subject.descriptor}`;
}

function resultPage(action: string, receipt: string, check: ReceiptCheck): PageContent {
  if (!check.valid || !check.claim) return notValidPage('receipt', check, '', formSection(action, receipt));
  const claim = check.claim;
  // A revoked claim's receipt is still genuine, but what it states no longer stands: that is the
  // headline, in words and in the warning colour, never "valid".
  const headline =
    check.status === 'revoked'
      ? html`<h1 class="headline-warning">This claim has been revoked</h1>
<div class="warning" role="status"><p>${check.summary}</p></div>`
      : html`<h1>This receipt is valid</h1>
<p class="success" role="status">${check.issuer} checked and signed it, and the Bitcoin proof inside it holds.</p>`;
  return {
    status: 200,
    title: check.status === 'revoked' ? 'Claim revoked' : 'Receipt valid',
    body: html`${headline}
<dl class="facts">
<dt>What it states</dt><dd>Account holder <span class="code">${claim.account_holder_id}</span> controls ${subjectText(claim)}.</dd>
<dt>Proven by</dt><dd>${PROOF_FORMAT_WORDS[claim.proof.format]}${claim.proof.signed_path ? html` with the key of <span class="code">${claim.proof.address}</span> (path ${claim.proof.signed_path})` : ''}${claim.proof.txid ? html`, transaction <span class="code">${claim.proof.txid}</span>` : ''}</dd>
<dt>Checked</dt><dd>${new Date(claim.verified_at * 1000).toISOString().replace('.000Z', ' UTC').replace('T', ' ')}, at block ${claim.chain.height}</dd>
<dt>Claim</dt><dd><span class="code">${claim.id}</span>${check.status ? `, ${check.status}` : ''}${claim.livemode ? '' : ' (test mode)'}</dd>
</dl>
<div class="actions"><a class="button button-secondary" href="${action}">Check another receipt</a></div>`,
  };
}

/**
 * `GET /verify` shows the forms, or with `document_hash` (the statement's QR code) checks that
 * statement; `POST /verify` checks a pasted receipt; `POST /verify/statement` checks an uploaded
 * statement PDF. Nothing changes state, so no CSRF token is needed.
 */
const documentCheckRoutes: FastifyPluginAsync<{ kit: PageKit }> = async (app, { kit }) => {
  const PAGE = { schema: { hide: true }, config: { ipRateLimit: true } } as const;
  const action = kit.prefix || '/';
  app.get('/', PAGE, async (request, reply) => {
    const hash = firstString((request.query as Record<string, unknown>).document_hash);
    if (hash === undefined) return kit.send(reply, checkPage(action));
    const normalised = hash.trim().toLowerCase();
    if (!SHA256_HEX.test(normalised))
      return kit.send(
        reply,
        checkPage(action, { hash, hashError: 'A document hash is 64 characters, 0–9 and a–f, as printed on the statement.' }),
      );
    return kit.send(reply, statementResultPage(action, await checkStatementHash(app.ctx, normalised)));
  });
  app.post('/', PAGE, async (request, reply) => {
    const receipt = (firstString((request.body as Record<string, unknown> | undefined)?.receipt) ?? '').trim();
    if (receipt === '') return kit.send(reply, checkPage(action, { receiptError: 'Paste a claim receipt.' }));
    if (receipt.length > MAX_RECEIPT_CHARACTERS)
      return kit.send(
        reply,
        checkPage(action, {
          receiptError: `A receipt is at most ${MAX_RECEIPT_CHARACTERS.toLocaleString('en')} characters; this is not one.`,
        }),
      );
    return kit.send(reply, resultPage(action, receipt, await checkReceipt(app.ctx, receipt)));
  });
  await app.register(async (upload) => {
    // One file, nothing else: the multipart parser stops reading at the first byte over the limit.
    await upload.register(multipart, { limits: { fileSize: MAX_STATEMENT_PDF_BYTES, files: 1, fields: 0, parts: 1 } });
    upload.post('/statement', PAGE, async (request, reply) => {
      const chooseFile = () => kit.send(reply, checkPage(action, { statementError: 'Choose the statement PDF.' }));
      if (!request.isMultipart()) return chooseFile();
      let pdf: Buffer | undefined;
      try {
        // Read to the end of the body, not just to the end of the file: a body broken after the
        // file (no closing boundary) is refused too, however its bytes arrive. The limits allow
        // one part, so this loop runs at most once before the end or a limit error.
        for await (const part of request.files()) {
          const bytes = await part.toBuffer();
          if (part.filename !== '') pdf = bytes;
        }
      } catch (error) {
        if (error instanceof upload.multipartErrors.RequestFileTooLargeError) {
          return kit.send(
            reply,
            checkPage(action, {
              statementError: `That file is larger than ${MAX_STATEMENT_PDF_MIB} MB: it is not a statement PDF of this service.`,
            }),
          );
        }
        // @fastify/multipart's own errors carry their 4xx status. The parser under it (busboy)
        // throws bare errors, only ever about the bytes it was given: no boundary, a part cut
        // off, no closing boundary. Those are the sender's, not ours.
        if ((error as FastifyError).statusCode === undefined) throw new ApiError('upload_malformed');
        throw error;
      }
      if (!pdf || pdf.length === 0) return chooseFile();
      return kit.send(reply, statementResultPage(action, await checkStatementFile(app.ctx, pdf)));
    });
  });
};

/**
 * The public check at `PUBLIC_BASE_URL/verify`: anyone gives a statement PDF (or its document
 * hash) or pastes a claim receipt and sees what it states, or why it fails — the same checks as
 * `POST /v1/verify/statements/verify` and `POST /v1/verify/claims/verify`.
 */
export const documentCheckPages: PageSurface = {
  id: 'verify',
  baseUrl: documentCheckUrl,
  surfaceName: 'Document check',
  footer: 'Statements and claim receipts are checked with the keys ownproof publishes; nothing you give here is stored.',
  routes: documentCheckRoutes,
};
