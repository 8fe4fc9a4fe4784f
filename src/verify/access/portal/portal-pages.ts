import { csrfField } from '../../../platform/web/form-values.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { NavLink } from '../../../platform/web/layout.js';
import type { PageContent } from '../../../platform/web/page-surface.js';
import { PERMISSION_MEANINGS } from '../access-request.schemas.js';
import type { ClaimStatement } from '../../claims/claim.schemas.js';
import type { Mode } from '../../../platform/scope.js';
import { copyableText } from '../../claims/pages/proof-pages.js';
import { requestClaimIds, requestPermissions } from '../access-request.repository.js';
import type { PortalPerson } from './portal-auth.service.js';
import type { PortalClaim, PortalRequest } from './portal.service.js';

/** What every signed-in page shows around its body: the sections, who is signed in, and signing out. */
export interface PortalFrame {
  prefix: string;
  person: PortalPerson;
  csrfToken: string;
  current: 'requests' | 'access' | 'wallets';
}

function nav(frame: PortalFrame): NavLink[] {
  return [
    { label: 'Requests', href: `${frame.prefix}/requests`, current: frame.current === 'requests' },
    { label: 'Shared access', href: `${frame.prefix}/access`, current: frame.current === 'access' },
    { label: 'My wallets', href: `${frame.prefix}/wallets`, current: frame.current === 'wallets' },
  ];
}

/** A signed-in page: the layout's navigation and person slots, and a sign-out form at the end. */
function signedInPage(frame: PortalFrame, page: { status?: number; title: string; body: SafeHtml }): PageContent {
  return {
    status: page.status ?? 200,
    title: page.title,
    nav: nav(frame),
    person: frame.person.email,
    body: html`${page.body}
<form class="sign-out" method="post" action="${frame.prefix}/sign-out">
${csrfField(frame.csrfToken)}
<button type="submit" class="button button-quiet">Sign out</button>
</form>`,
  };
}

/** "24 November 2026" */
function day(seconds: number): string {
  return new Date(seconds * 1000).toLocaleDateString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric' });
}

function testBadge(item: { mode: Mode }): SafeHtml | string {
  return item.mode === 'test' ? html` <span class="badge">Test mode</span>` : '';
}

function permissionWords(permissions: readonly string[]): string {
  const words = permissions.map((p) => (p === 'balances' ? 'see balances' : 'request statements'));
  return words.join(' and ');
}

/**
 * What approving does to a claim the requester may already see: sharing keeps what was granted
 * and adds what the request asks (docs/verify.md, "Sharing"), so the picker says exactly that.
 */
function alreadySharedWords(claim: PortalClaim, clientId: string, clientName: string, asked: readonly string[]): string | undefined {
  const share = claim.sharedWith.find((s) => s.clientId === clientId);
  if (!share) return undefined;
  const added = asked.filter((p) => !share.permissions.includes(p));
  const now = `Already shared with ${clientName}, who may ${permissionWords(share.permissions)}`;
  return added.length === 0
    ? `${now}: approving changes nothing for this wallet.`
    : `${now}: approving also lets them ${permissionWords(added)}.`;
}

/** A claim as the person knows it: their label, or what it proves. */
function claimName(statement: ClaimStatement): string {
  if (statement.label) return statement.label;
  return statement.subject.type === 'address'
    ? `Address ${shortText(statement.subject.address)}`
    : `Wallet ${shortText(walletKey(statement.subject.descriptor))}`;
}

function claimSubject(statement: ClaimStatement): SafeHtml {
  return statement.subject.type === 'address'
    ? html`Address <span class="code">${statement.subject.address}</span>`
    : html`Wallet <span class="code">${statement.subject.descriptor}</span>`;
}

/** The key inside a descriptor (`wpkh([…]tpub…/0/*)#…` → `tpub…`), for a short name. */
function walletKey(descriptor: string): string {
  return /[xyzt]pub[1-9A-HJ-NP-Za-km-z]+|[uv]pub[1-9A-HJ-NP-Za-km-z]+/.exec(descriptor)?.[0] ?? descriptor;
}

function shortText(text: string): string {
  return text.length > 16 ? `${text.slice(0, 8)}…${text.slice(-6)}` : text;
}

const STATUS_WORDS: Record<string, string> = {
  pending: 'Waiting for you',
  granted: 'Approved',
  declined: 'Declined',
  expired: 'Expired',
  canceled: 'Withdrawn',
};

