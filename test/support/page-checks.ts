import { expect } from 'vitest';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { checkPage, newBrowserContext, scriptCount, smallTapTargets, VIEWPORTS, type Viewport } from './browser.js';

/** A document as the server sent it: all a page of ours is, since none has a script. */
interface ServedDocument {
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Response headers that describe the transfer or the session, not the document. */
const NOT_REPLAYED = new Set(['set-cookie', 'content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive']);

/**
 * Looks at every distinct page once per screen size, whichever test gets there first: a
 * registry of the pages already checked, for one test file (one browser).
 *
 * A check is what every page must pass (`inspect`): a full-page screenshot into
 * artifacts/screenshots/, no serious or critical axe violations, no sideways scrolling, no
 * script, and 44 px tap targets on a phone. Axe and the screenshot are most of a browser test's
 * time, so a page that a later test reaches again is not checked again.
 *
 * Behaviour tests drive a flow in one context (`newContext`) at one screen size. When they reach
 * a page, `look` checks it there, in place, and at every other size by replaying the same
 * document (the response's status, headers and body, fulfilled at the same URL; the stylesheet
 * still comes from the server) in a context of that size. Our pages are server-rendered without
 * JavaScript and the server never reads the screen size or user agent, so the replayed document
 * is the page a browser of that size would get; this spares driving every flow once per size.
 * The checks of the different sizes run concurrently, in separate contexts.
 */
export class PageChecks {
  private readonly checked = new Map<Viewport['name'], string[]>();
  private readonly documents = new WeakMap<Page, Response>();
  private readonly replayPages = new Map<Viewport['name'], Promise<Page>>();
  private readonly contexts: BrowserContext[] = [];

  constructor(
    private readonly browser: Browser,
    readonly viewports: readonly Viewport[] = VIEWPORTS,
  ) {
    for (const viewport of viewports) this.checked.set(viewport.name, []);
  }

  /**
   * A browser context at `viewport` whose pages `look` can check: it remembers each page's
   * current document (the last main-frame response that was not a redirect). The pages that will
   * replay its documents at the other sizes are opened meanwhile.
   */
  newContext(viewport: Viewport): Promise<BrowserContext> {
    for (const other of this.viewports) {
      // Awaited by the first replay, which reports a failure; this branch only keeps it from being unhandled.
      if (other.name !== viewport.name) this.replayPage(other).catch(() => undefined);
    }
    return this.trackedContext(viewport);
  }

  private async trackedContext(viewport: Viewport): Promise<BrowserContext> {
    const context = await newBrowserContext(this.browser, viewport);
    this.contexts.push(context);
    context.on('response', (response) => {
      const request = response.request();
      if (!request.isNavigationRequest() || request.frame().parentFrame() !== null) return;
      if (response.status() >= 300 && response.status() < 400) return;
      this.documents.set(request.frame().page(), response);
    });
    return context;
  }

  /**
   * Checks the page `page` shows, named `name` (screenshots are `<size>-<name>.png`), at every
   * size it has not been checked at yet: at `viewport` (the page's own) in place, at the others
   * by replay. Fails the test with every problem found, at every size.
   */
  async look(page: Page, viewport: Viewport, name: string): Promise<void> {
    const due = this.viewports.filter((v) => !this.checked.get(v.name)?.includes(name));
    if (due.length === 0) return;
    for (const v of due) this.checked.get(v.name)?.push(name);
    const here = due.filter((v) => v.name === viewport.name);
    const elsewhere = due.filter((v) => v.name !== viewport.name);
    const served = elsewhere.length > 0 ? this.servedDocument(page) : undefined;
    const problems = await Promise.all([
      ...here.map((v) => inspect(page, v, name)),
      ...(served ? elsewhere.map((v) => this.replay(served, v, name)) : []),
    ]);
    expect(problems.flat(), name).toEqual([]);
  }

  /** The names of the pages checked at a size, in the order they were first seen. */
  pagesChecked(viewport: Viewport): string[] {
    return [...(this.checked.get(viewport.name) ?? [])];
  }

  async close(): Promise<void> {
    await Promise.all(this.contexts.map((context) => context.close()));
  }

  private async servedDocument(page: Page): Promise<ServedDocument> {
    const response = this.documents.get(page);
    if (!response || response.url() !== page.url()) {
      throw new Error(`no document recorded for ${page.url()}: open the page in a context from PageChecks.newContext`);
    }
    const headers = Object.fromEntries(Object.entries(await response.allHeaders()).filter(([name]) => !NOT_REPLAYED.has(name)));
    return { url: response.url(), status: response.status(), headers, body: await response.body() };
  }

  private async replay(document: Promise<ServedDocument>, viewport: Viewport, name: string): Promise<string[]> {
    const [served, page] = await Promise.all([document, this.replayPage(viewport)]);
    await page.route(
      (url) => url.href === served.url,
      (route) => route.fulfill({ status: served.status, headers: served.headers, body: served.body }),
      { times: 1 },
    );
    const response = await page.goto(served.url);
    if (response?.status() !== served.status)
      return [`${viewport.name} ${name}: the replay answered ${response?.status()}, not ${served.status}`];
    return inspect(page, viewport, name);
  }

  /** One page per size for replays, made when first needed and reused (a new page costs a renderer). */
  private replayPage(viewport: Viewport): Promise<Page> {
    let page = this.replayPages.get(viewport.name);
    if (!page) {
      page = newBrowserContext(this.browser, viewport).then((context) => {
        this.contexts.push(context);
        return context.newPage();
      });
      this.replayPages.set(viewport.name, page);
    }
    return page;
  }
}

/**
 * Everything wrong with the page as it is now, at `viewport`, as readable lines: serious or
 * critical axe violations, sideways scrolling, scripts, and (on a phone) tap targets under 44 px.
 * Takes the screenshot `<size>-<name>.png` on the way.
 */
export async function inspect(page: Page, viewport: Viewport, name: string): Promise<string[]> {
  const label = `${viewport.name} ${name}`;
  const { violations, overflow } = await checkPage(page, `${viewport.name}-${name}`);
  const problems = violations.map((violation) => `${label}: ${violation}`);
  if (overflow > 0) problems.push(`${label}: scrolls sideways by ${overflow}px`);
  const scripts = await scriptCount(page);
  if (scripts > 0) problems.push(`${label}: ${scripts} script element(s)`);
  if (viewport.mobile) {
    for (const target of await smallTapTargets(page)) problems.push(`${label}: tap target under 44px: ${target}`);
  }
  return problems;
}
