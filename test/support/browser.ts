import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import axe, { type Result } from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs it). We never download a browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../artifacts/screenshots/', import.meta.url));

let announced = false;

/** Whether browser tests can run; says once, plainly, when they cannot. */
export function chromiumAvailable(): boolean {
  const available = existsSync(CHROMIUM_PATH);
  if (!available && !announced) {
    announced = true;
    console.warn(`\n[ownproof] Browser tests skipped: ${CHROMIUM_PATH} is missing (apt-get install chromium; CI installs it).\n`);
  }
  return available;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface Viewport {
  name: 'desktop' | 'phone';
  width: number;
  height: number;
  mobile: boolean;
}

export const DESKTOP: Viewport = { name: 'desktop', width: 1280, height: 800, mobile: false };
export const PHONE: Viewport = { name: 'phone', width: 390, height: 844, mobile: true };
export const VIEWPORTS: readonly Viewport[] = [DESKTOP, PHONE];

export function newBrowserContext(browser: Browser, viewport: Viewport): Promise<BrowserContext> {
  return browser.newContext({
    viewport: { width: viewport.width, height: viewport.height },
    isMobile: viewport.mobile,
    hasTouch: viewport.mobile,
    locale: 'en-GB',
  });
}

/** Serious and critical accessibility violations on the page, as readable lines (empty: clean). */
export async function axeViolations(page: Page): Promise<string[]> {
  // axe-core runs in the page itself, injected once per check (evaluating its source is most of
  // the cost; @axe-core/playwright's AxeBuilder evaluated it twice per run). Our pages have no
  // frames, so there is nothing to gather from other documents.
  await page.evaluate(axe.source);
  // A string: this project compiles without the DOM typings, and `axe` is the page's global now.
  const violations = await page.evaluate<Result[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((results) => results.violations)`,
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** A full-page screenshot into artifacts/screenshots/ (git-ignored), for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** Controls shown smaller than `min` CSS pixels high: too small to tap reliably (hidden ones are not on the page). */
export function smallTapTargets(page: Page, min = 44): Promise<string[]> {
  // A link alone on its line (the whole text of its block) is a control to tap, not a word in a
  // sentence: WCAG 2.5.8 exempts only links inside running text.
  return page.evaluate<
    string[]
  >(`[...document.querySelectorAll('button, .button, input:not([type=hidden]), textarea, .provider-link, a[href]')]
    .filter((e) => e.tagName !== 'A' || (e.parentElement && e.parentElement.textContent.trim() === e.textContent.trim()))
    .filter((e) => { const r = e.getBoundingClientRect(); return e.getClientRects().length > 0 && r.height < ${min}; })
    .map((e) => (e.textContent || e.getAttribute('name') || e.tagName).trim())`);
}

/**
 * How many script elements the page has besides the page kit's own (progressive enhancement, from
 * our origin: `/…/assets/web.<hash>.js`); the CSP forbids any other, inline ones included.
 */
export function scriptCount(page: Page): Promise<number> {
  return page.evaluate<number>(
    `[...document.scripts].filter((s) => { const u = new URL(s.src || 'inline:', location.href); return !(u.origin === location.origin && /\\/assets\\/web\\.[0-9a-f]{12}\\.js$/.test(u.pathname)); }).length`,
  );
}

/**
 * What every page must pass: a full-page screenshot for people to look at, no serious or critical
 * axe violations, and nothing wider than the screen (no sideways scrolling on a phone).
 */
export async function checkPage(page: Page, name: string): Promise<{ violations: string[]; overflow: number }> {
  await screenshot(page, name);
  // Evaluated in the page; a string because this project compiles without the DOM typings.
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  return { violations: await axeViolations(page), overflow };
}