/** Notifications: pending requests first, each with its requester and what it asks. */
export function requestsPage(frame: PortalFrame, requests: PortalRequest[]): PageContent {
  const pending = requests.filter((r) => r.row.status === 'pending');
  const earlier = requests.filter((r) => r.row.status !== 'pending');
  const item = (r: PortalRequest) => {
    const permissions = requestPermissions(r.row);
    return html`<li>
<span class="item-title">${r.holder.clientName}${testBadge(r.holder)}</span>
<span class="item-text">Asks to ${permissionWords(permissions)} for your Bitcoin wallets · ${STATUS_WORDS[r.row.status]} · received ${day(r.row.created_at)}</span>
<a class="item-action" href="${frame.prefix}/requests/${r.row.id}">${r.row.status === 'pending' ? 'Review' : 'View'}<span class="visually-hidden"> the request of ${r.holder.clientName} received ${day(r.row.created_at)}</span></a>
</li>`;
  };
  return signedInPage(frame, {
    title: 'Requests',
    body: html`<h1>Requests</h1>
${
  pending.length === 0
    ? html`<p class="lead">Nothing waits for you. When a company asks you to share proof of a Bitcoin wallet, the request shows here and you get an e-mail.</p>`
    : html`<p class="lead">${pending.length === 1 ? 'One request waits' : `${pending.length} requests wait`} for your answer.</p>
<ul class="item-list">${pending.map(item)}</ul>`
}
${earlier.length ? html`<h2>Earlier</h2><ul class="item-list">${earlier.map(item)}</ul>` : ''}`,
  });
}

export interface ReviewView {
  request: PortalRequest;
  /** The claims the person may share with this requester: theirs, active, proven as the request's account holder. */
  claims: PortalClaim[];
  error?: string;
}

/**
 * Review: who asks, their message, what each permission lets them do, that sharing lasts until
 * revoked, the claims to pick (or proving a wallet first), Approve and Decline.
 */
