import { html, type SafeHtml } from './html.js';

export interface PageOptions {
  title: string;
  body: SafeHtml;
  /** URL of the stylesheet (under the pages' prefix). */
  stylesheet: string;
  /** Shows the "Test mode" badge; omitted on pages that must not reveal anything about a session. */
  testMode?: boolean;
}

/**
 * The shared document around every page: language, viewport for phones, our stylesheet, and no
 * referrer — the hosted URL carries the session secret, which must not leak to a page the user
 * follows a link to. `icon` is an empty data URL so the browser does not ask for /favicon.ico.
 */
export function renderPage(options: PageOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${options.title} · ownproof</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${options.stylesheet}">
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
<span class="brand">ownproof</span>
${options.testMode ? html`<span class="badge">Test mode</span>` : ''}
</header>
<main id="main" tabindex="-1">
<div class="card">
${options.body}
</div>
</main>
<footer class="site-footer">
<p>Secure account connection by ownproof.</p>
</footer>
</body>
</html>
`.value;
}
