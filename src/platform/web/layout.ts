import { html, type SafeHtml } from './html.js';

/** One link of a surface's navigation. */
export interface NavLink {
  label: string;
  href: string;
  /** The link to the page being shown (`aria-current="page"`). */
  current?: boolean;
}

/** What a page puts into the layout: its title and body, and the parts of the header that vary per request. */
export interface LayoutInput {
  title: string;
  body: SafeHtml;
  /** Shows the "Test mode" badge; omitted on pages that must not reveal anything about a session. */
  testMode?: boolean;
  /** The surface's navigation (e.g. the portal's sections), shown in the header. */
  nav?: readonly NavLink[];
  /** The signed-in person (e.g. the portal's account holder), shown in the header. */
  person?: SafeHtml | string;
  /** Includes the kit's script (deferred, from our origin). */
  script?: boolean;
}

/** The slots a surface fills once for all its pages. */
export interface SurfaceLayout {
  /** URL of the surface's stylesheet (under its prefix). */
  stylesheet: string;
  /** URL of the kit's script, for pages that include it. */
  script: string;
  /** Shown beside the brand ("Portal"); absent to show the brand alone. */
  surfaceName?: string;
  /** The footer line. */
  footer: string;
}

/**
 * The shared document around every page: language, viewport for phones, our stylesheet, and no
 * referrer — some pages carry a secret in their URL (the hosted connect link), which must not leak
 * to a page the user follows a link to. `icon` is an empty data URL so the browser does not ask
 * for /favicon.ico.
 */
export function renderPage(surface: SurfaceLayout, page: LayoutInput): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${page.title} · ownproof</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${surface.stylesheet}">
${page.script ? html`<script src="${surface.script}" defer></script>` : ''}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
<span class="brand">ownproof${surface.surfaceName ? html`<span class="surface-name">${surface.surfaceName}</span>` : ''}</span>
${
  page.testMode || page.person !== undefined
    ? html`<span class="header-meta">${page.testMode ? html`<span class="badge">Test mode</span>` : ''}${page.person !== undefined ? html`<span class="signed-in">Signed in as <strong>${page.person}</strong></span>` : ''}</span>`
    : ''
}
</header>
${
  page.nav?.length
    ? html`<nav class="site-nav" aria-label="${surface.surfaceName ?? 'Main'}">
<ul>
${page.nav.map((link) => html`<li><a href="${link.href}"${link.current ? html` aria-current="page"` : ''}>${link.label}</a></li>`)}
</ul>
</nav>`
    : ''
}
<main id="main" tabindex="-1">
<div class="card">
${page.body}
</div>
</main>
<footer class="site-footer">
<p>${surface.footer}</p>
</footer>
</body>
</html>
`.value;
}