export function reviewPage(frame: PortalFrame, view: ReviewView): PageContent {
  const { row, holder } = view.request;
  const base = `${frame.prefix}/requests/${row.id}`;
  if (row.status !== 'pending') return answeredPage(frame, view);
  const permissions = requestPermissions(row);
  const claims = view.claims;
  const already = (c: PortalClaim) => alreadySharedWords(c, row.client_id, holder.clientName, permissions);
  return signedInPage(frame, {
    status: view.error ? 422 : 200,
    title: `${view.error ? 'Error: ' : ''}Review the request of ${holder.clientName}`,
    body: html`<a class="back-link" href="${frame.prefix}/requests">‹ All requests</a>
<h1>${holder.clientName} asks for access to your Bitcoin ownership proofs${testBadge(holder)}</h1>
${
  view.error
    ? html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title"><h2 id="error-summary-title">There is a problem</h2><p><a href="#claims">${view.error}</a></p></div>`
    : ''
}
${row.message ? html`<figure class="request-message"><blockquote><p>${row.message}</p></blockquote><figcaption>Message from ${holder.clientName}</figcaption></figure>` : ''}
<h2>If you approve, ${holder.clientName} may</h2>
<ul class="permission-list">${permissions.map((p) => html`<li><strong>${p === 'balances' ? 'Balances' : 'Statements'}</strong>: ${PERMISSION_MEANINGS[p]}.</li>`)}</ul>
<div class="notice"><p>This is ongoing access: it lasts until you revoke it, which you can do at any time under Shared access. The request is open until ${day(row.expires_at)}.</p></div>
${
  claims.length === 0
    ? html`<h2>First, prove a wallet</h2>
<p>You have no proven wallet to share with ${holder.clientName} yet. Prove that you control one — your wallet signs a short message, no funds move — and you come back here to share it.</p>
<div class="actions"><a class="button" href="${base}/prove">Prove a wallet</a>
<form method="post" action="${base}/decline">
${csrfField(frame.csrfToken)}
<button type="submit" class="button button-secondary">Decline the request</button>
</form></div>`
    : html`<form method="post" action="${base}/approve" novalidate>
${csrfField(frame.csrfToken)}
<fieldset class="claim-picker${view.error ? ' field-error' : ''}" id="claims" aria-describedby="claims-hint">
<legend>Choose what to share</legend>
<span class="hint" id="claims-hint">${holder.clientName} sees only what you pick. A wallet they already see keeps what you gave before and gains what this request asks.</span>
${claims.map(
  (c) => html`<div class="choice">
<input type="checkbox" name="claim" value="${c.row.id}" id="claim-${c.row.id}"${claims.length === 1 ? html` checked` : ''}>
<label for="claim-${c.row.id}"><span class="item-title">${claimName(c.statement)}</span><span class="item-text">${claimSubject(c.statement)} · verified ${day(c.statement.verified_at)}</span>${already(c) ? html`<span class="item-text shared-note">${already(c)}</span>` : ''}</label>
</div>`,
)}
</fieldset>
<div class="actions"><a class="button button-secondary" href="${base}/prove">Prove another wallet</a></div>
<div class="actions"><button type="submit" class="button">Approve and share</button>
<button type="submit" class="button button-secondary" formaction="${base}/decline">Decline</button></div>
</form>`
}`,
  });
}

/** A request already answered, expired or withdrawn: what happened. */
function answeredPage(frame: PortalFrame, view: ReviewView): PageContent {
  const { row, holder } = view.request;
  const shared = requestClaimIds(row);
  const when = row.responded_at ? day(row.responded_at) : '';
  const text = {
    granted: `You approved this request on ${when}, sharing ${shared.length === 1 ? 'one wallet' : `${shared.length} wallets`}. You can revoke that under Shared access.`,
    declined: `You declined this request on ${when}. Nothing was shared.`,
    expired: `This request expired on ${day(row.expires_at)} without an answer. Nothing was shared; ${holder.clientName} can send a new one.`,
    canceled: `${holder.clientName} withdrew this request on ${when}. Nothing was shared.`,
    pending: '',
  }[row.status];
  return signedInPage(frame, {
    title: `Request of ${holder.clientName}: ${STATUS_WORDS[row.status]}`,
    body: html`<a class="back-link" href="${frame.prefix}/requests">‹ All requests</a>
<h1>Request of ${holder.clientName}${testBadge(holder)}</h1>
<p class="${row.status === 'granted' ? 'success' : 'lead'}" role="status">${text}</p>
<div class="actions"><a class="button button-secondary" href="${frame.prefix}/${row.status === 'granted' ? 'access' : 'requests'}">${row.status === 'granted' ? 'See shared access' : 'All requests'}</a></div>`,
  });
}

/** Shared access: every client with access, each claim and what it may do, with Revoke. */
export function accessPage(frame: PortalFrame, claims: PortalClaim[], notice?: string): PageContent {
  // One section per client and mode: a client's test-mode and live-mode access are two things.
  const byClient = new Map<
    string,
    { clientId: string; clientName: string; mode: Mode; items: { claim: PortalClaim; permissions: string[]; since: number }[] }
  >();
  for (const claim of claims) {
    for (const share of claim.sharedWith) {
      const key = `${share.clientId}:${claim.row.mode}`;
      const entry = byClient.get(key) ?? { clientId: share.clientId, clientName: share.clientName, mode: claim.row.mode, items: [] };
      entry.items.push({ claim, permissions: share.permissions, since: share.since });
      byClient.set(key, entry);
    }
  }
  return signedInPage(frame, {
    title: 'Shared access',
    body: html`<h1>Shared access</h1>
${notice ? html`<p class="success" role="status">${notice}</p>` : ''}
${
  byClient.size === 0
    ? html`<p class="lead">You share nothing right now. When you approve a request, the company and what it may see are listed here, and you can revoke it at any time.</p>`
    : html`<p class="lead">Who can see what. Revoking takes effect at once: the company can no longer read the claim.</p>
${[...byClient.values()].map(
  (entry) => html`<h2>${entry.clientName}${testBadge(entry)}</h2>
<ul class="item-list">${entry.items.map(
    (item) => html`<li>
<span class="item-title">${claimName(item.claim.statement)}</span>
<span class="item-text">May ${permissionWords(item.permissions)} · since ${day(item.since)}</span>
<form method="post" action="${frame.prefix}/access/revoke">
${csrfField(frame.csrfToken)}
<input type="hidden" name="client" value="${entry.clientId}">
<input type="hidden" name="claim" value="${item.claim.row.id}">
<button type="submit" class="button button-secondary">Revoke<span class="visually-hidden"> ${entry.clientName}’s access to ${claimName(item.claim.statement)}</span></button>
</form>
</li>`,
  )}</ul>`,
)}`
}`,
  });
}

/** My wallets: the person's claims, their labels and sharing, proving another, revoking one. */
export function walletsPage(frame: PortalFrame, claims: PortalClaim[], notice?: string): PageContent {
  const several = new Set(claims.map((c) => c.row.client_id)).size > 1;
  return signedInPage(frame, {
    title: 'My wallets',
    body: html`<h1>My wallets</h1>
${notice ? html`<p class="success" role="status">${notice}</p>` : ''}
<p class="lead">The wallets and addresses you proved you control. Each proof is a signed receipt anyone can check at <a href="/verify">/verify</a>.</p>
${
  claims.length === 0
    ? html`<p>You have not proven any wallet yet.</p>`
    : html`<ul class="item-list">${claims.map(
        (c) => html`<li>
<span class="item-title">${claimName(c.statement)}${testBadge(c.row)}${c.row.status === 'revoked' ? html` <span class="badge">Revoked</span>` : ''}</span>
<span class="item-text">${claimSubject(c.statement)}</span>
<span class="item-text">Verified ${day(c.statement.verified_at)}${several ? ` · proven for ${c.clientName}` : ''} · ${c.sharedWith.length === 0 ? 'not shared' : `shared with ${c.sharedWith.map((s) => s.clientName).join(', ')}`}</span>
<span class="item-actions"><a class="item-action" href="${frame.prefix}/wallets/${c.row.id}">Receipt<span class="visually-hidden"> of ${claimName(c.statement)}</span></a>
${c.row.status === 'active' ? html`<a class="item-action" href="${frame.prefix}/wallets/${c.row.id}/revoke">Revoke<span class="visually-hidden"> ${claimName(c.statement)}</span></a>` : ''}</span>
</li>`,
      )}</ul>`
}
<div class="actions"><a class="button" href="${frame.prefix}/wallets/prove">Prove another wallet</a></div>`,
  });
}

/** One claim: what it proves, for whom, and its receipt to copy or check (anyone can, with the published keys). */
export function receiptPage(frame: PortalFrame, claim: PortalClaim): PageContent {
  const { statement } = claim;
  const revoked = claim.row.status === 'revoked';
  return signedInPage(frame, {
    title: `Receipt of ${claimName(statement)}`,
    body: html`<a class="back-link" href="${frame.prefix}/wallets">‹ My wallets</a>
<h1>${claimName(statement)}${testBadge(claim.row)}</h1>
${revoked ? html`<div class="warning"><p><strong>Revoked.</strong> You revoked this claim: its receipt still verifies, and every check of it says it is revoked.</p></div>` : ''}
<dl class="facts">
<dt>What it proves</dt><dd>${claimSubject(statement)}</dd>
<dt>Proven for</dt><dd>${claim.clientName}, on ${day(statement.verified_at)}</dd>
<dt>Shared with</dt><dd>${claim.sharedWith.length === 0 ? 'nobody' : claim.sharedWith.map((s) => `${s.clientName} (may ${permissionWords(s.permissions)})`).join('; ')}</dd>
<dt>Claim</dt><dd><span class="code">${claim.row.id}</span></dd>
</dl>
<h2>Your receipt</h2>
${copyableText({
  id: 'receipt',
  label: 'Receipt text',
  hint: 'Give it to whoever should check your proof. It says which address or wallet you control, signed by this service; it holds no key and no balance.',
  rows: 8,
  text: claim.row.receipt,
  copyLabel: 'Copy receipt',
})}
<form method="post" action="/verify">
<input type="hidden" name="receipt" value="${claim.row.receipt}">
<div class="actions"><button type="submit" class="button button-secondary">Check it on the public page</button></div>
</form>`,
  });
}

/** Revoking a claim cannot be undone: the person confirms first. */
export function revokeClaimPage(frame: PortalFrame, claim: PortalClaim): PageContent {
  return signedInPage(frame, {
    title: `Revoke ${claimName(claim.statement)}`,
    body: html`<a class="back-link" href="${frame.prefix}/wallets">‹ My wallets</a>
<h1>Revoke ${claimName(claim.statement)}?</h1>
<p class="lead">Its receipt will say it was revoked, and it stops being shared with ${claim.sharedWith.length === 0 ? 'anyone (it is not shared now)' : claim.sharedWith.map((s) => s.clientName).join(', ')}. This cannot be undone; you can prove the wallet again later.</p>
<p>${claimSubject(claim.statement)}</p>
<form method="post" action="${frame.prefix}/wallets/${claim.row.id}/revoke">
${csrfField(frame.csrfToken)}
<div class="actions"><button type="submit" class="button button-danger">Revoke the claim</button><a class="button button-secondary" href="${frame.prefix}/wallets">Keep it</a></div>
</form>`,
  });
}

/** Proving a wallet from My wallets when the person is known to several companies: for whom. */
export function chooseHolderPage(frame: PortalFrame): PageContent {
  if (frame.person.holders.length === 0) {
    return signedInPage(frame, {
      title: 'No company asks for proofs here',
      body: html`<a class="back-link" href="${frame.prefix}/wallets">‹ My wallets</a>
<h1>No company asks for proofs at this address</h1>
<p class="lead">A proof is made for a company that knows you by your e-mail address, and none does by ${frame.person.email} now. You can still see, and revoke, what you proved here before.</p>`,
    });
  }
  return signedInPage(frame, {
    title: 'Prove a wallet for whom?',
    body: html`<a class="back-link" href="${frame.prefix}/wallets">‹ My wallets</a>
<h1>Prove a wallet for whom?</h1>
<p class="lead">Several companies know you by this address. A proof belongs to one of them: each company only ever sees proofs made for it.</p>
<ul class="item-list">${frame.person.holders.map(
      (h) =>
        html`<li><span class="item-title">${h.clientName}${testBadge(h)}</span><a class="item-action" href="${frame.prefix}/wallets/prove/${h.id}">Prove a wallet for ${h.clientName}</a></li>`,
    )}</ul>`,
  });
}
