import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sandboxWallet } from '../../bitcoin/sandbox/sandbox-wallet.js';
import { EXTRA_EXCHANGES } from '../../../test/support/fake-providers.js';
import {
  chromiumAvailable,
  DESKTOP,
  launchChromium,
  newBrowserContext,
  PHONE,
  screenshot,
  VIEWPORTS,
} from '../../../test/support/browser.js';
import { PageChecks } from '../../../test/support/page-checks.js';
import { startReturnServer, type ReturnServer } from '../../../test/support/browser-return-server.js';
import { createHostedSession, fetchSession } from '../../../test/support/browser-session.js';
import { captureStream, startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';

/** Every page of the flow, as the tests name them: each is checked at both screen sizes. */
const PAGES = [
  '01-disclaimer',
  '02-providers',
  '03-sandbox-form',
  '04-accounts',
  '05-done',
  '06-login-failed',
  '07-provider-outage',
  '08-wallet-form',
  '09-accounts-three',
  '10-cancelled',
  '11-return-to-app',
  '12-provider-search',
  '13-expired',
  '14-not-found',
  '15-csrf-refused',
  '16-provider-missing',
  '17-done-link',
  '18-other-browser',
];

/**
 * The hosted connect flow in Debian's Chromium, on SQLite (the inject tests cover both engines).
 * The flows run once, on a phone screen; every page they reach is checked once at each screen size
 * (screenshot into artifacts/screenshots/, axe, no sideways scrolling, no script, tap targets on
 * the phone: `PageChecks`), the desktop check on a replay of the same document. The session's
 * state is read back through the API as the client would.
 *
 * Why the flows run at one size only: the server never reads the screen size or the user agent,
 * so what a flow asserts (redirects, status codes, the session through the API) cannot depend on
 * it; the layout, which does, is what the checks at both sizes look at. The phone is the size to
 * drive: most account holders arrive in an app's browser tab, and it is the tight layout, where a
 * control hidden or covered would make Playwright's click fail. Keyboard use is tried on desktop.
 */
describe.skipIf(!chromiumAvailable())('hosted connect pages in Chromium', () => {
  const log = captureStream();
  const secrets: string[] = [];
  let t: TestApp;
  let browser: Browser;
  let returns: ReturnServer;
  let client: TestClient;
  let origin: string;
  let checks: PageChecks;

  beforeAll(async () => {
    [t, browser, returns] = await Promise.all([
      startTestApp('sqlite', {
        config: { LOG_LEVEL: 'info' },
        logStream: log.stream,
        seams: { extraProviders: { test: EXTRA_EXCHANGES } },
      }),
      launchChromium(),
      startReturnServer(),
    ]);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    client = await t.newClient('Acme Budget');
    checks = new PageChecks(browser);
  });
  afterAll(async () => {
    await checks?.close();
    await browser?.close();
    await returns?.close();
    await t?.close();
  });

  async function newSession(options: { returnUrl?: string; permissions?: string[] } = {}) {
    const created = await createHostedSession(t, client, options);
    secrets.push(created.session.client_secret);
    return { session: created.session, url: `${origin}${created.path}` };
  }

  describe(`on a phone screen (${PHONE.width}×${PHONE.height})`, () => {
    const viewport = PHONE;
    let context: BrowserContext;
    let page: Page;

    // One context and one page for the flows (a new page costs a renderer process); each test
    // starts without cookies and navigates away from the last test's page.
    beforeAll(async () => {
      context = await checks.newContext(viewport);
      page = await context.newPage();
    });
    beforeEach(async () => {
      await context.clearCookies();
    });

    /** Screenshot, axe, no sideways scrolling, no script, tap targets: once per page and screen size. */
    function look(name: string): Promise<void> {
      return checks.look(page, viewport, name);
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
      expect(await page.textContent('main')).toContain(
        'View current financial standings: available and current funds and overall value across currencies or assets.',
      );
      await look('01-disclaimer');

      await page.getByRole('button', { name: 'Continue' }).click();
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

    it('connects the sandbox Bitcoin wallet and an exchange, returns to return_url with only session_id and status, and says done on the way back', async () => {
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

      // Back from the client's page: the link says the person is done, not that it expired.
      const [back] = await Promise.all([page.waitForResponse((r) => r.url() === url), page.goBack()]);
      expect(back.status()).toBe(200);
      await page.getByRole('heading', { name: 'You’re done' }).waitFor();
      expect(await page.textContent('body')).not.toMatch(/expired|Acme Budget/);
      await look('17-done-link');
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
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Continue' }).click(),
      ]);
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
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Continue' }).click(),
      ]);
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

    it('keeps a session to the browser that accepted it: another browser with the same link is told so', async () => {
      const { session, url } = await newSession();
      await continueToProviders(url);
      // The link in another browser (the client's, say): its own cookies, none of the person's.
      await context.clearCookies();
      const response = await page.goto(url);
      expect(response?.status()).toBe(403);
      await page.getByRole('heading', { name: 'This connection is open in another browser' }).waitFor();
      await look('18-other-browser');
      expect((await fetchSession(t, client.testKey, session.id)).status).toBe('open');
    });

    it('shows the not-found page for an unknown link', async () => {
      const response = await page.goto(`${origin}/connect/cs_test_${'A'.repeat(32)}`);
      expect(response?.status()).toBe(404);
      await page.getByRole('heading', { name: 'This link isn’t valid' }).waitFor();
      await look('14-not-found');
    });
  });

  describe(`on a desktop screen (${DESKTOP.width}×${DESKTOP.height})`, () => {
    it('reaches Continue from the keyboard, skip link first, with a visible focus ring', async () => {
      const context = await newBrowserContext(browser, DESKTOP);
      try {
        const page = await context.newPage();
        const { url } = await newSession();
        await page.goto(url);
        await page.keyboard.press('Tab');
        expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');
        await page.keyboard.press('Tab');
        expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Continue');
        await screenshot(page, `${DESKTOP.name}-01-keyboard-focus`);
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { name: 'Where are your assets held?' }).waitFor();
      } finally {
        await context.close();
      }
    });
  });

  it('checked every page once at each screen size', () => {
    for (const viewport of VIEWPORTS) expect(checks.pagesChecked(viewport).sort(), viewport.name).toEqual(PAGES);
  });

  it('never wrote a client secret into the log', () => {
    expect(secrets.length).toBeGreaterThan(0);
    const text = log.lines.join('\n');
    expect(text).toContain('cs_test_[redacted]');
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
