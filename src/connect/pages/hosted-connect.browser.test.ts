import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sandboxWallet } from '../../bitcoin/sandbox/sandbox-wallet.js';
import { EXTRA_EXCHANGES } from '../../../test/support/fake-providers.js';
import { chromiumAvailable, checkPage, launchChromium, newBrowserContext, screenshot, scriptCount, smallTapTargets, VIEWPORTS, type Viewport } from '../../../test/support/browser.js';
import { startReturnServer, type ReturnServer } from '../../../test/support/browser-return-server.js';
import { createHostedSession, fetchSession } from '../../../test/support/browser-session.js';
import { captureStream, startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';

/**
 * The hosted connect flow in Debian's Chromium, at desktop and phone sizes, on SQLite (the inject
 * tests cover both engines). Every page is screenshotted into artifacts/screenshots/ and checked
 * with axe; the session's state is read back through the API as the client would.
 */
describe.skipIf(!chromiumAvailable())('hosted connect pages in Chromium', () => {
  const log = captureStream();
  const secrets: string[] = [];
  let t: TestApp;
  let browser: Browser;
  let returns: ReturnServer;
  let client: TestClient;
  let origin: string;

  beforeAll(async () => {
    [t, browser, returns] = await Promise.all([
      startTestApp('sqlite', { config: { LOG_LEVEL: 'info' }, logStream: log.stream, seams: { extraProviders: { test: EXTRA_EXCHANGES } } }),
      launchChromium(),
      startReturnServer(),
    ]);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    client = await t.newClient('Acme Budget');
  });
  afterAll(async () => {
    await browser?.close();
    await returns?.close();
    await t?.close();
  });

  async function newSession(options: { returnUrl?: string; permissions?: string[] } = {}) {
    const created = await createHostedSession(t, client, options);
    secrets.push(created.session.client_secret);
    return { session: created.session, url: `${origin}${created.path}` };
  }

  describe.each(VIEWPORTS)('on a $name screen ($width×$height)', (viewport: Viewport) => {
    let context: BrowserContext;
    let page: Page;

    // One browser context per screen size; each test starts on a fresh page without cookies.
    beforeAll(async () => {
      context = await newBrowserContext(browser, viewport);
    });
    afterAll(async () => {
      await context.close();
    });
    beforeEach(async () => {
      await context.clearCookies();
      page = await context.newPage();
    });
    afterEach(async () => {
      await page.close();
    });

    /** Screenshot, axe, no sideways scrolling, no script, and big enough tap targets on a phone. */
    async function look(name: string) {
      const result = await checkPage(page, `${viewport.name}-${name}`);
      expect(result.violations, name).toEqual([]);
      expect(result.overflow, `${name} scrolls sideways`).toBeLessThanOrEqual(0);
      expect(await scriptCount(page), name).toBe(0);
      if (viewport.mobile) expect(await smallTapTargets(page), `${name}: tap targets under 44px`).toEqual([]);
    }

    async function continueToProviders(url: string) {
      await page.goto(url);
      await page.getByRole('button', { name: 'Continue' }).click();
      await expect.poll(() => page.url()).toMatch(/\/providers$/);
    }

    async function signIn(username: string, password: string) {
      await page.getByLabel('Username').fill(username);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Connect', exact: true }).click();
    }

    it('connects a sandbox exchange account and, without a return_url, says the tab can be closed', async () => {
      const { session, url } = await newSession({ permissions: ['balances', 'transactions', 'addresses'] });
      const response = await page.goto(url);
      expect(response?.status()).toBe(200);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('Acme Budget');
      expect(await page.textContent('main')).toContain('View current financial standings: available and current funds and overall value across currencies or assets.');
      await look('01-disclaimer');
      // Keyboard: the skip link comes first, then Continue, each with a visible focus ring.
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Continue');
      await screenshot(page, `${viewport.name}-01-keyboard-focus`);

      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Where are your assets held?' }).waitFor();
      await look('02-providers');

      await page.getByRole('link', { name: /Sandbox Exchange/ }).click();
      await page.getByRole('heading', { name: 'Connect Sandbox Exchange' }).waitFor();
      await look('03-sandbox-form');

      await signIn('user_good', 'pass_good');
      await page.getByRole('heading', { name: 'You’ve connected 1 account' }).waitFor();
      await look('04-accounts');
      expect((await fetchSession(t, client.testKey, session.id)).status).toBe('open');

      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('heading', { name: 'You’re all set' }).waitFor();
      expect(await page.textContent('main')).toContain('You can close this tab now.');
      await look('05-done');
      const done = await fetchSession(t, client.testKey, session.id);
      expect(done.status).toBe('completed');
      expect(done.accounts).toHaveLength(1);
    });

    it('shows a failed login and an outage next to the form, keeps the username, then connects', async () => {
      const { session, url } = await newSession();
      await continueToProviders(url);
      await page.getByRole('link', { name: /Sandbox Exchange/ }).click();

      await signIn('user_bad', 'pass_good');
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').textContent()).toContain('The username or password is incorrect.');
      expect(await page.getByLabel('Username').inputValue()).toBe('user_bad');
      expect(await page.getByLabel('Password').inputValue()).toBe('');
      await look('06-login-failed');

      await signIn('user_outage', 'whatever');
      await page.getByText('not responding right now').waitFor();
      await look('07-provider-outage');

      await signIn('user_good', 'pass_good');
      await page.getByRole('heading', { name: 'You’ve connected 1 account' }).waitFor();
      const open = await fetchSession(t, client.testKey, session.id);
      expect(open.status).toBe('open');
    });

    it('connects the sandbox Bitcoin wallet and an exchange, then returns to return_url with only session_id and status', async () => {
      const { session, url } = await newSession({ returnUrl: `${returns.origin}/connected` });
      await continueToProviders(url);
      await page.getByRole('link', { name: /Bitcoin wallet \(self-custody\)/ }).click();
      await page.getByRole('heading', { name: 'Connect Bitcoin wallet (self-custody)' }).waitFor();
      await look('08-wallet-form');

      await page.getByLabel('Address, extended public key or descriptor').fill(sandboxWallet().descriptor);
      await page.getByRole('button', { name: 'Connect', exact: true }).click();
      await page.getByRole('heading', { name: 'You’ve connected 1 account' }).waitFor();
      expect(await page.textContent('main')).toContain('Bitcoin wallet (native segwit)');

      await page.getByRole('link', { name: 'Connect another account' }).click();
      await page.getByRole('link', { name: /Sandbox Exchange/ }).click();
      await signIn('user_multi', 'pass_good');
      await page.getByRole('heading', { name: 'You’ve connected 3 accounts' }).waitFor();
      await look('09-accounts-three');

      await page.getByRole('button', { name: 'Done' }).click();
      await page.waitForURL(`${returns.origin}/**`);
      expect(page.url()).toBe(`${returns.origin}/connected?session_id=${session.id}&status=completed`);
      const done = await fetchSession(t, client.testKey, session.id);
      expect(done.status).toBe('completed');
      expect(done.account_ids).toHaveLength(3);
    });

    it('cancels on the disclaimer and returns to return_url with status=abandoned', async () => {
      const { session, url } = await newSession({ returnUrl: `${returns.origin}/connected?ref=42` });
      await page.goto(url);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.waitForURL(`${returns.origin}/**`);
      expect(page.url()).toBe(`${returns.origin}/connected?ref=42&session_id=${session.id}&status=abandoned`);
      expect((await fetchSession(t, client.testKey, session.id)).status).toBe('abandoned');
    });

    it('cancels after connecting, without a return_url, and says nothing was shared', async () => {
      const { session, url } = await newSession();
      await continueToProviders(url);
      await page.getByRole('link', { name: /Sandbox Exchange/ }).click();
      await signIn('user_good', 'pass_good');
      await page.getByRole('button', { name: 'Cancel without sharing' }).click();
      await page.getByRole('heading', { name: 'Connection cancelled' }).waitFor();
      await look('10-cancelled');
      const abandoned = await fetchSession(t, client.testKey, session.id);
      expect(abandoned.status).toBe('abandoned');
      expect(abandoned.accounts).toEqual([]);
    });

    it('offers a link back to an app scheme return_url instead of a redirect', async () => {
      const { session, url } = await newSession({ returnUrl: 'myapp://connect/done' });
      await continueToProviders(url);
      await page.getByRole('link', { name: /Sandbox Exchange/ }).click();
      await signIn('user_good', 'pass_good');
      await page.getByRole('button', { name: 'Done' }).click();
      const link = page.getByRole('link', { name: 'Return to Acme Budget' });
      await link.waitFor();
      expect(await link.getAttribute('href')).toBe(`myapp://connect/done?session_id=${session.id}&status=completed`);
      await look('11-return-to-app');
    });

    it('filters a long provider list with the search box, without JavaScript', async () => {
      const { url } = await newSession();
      await continueToProviders(url);
      await page.getByRole('searchbox', { name: 'Search providers' }).fill('bit');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('4 providers match “bit”.').waitFor();
      await look('12-provider-search');
      await page.getByRole('searchbox', { name: 'Search providers' }).fill('nothing like this');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('No provider matches “nothing like this”.').waitFor();
    });

    it('shows the expired page once the session has timed out', async () => {
      const { session, url } = await newSession();
      await page.goto(url);
      t.clock.advance(3601);
      const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Continue' }).click()]);
      expect(response.status()).toBe(410);
      await page.getByRole('heading', { name: 'This link has expired' }).waitFor();
      expect(await page.textContent('body')).not.toContain('Acme Budget');
      await look('13-expired');
      expect((await fetchSession(t, client.testKey, session.id)).status).toBe('abandoned');
    });

    it('refuses a form whose CSRF cookie is gone, and shows a 403 page', async () => {
      const { session, url } = await newSession();
      await page.goto(url);
      await context.clearCookies();
      const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Continue' }).click()]);
      expect(response.status()).toBe(403);
      await page.getByRole('heading', { name: 'Your request couldn’t be verified' }).waitFor();
      await look('15-csrf-refused');
      expect((await fetchSession(t, client.testKey, session.id)).status).toBe('open');
    });

    it('shows a friendly page for a provider that is not offered', async () => {
      const { url } = await newSession();
      await continueToProviders(url);
      const response = await page.goto(`${url}/providers/nowhere`);
      expect(response?.status()).toBe(404);
      await page.getByRole('heading', { name: 'This provider isn’t available' }).waitFor();
      await look('16-provider-missing');
    });

    it('shows the not-found page for an unknown link', async () => {
      const response = await page.goto(`${origin}/connect/cs_test_${'A'.repeat(32)}`);
      expect(response?.status()).toBe(404);
      await page.getByRole('heading', { name: 'This link isn’t valid' }).waitFor();
      await look('14-not-found');
    });
  });

  it('never wrote a client secret into the log', () => {
    expect(secrets.length).toBeGreaterThan(0);
    const text = log.lines.join('\n');
    expect(text).toContain('cs_test_[redacted]');
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
