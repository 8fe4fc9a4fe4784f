import { parseAddress } from '../../../bitcoin/address.js';
import { formatUnits } from '../../../connect/amounts.js';
import { csrfField } from '../../../platform/web/form-values.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { PageContent } from '../../../platform/web/page-surface.js';
import type { ChallengeRow } from '../../verify.table.js';
import { challengeSubject } from '../challenge.repository.js';
import type { ProofPlace } from './proof-place.js';
import { qrCodeSvg } from './qr-code.js';
import { walletInstructions } from './wallet-instructions.js';

/** How the pages name what is proven: the surface's name for it, or what the challenge says. */
function subjectName(place: ProofPlace, challenge: ChallengeRow): string {
  if (place.subjectName) return place.subjectName;
  return challengeSubject(challenge).type === 'address' ? 'this address' : 'this wallet';
}

/**
 * Where the person entered the subject themselves, the forms that start a new challenge (a fresh
 * message, a deposit instead) carry it again, with their label.
 */
function restartFields(place: ProofPlace, challenge: ChallengeRow | undefined): SafeHtml {
  if (place.subject !== undefined || !challenge) return html``;
  const subject = challengeSubject(challenge);
  return html`<input type="hidden" name="subject" value="${subject.type === 'address' ? subject.address : subject.descriptor}">
<input type="hidden" name="label" value="${challenge.label ?? ''}">`;
}

/** Longest label a person may give a claim. */
export const MAX_LABEL_LENGTH = 100;

/**
 * The first page where the person names what to prove (an address, an xpub/ypub/zpub or a
 * descriptor) and, if they like, a label of their own for the claim.
 */
export function subjectEntryPage(
  place: ProofPlace,
  csrfToken: string,
  input: { subject?: string; label?: string; error?: { field: 'subject' | 'label'; message: string } } = {},
): PageContent {
  const error = input.error;
  const fieldError = (field: 'subject' | 'label') =>
    error?.field === field
      ? html`<span class="error-message" id="${field}-error"><span class="visually-hidden">Error:</span> ${error.message}</span>`
      : '';
  const invalid = (field: 'subject' | 'label', hint: string) =>
    html` aria-describedby="${hint}${error?.field === field ? ` ${field}-error` : ''}"${error?.field === field ? html` aria-invalid="true"` : ''}`;
  return {
    status: error ? 422 : 200,
    title: `${error ? 'Error: ' : ''}Prove you control a Bitcoin wallet`,
    body: html`<a class="back-link" href="${place.back.href}">‹ ${place.back.label}</a>
<h1>Prove you control a Bitcoin wallet</h1>
<p class="lead">Give one address, or a whole wallet as its extended public key (xpub, ypub, zpub) or output descriptor. Next you sign a short message with its key — no funds move. ${place.scope.mode === 'test' ? 'This is test mode: use a test-network address or key, such as the sandbox wallet’s.' : ''}</p>
${
  error
    ? html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title"><h2 id="error-summary-title">There is a problem</h2><p><a href="#${error.field}">${error.message}</a></p></div>`
    : ''
}
<form method="post" action="${place.base}" novalidate>
${csrfField(csrfToken)}
<div class="field${error?.field === 'subject' ? ' field-error' : ''}">
<label for="subject">Address, extended public key or descriptor</label>
<span class="hint" id="subject-hint">Public information only: never a private key or recovery words.</span>
${fieldError('subject')}
<textarea id="subject" name="subject" rows="3" class="code-block" autocomplete="off" autocapitalize="none" autocorrect="off" spellcheck="false"${invalid('subject', 'subject-hint')}>${input.subject ?? ''}</textarea>
</div>
<div class="field${error?.field === 'label' ? ' field-error' : ''}">
<label for="label">Your name for it (optional)</label>
<span class="hint" id="label-hint">Shown to you and to whoever you share it with, e.g. “Savings” or “Cold storage”. At most ${MAX_LABEL_LENGTH} characters.</span>
${fieldError('label')}
<input id="label" name="label" type="text" maxlength="${MAX_LABEL_LENGTH}" autocomplete="off" value="${input.label ?? ''}"${invalid('label', 'label-hint')}>
</div>
<div class="actions"><button type="submit" class="button">Continue</button></div>
</form>`,
  };
}

/** "10:15 UTC" */
function clock(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(11, 16)} UTC`;
}

