import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { chromiumAvailable, checkPage, launchChromium, newBrowserContext, VIEWPORTS } from '../../../test/support/browser.js';
import { createHostedSession, fetchSession } from '../../../test/support/browser-session.js';
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

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestApp('sqlite'), launchChromium()]);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    client = await t.newClient('Acme Budget');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it.each(VIEWPORTS)('says the connection could not start, on a $name screen', async (viewport) => {
    const { session, path } = await createHostedSession(t, client);
    const context = await newBrowserContext(browser, viewport);
    try {
      const page = await context.newPage();
      const response = await page.goto(`${origin}${path}`);
      expect(response?.status()).toBe(500);
      await page.getByRole('heading', { name: 'We couldn’t start the connection' }).waitFor();
      const result = await checkPage(page, `${viewport.name}-17-initialization-failed`);
      expect(result.violations).toEqual([]);
      expect(result.overflow).toBeLessThanOrEqual(0);
      expect((await fetchSession(t, client.testKey, session.id)).status).toBe('abandoned');
    } finally {
      await context.close();
    }
  });
});
