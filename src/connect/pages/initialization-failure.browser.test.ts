import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { chromiumAvailable, launchChromium, PHONE, VIEWPORTS } from '../../../test/support/browser.js';
import { createHostedSession, fetchSession } from '../../../test/support/browser-session.js';
import { PageChecks } from '../../../test/support/page-checks.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';

// The first page cannot be built: the flow fails to initialise.
vi.mock('./disclaimer-page.js', () => ({
  disclaimerPage: () => {
    throw new Error('template exploded');
  },
}));

describe.skipIf(!chromiumAvailable())('a hosted flow that fails to initialise, in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let client: TestClient;
  let origin: string;
  let checks: PageChecks;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestApp('sqlite'), launchChromium()]);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    client = await t.newClient('Acme Budget');
    checks = new PageChecks(browser);
  });
  afterAll(async () => {
    await checks?.close();
    await browser?.close();
    await t?.close();
  });

  // The server cannot tell the screen size, so the flow runs on a phone; the page is checked at
  // both sizes (see PageChecks).
  it('says the connection could not start and abandons the session', async () => {
    const { session, path } = await createHostedSession(t, client);
    const page = await (await checks.newContext(PHONE)).newPage();
    const response = await page.goto(`${origin}${path}`);
    expect(response?.status()).toBe(500);
    await page.getByRole('heading', { name: 'We couldn’t start the connection' }).waitFor();
    await checks.look(page, PHONE, '17-initialization-failed');
    expect((await fetchSession(t, client.testKey, session.id)).status).toBe('abandoned');
    for (const viewport of VIEWPORTS) expect(checks.pagesChecked(viewport), viewport.name).toEqual(['17-initialization-failed']);
  });
});