export interface ChallengeView {
  place: ProofPlace;
  challenge: ChallengeRow;
  csrfToken: string;
  /** Why the last signature did not prove it, and how many tries are left. */
  error?: { message: string; attemptsLeft?: number };
}

/**
 * The challenge: the message (copy button with the kit's script, a QR code, plain text to select
 * without it), how to sign it in common wallets, and the form for the signature. In test mode the
 * sandbox wallet can sign it for the person.
 */
export function challengePage(view: ChallengeView): PageContent {
  const { place, challenge, error } = view;
  const action = `${place.base}/${challenge.id}`;
  const parsed = parseAddress(challenge.signing_address);
  const addressType = parsed.ok ? parsed.address.type : null;
  const signer = challenge.signing_path
    ? html`the first receive address of your wallet, <span class="code">${challenge.signing_address}</span> (path ${challenge.signing_path} from the key you gave)`
    : html`the address <span class="code">${challenge.signing_address}</span>`;
  return {
    status: error ? 422 : 200,
    title: `${error ? 'Error: ' : ''}Prove you control ${subjectName(place, challenge)}`,
    body: html`<a class="back-link" href="${place.back.href}">‹ ${place.back.label}</a>
<h1>Prove you control ${subjectName(place, challenge)}</h1>
<p class="lead">Sign the message below with the key of ${signer}. Signing moves no funds and costs nothing: it shows ${place.requesterName} that you hold the key.</p>
${
  error
    ? html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title">
<h2 id="error-summary-title">The signature does not prove it yet</h2>
<p><a href="#signature">${error.message}</a></p>
${error.attemptsLeft !== undefined ? html`<p>${error.attemptsLeft === 1 ? 'You can try once more' : `You can try ${error.attemptsLeft} more times`} with this message.</p>` : ''}
</div>`
    : ''
}
<h2>1. Copy the message</h2>
${copyableText({
  id: 'challenge-message',
  label: 'Message to sign',
  hint: `Copy it exactly, every line, with nothing added at the end. It is valid until ${clock(challenge.expires_at)}.`,
  rows: 12,
  text: challenge.message,
  copyLabel: 'Copy message',
  qr: {
    text: challenge.message,
    summary: 'Show the message as a QR code',
    label: 'QR code of the message to sign',
    caption: 'Scan it with a wallet on your phone that signs messages.',
  },
})}
<h2>2. Sign it in your wallet</h2>
${walletInstructions(addressType)}
<h2>3. Paste the signature</h2>
<div class="actions" hidden><button type="button" class="button button-secondary" data-wallet-sign="challenge-message" data-wallet-target="signature" data-wallet-address="${challenge.signing_address}" data-wallet-type="${addressType ?? ''}" hidden>Sign with your browser wallet</button></div>
<p class="notice" data-wallet-status role="status" hidden></p>
<form method="post" action="${action}" novalidate>
${csrfField(view.csrfToken)}
<div class="field${error ? ' field-error' : ''}">
<label for="signature">Signature</label>
<span class="hint" id="signature-hint">Base64 text your wallet showed, usually ending in “=”.</span>
${error ? html`<span class="error-message" id="signature-error"><span class="visually-hidden">Error:</span> ${error.message}</span>` : ''}
<textarea id="signature" name="signature" rows="4" autocomplete="off" autocapitalize="none" autocorrect="off" spellcheck="false" aria-describedby="signature-hint${error ? ' signature-error' : ''}"${error ? html` aria-invalid="true"` : ''}></textarea>
</div>
<div class="actions">
<button type="submit" class="button">Check signature</button>
</div>
</form>
${place.scope.mode === 'test' ? sandboxSigning(view, action) : ''}
${depositAlternative(place, challenge, view.csrfToken)}`,
  };
}

/** For wallets that cannot sign messages: the same proof by a tiny payment. */
function depositAlternative(place: ProofPlace, challenge: ChallengeRow, csrfToken: string): SafeHtml {
  return html`<h2>Your wallet can’t sign messages?</h2>
<p>Some hardware wallets (for Taproot or multisig), Bitcoin Core for segwit addresses and some services cannot sign a message. You can prove it instead by sending a few hundred satoshis from ${subjectName(place, challenge)}.</p>
<form method="post" action="${place.base}">
${csrfField(csrfToken)}
${restartFields(place, challenge)}
<input type="hidden" name="method" value="deposit">
<button type="submit" class="button button-secondary">Prove it with a small deposit instead</button>
</form>`;
}

export interface DepositView {
  place: ProofPlace;
  challenge: ChallengeRow;
  csrfToken: string;
  /** Shown after a check that found no payment yet. */
  notYet?: boolean;
}

/**
 * A deposit proof: the exact amount, the service address (with a BIP-21 QR code a phone wallet
 * fills in), the deadline, and the check. In test mode the sandbox chain can make the payment.
 */
export function depositPage(view: DepositView): PageContent {
  const { place, challenge } = view;
  const action = `${place.base}/${challenge.id}`;
  const sats = BigInt(challenge.deposit_amount ?? '0');
  const btc = formatUnits(sats, 8);
  const address = challenge.deposit_address ?? '';
  const subject = challengeSubject(challenge);
  const from =
    subject.type === 'address'
      ? html`from the address <span class="code">${challenge.signing_address}</span>`
      : html`from any address of ${subjectName(place, challenge)}`;
  return {
    status: 200,
    title: `Prove you control ${subjectName(place, challenge)} with a deposit`,
    body: html`<a class="back-link" href="${place.back.href}">‹ ${place.back.label}</a>
<h1>Prove it with a small deposit</h1>
<p class="lead">Send exactly <strong>${sats.toString()} satoshis</strong> (${btc} BTC) ${from} to the address below before ${new Date(challenge.expires_at * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC. Spending from it shows that you hold its key, as a signature would.</p>
<p>This is a real payment: the deposit is not sent back, and your wallet adds its usual network fee. Send it in one transaction, of exactly this amount.</p>
${
  view.notYet
    ? html`<div class="notice" role="status"><p>No payment of exactly ${sats.toString()} satoshis ${from} to this address has arrived yet. A payment usually appears within a minute of being sent; check again then.</p></div>`
    : ''
}
${copyableText({
  id: 'deposit-address',
  label: 'Send to',
  rows: 2,
  text: address,
  copyLabel: 'Copy address',
  qr: {
    text: `bitcoin:${address}?amount=${btc}`,
    summary: 'Show the payment as a QR code',
    label: 'QR code of the payment to make',
    caption: 'Scan it with your wallet: it fills in the address and the amount.',
  },
})}
<form method="post" action="${action}/check">
${csrfField(view.csrfToken)}
<div class="actions"><button type="submit" class="button">I’ve sent it: check now</button></div>
</form>
${
  place.scope.mode === 'test'
    ? html`<div class="notice">
<p><strong>Test mode:</strong> the sandbox chain can make this payment from the sandbox wallet (docs/sandbox.md) and confirm it in a block.</p>
<form method="post" action="${action}/sandbox">
${csrfField(view.csrfToken)}
<button type="submit" class="button button-secondary">Send it from the sandbox wallet</button>
</form>
</div>`
    : ''
}`,
  };
}

function sandboxSigning(view: ChallengeView, action: string): SafeHtml {
  return html`<div class="notice">
<p><strong>Test mode:</strong> if this is an address of the sandbox wallet (docs/sandbox.md), the sandbox can sign the message with the wallet’s public test keys.</p>
<form method="post" action="${action}/sandbox">
${csrfField(view.csrfToken)}
<button type="submit" class="button button-secondary">Sign with the sandbox wallet</button>
</form>
</div>`;
}

/** A challenge that can no longer be answered: expired, closed after too many attempts, or used. */
export function challengeEndedPage(
  place: ProofPlace,
  csrfToken: string,
  reason: 'expired' | 'too_many_attempts' | 'closed',
  challenge?: ChallengeRow,
): PageContent {
  const method = challenge?.method ?? 'signature';
  const text = {
    expired:
      method === 'deposit'
        ? {
            heading: 'This deposit request has expired',
            lead: 'No payment arrived within a day. Start again to get a fresh address and amount.',
          }
        : {
            heading: 'This message has expired',
            lead: 'A message to sign is valid for 15 minutes. Get a fresh one and sign that instead.',
          },
    too_many_attempts: {
      heading: 'Too many signatures did not match',
      lead: 'For your security this message is closed after five tries. Get a fresh message and sign it exactly as shown.',
    },
    closed: {
      heading: 'This message was already used',
      lead: 'It proved ownership once and cannot be used again. Get a fresh message to prove it again.',
    },
  }[reason];
  return {
    status: 410,
    title: text.heading,
    body: html`<h1>${text.heading}</h1>
<p class="lead">${text.lead}</p>
<div class="actions">
<form method="post" action="${place.base}">
${csrfField(csrfToken)}
${restartFields(place, challenge)}
${method === 'deposit' ? html`<input type="hidden" name="method" value="deposit">` : ''}
<button type="submit" class="button">${method === 'deposit' ? 'Start again' : 'Get a fresh message'}</button>
</form>
<a class="button button-secondary" href="${place.back.href}">${place.back.label}</a>
</div>`,
  };
}

/** The proof could not start (live mode without chain data, or what the surface holds is no wallet). */
export function proofUnavailablePage(place: ProofPlace, message: string): PageContent {
  return {
    status: 422,
    title: 'Ownership cannot be proven here',
    body: html`<h1>Ownership cannot be proven here</h1>
<p class="lead">${message}</p>
<div class="actions"><a class="button" href="${place.back.href}">${place.back.label}</a></div>`,
  };
}

/** A proof link that names no challenge of this person. */
export function unknownChallengePage(place: ProofPlace): PageContent {
  return {
    status: 404,
    title: 'Message not found',
    body: html`<h1>This proof link isn’t valid</h1>
<p class="lead">The message it names doesn’t exist or belongs to someone else.</p>
<div class="actions"><a class="button" href="${place.back.href}">${place.back.label}</a></div>`,
  };
}

/**
 * Text the person copies exactly (a message, an address, a receipt): read-only, with a Copy button
 * the kit's script reveals, and the same text (or a payment URI) as a QR code for a phone when it
 * is short enough to scan.
 */
export function copyableText(options: {
  id: string;
  label: string;
  hint?: string;
  rows: number;
  text: string;
  copyLabel: string;
  qr?: { text: string; summary: string; label: string; caption: string };
}): SafeHtml {
  const hintId = `${options.id}-hint`;
  return html`<div class="field">
<label for="${options.id}">${options.label}</label>
${options.hint ? html`<span class="hint" id="${hintId}">${options.hint}</span>` : ''}
<textarea id="${options.id}" class="code-block" rows="${options.rows}" readonly${options.hint ? html` aria-describedby="${hintId}"` : ''}>${options.text}</textarea>
</div>
<div class="actions">
<button type="button" class="button button-secondary" data-copy="${options.id}" hidden>${options.copyLabel}</button>
</div>
${
  options.qr
    ? html`<details class="disclosure">
<summary>${options.qr.summary}</summary>
<figure class="qr-code">${qrCodeSvg(options.qr.text, options.qr.label)}<figcaption>${options.qr.caption}</figcaption></figure>
</details>`
    : ''
}`;
}
