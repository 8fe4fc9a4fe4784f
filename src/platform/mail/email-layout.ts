import { html, UnsafeUrlError, type SafeHtml } from '../web/html.js';

/** What a domain says in an e-mail; all plain text (escaped here), never markup. */
export interface EmailContent {
  /** The line mail apps show after the subject in the inbox; hidden in the message itself. */
  preheader: string;
  heading: string;
  paragraphs: string[];
  /** The one thing to do: a button in HTML, the label and the URL written out in text. Absolute http(s) only. */
  action?: { label: string; url: string } | undefined;
  /** Facts shown as a two-column list (who asks, what for, until when). */
  details?: { label: string; value: string }[] | undefined;
  /** Why the person got this message and what to do if it was not meant for them. */
  footer: string;
}

const FONT = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";
/** The colours of the pages (web.css): text, muted text, page, line, accent; contrast AA on white. */
const TEXT = '#1a1d21';
const MUTED = '#4b5563';
const PAGE = '#f3f4f6';
const LINE = '#d1d5db';
const ACCENT = '#1d4ed8';

/**
 * Padding after the preheader: mail apps fill the preview line with the start of the body after
 * a short preheader, so it ends in invisible characters (zero-width non-joiner, no-break space).
 */
const PREHEADER_PADDING = new Array(60).fill(html`&zwnj;&nbsp;`);

/**
 * Renders an e-mail in the layout of every message the service sends: the HTML part (tables and
 * inline styles, which is what Outlook, Gmail and Apple Mail all render the same way; a fluid
 * column at most 600 px wide; a hidden preheader; a "bulletproof" button — a link padded inside a
 * coloured table cell, so it stays a button where CSS padding on links is dropped), and the
 * plain-text part with the action's URL written out, for text-only clients and for people who
 * prefer them.
 *
 * Everything given is text: it is escaped by the `html` template, so `<script>` or a quote in a
 * name cannot become markup. The action URL must be absolute http(s): a relative link means nothing
 * in a mailbox, and the template refuses `javascript:` and the like anyway.
 */
export function renderEmail(content: EmailContent): { html: string; text: string } {
  if (content.action) checkActionUrl(content.action.url);
  return { html: renderHtml(content).value, text: renderText(content) };
}

function checkActionUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UnsafeUrlError('is not an absolute URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new UnsafeUrlError(`must use http or https, not ${parsed.protocol}`);
}

function renderHtml(content: EmailContent): SafeHtml {
  const cell = (padding: string, extra = '') =>
    `padding:${padding};font-family:${FONT};font-size:16px;line-height:24px;color:${TEXT};${extra}`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="x-apple-disable-message-reformatting">
<meta name="color-scheme" content="light">
<meta name="supported-color-schemes" content="light">
<title>${content.heading}</title>
</head>
<body style="margin:0;padding:0;width:100%;background-color:${PAGE};">
<div style="display:none;max-height:0;max-width:0;overflow:hidden;opacity:0;mso-hide:all;font-size:1px;line-height:1px;color:${PAGE};">${content.preheader}${PREHEADER_PADDING}</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;background-color:${PAGE};">
<tbody>
<tr>
<td align="center" style="padding:24px 12px;">
<!--[if mso]><table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0"><tr><td><![endif]-->
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;background-color:#ffffff;border:1px solid ${LINE};border-radius:8px;">
<tbody>
<tr>
<td style="${cell('24px 24px 0', 'font-size:15px;font-weight:700;')}">ownproof</td>
</tr>
<tr>
<td style="${cell('16px 24px 0')}"><h1 style="margin:0;font-family:${FONT};font-size:22px;line-height:28px;font-weight:700;color:${TEXT};">${content.heading}</h1></td>
</tr>
<tr>
<td style="${cell('16px 24px 8px')}">
${content.paragraphs.map(
  (paragraph) => html`<p style="margin:0 0 16px;">${withLineBreaks(paragraph)}</p>
`,
)}</td>
</tr>
${content.action ? actionRow(content.action, cell) : ''}${content.details?.length ? detailsRow(content.details, cell) : ''}</tbody>
</table>
<!--[if mso]></td></tr></table><![endif]-->
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;">
<tbody>
<tr>
<td align="center" style="${cell('16px 24px', `font-size:13px;line-height:20px;color:${MUTED};`)}">${content.footer}</td>
</tr>
</tbody>
</table>
</td>
</tr>
</tbody>
</table>
</body>
</html>
`;
}

/**
 * A paragraph's line breaks as `<br>`, so a client's message keeps its lines as in the text part.
 * Not `white-space: pre-line`: Outlook for Windows renders mail with Word's engine, which drops CSS
 * it does not know, and webmail sanitisers vary; `<br>` is plain HTML that every mail app renders.
 */
function withLineBreaks(text: string): SafeHtml[] {
  return text.split(/\r\n|\r|\n/).map((line, i) => (i === 0 ? html`${line}` : html`<br>${line}`));
}

function actionRow(action: { label: string; url: string }, cell: (padding: string, extra?: string) => string): SafeHtml {
  return html`<tr>
<td style="${cell('0 24px 24px')}">
<table role="presentation" cellpadding="0" cellspacing="0" border="0">
<tbody>
<tr>
<td align="center" bgcolor="${ACCENT}" style="border-radius:6px;background-color:${ACCENT};">
<a href="${action.url}" target="_blank" style="display:inline-block;padding:12px 24px;border:1px solid ${ACCENT};border-radius:6px;font-family:${FONT};font-size:16px;line-height:24px;font-weight:600;color:#ffffff;text-decoration:none;">${action.label}</a>
</td>
</tr>
</tbody>
</table>
<p style="margin:16px 0 0;font-size:14px;line-height:20px;color:${MUTED};">If the button does not work, copy this link into your browser:<br><a href="${action.url}" target="_blank" style="color:${ACCENT};word-break:break-all;">${action.url}</a></p>
</td>
</tr>
`;
}

function detailsRow(details: readonly { label: string; value: string }[], cell: (padding: string, extra?: string) => string): SafeHtml {
  return html`<tr>
<td style="${cell('0 24px 24px')}">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;">
<tbody>
${details.map(
  (detail) => html`<tr>
<td valign="top" style="${cell('8px 12px 8px 0', `width:40%;border-top:1px solid ${LINE};font-size:14px;line-height:20px;color:${MUTED};`)}">${detail.label}</td>
<td valign="top" style="${cell('8px 0', `border-top:1px solid ${LINE};font-size:14px;line-height:20px;word-break:break-word;`)}">${detail.value}</td>
</tr>
`,
)}</tbody>
</table>
</td>
</tr>
`;
}

/** The plain-text part: the same words in the same order, the action's URL on a line of its own. */
function renderText(content: EmailContent): string {
  const blocks = [content.heading, ...content.paragraphs];
  if (content.action) blocks.push(`${content.action.label}:\n${content.action.url}`);
  if (content.details?.length) blocks.push(content.details.map((detail) => `${detail.label}: ${detail.value}`).join('\n'));
  blocks.push(`-- \n${content.footer}`);
  return `${blocks.join('\n\n')}\n`;
}
