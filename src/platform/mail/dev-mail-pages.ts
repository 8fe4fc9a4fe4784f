import { html } from '../web/html.js';
import type { PageContent } from '../web/page-surface.js';
import type { OutboxMessageRow } from './outbox.table.js';

/**
 * What the sandbox of a message's HTML part lets through (in the frame's `sandbox` attribute and
 * the part's own CSP `sandbox`; the stricter of the two applies): its links, all
 * `target="_blank"` as `renderEmail` writes them, open in a new tab when clicked (`allow-popups`),
 * outside the sandbox (`allow-popups-to-escape-sandbox`; a sandboxed portal page could not post
 * its forms). Following "Review the request" or "Sign in" is what a developer reads a message for.
 * Still no script, no forms, no same-origin access, no navigation of the page around it.
 */
export const MAIL_SANDBOX = 'allow-popups allow-popups-to-escape-sandbox';

/** `2026-05-04 09:30:12 UTC`: the outbox is read by developers, in any time zone. */
function when(seconds: number): { iso: string; text: string } {
  const iso = new Date(seconds * 1000).toISOString();
  return { iso, text: `${iso.slice(0, 19).replace('T', ' ')} UTC` };
}

/**
 * The http(s) links of a plain-text body, in order, once each: what a developer (or a browser
 * test) follows from a sign-in mail. Punctuation that ends a sentence is not part of the link.
 */
function linksIn(text: string): string[] {
  const found = text.match(/https?:\/\/[^\s<>"']+/g) ?? [];
  return [...new Set(found.map((link) => link.replace(/[.,;:!?)\]}]+$/, '')))];
}

/** The list of stored messages, newest first. */
export function outboxListPage(input: {
  prefix: string;
  rows: OutboxMessageRow[];
  olderHref: string | undefined;
  smtp: boolean;
}): PageContent {
  const { prefix, rows } = input;
  return {
    status: 200,
    title: 'Outbox',
    body: html`<h1>Outbox</h1>
<p class="lead">${
      input.smtp
        ? 'SMTP_URL is set, so mail goes to the mail server. These are the messages kept here in the last 24 hours before it was.'
        : 'The mail this server would have sent in the last 24 hours, newest first. No SMTP_URL is set, so messages are kept here instead, then deleted. This page does not exist in production.'
    }</p>
${
  rows.length === 0
    ? html`<p class="muted">No messages yet.</p>`
    : html`<ol class="mail-list">
${rows.map((row) => {
  const time = when(row.created_at);
  return html`<li><a class="mail-item" href="${prefix}/${row.id}"><span class="mail-subject">${row.subject}</span><span class="mail-meta">To ${row.to_address} · ${row.kind} · <time datetime="${time.iso}">${time.text}</time></span></a></li>
`;
})}</ol>`
}
${input.olderHref ? html`<p><a class="mail-more" href="${input.olderHref}">Older messages</a></p>` : ''}`,
  };
}

/**
 * One message: its headers, the links of its text (clickable), the HTML part in a sandboxed
 * frame (served by `/{id}/html` under a policy of its own: no script, no request anywhere) and
 * the text part as sent.
 */
export function outboxMessagePage(prefix: string, row: OutboxMessageRow): PageContent {
  const time = when(row.created_at);
  const links = linksIn(row.text_body);
  return {
    status: 200,
    title: row.subject,
    body: html`<a class="back-link" href="${prefix}">← All messages</a>
<h1>${row.subject}</h1>
<dl class="facts">
<dt>To</dt><dd>${row.to_address}</dd>
<dt>From</dt><dd>${row.from_address}</dd>
<dt>Kind</dt><dd>${row.kind}</dd>
<dt>Stored</dt><dd><time datetime="${time.iso}">${time.text}</time></dd>
<dt>Message id</dt><dd><span class="code">${row.id}</span> (<a href="${prefix}/${row.id}.json">as JSON</a>)</dd>
</dl>
<h2>Links in the message</h2>
${
  links.length === 0
    ? html`<p class="muted">The text has no links.</p>`
    : html`<ul class="mail-links">
${links.map(
  (link) => html`<li><a href="${link}">${link}</a></li>
`,
)}</ul>`
}
<h2>HTML version</h2>
<iframe class="mail-frame" sandbox="${MAIL_SANDBOX}" src="${prefix}/${row.id}/html" title="HTML version of the message"></iframe>
<h2>Plain-text version</h2>
<pre class="mail-text code-block">${row.text_body}</pre>`,
  };
}

/** The message as `/{id}.json` and `/latest.json` give it, for tests and scripts. */
export function outboxMessageJson(row: OutboxMessageRow) {
  return {
    object: 'mail' as const,
    id: row.id,
    to: row.to_address,
    from: row.from_address,
    subject: row.subject,
    kind: row.kind,
    text: row.text_body,
    html: row.html_body,
    links: linksIn(row.text_body),
    created_at: row.created_at,
  };
}
