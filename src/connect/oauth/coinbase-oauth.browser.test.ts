import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, PHONE } from '../../../test/support/browser.js';
import { createHostedSession, fetchSession } from '../../../test/support/browser-session.js';
import {
  startFakeCoinbaseOAuth,
  OAUTH_CLIENT_ID,
  OAUTH_CLIENT_SECRET,
  type FakeCoinbaseOAuth,
} from '../../../test/support/fake-coinbase-oauth.js';
import { pointExchangeAt } from '../../../test/support/exchange-overrides.js';
import { startFakeCoinbase, type FakeCoinbase } from '../../../test/support/fake-coinbase.js';
import { freePort } from '../../../test/support/free-port.js';
import { PageChecks } from '../../../test/support/page-checks.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';

const PAGES = ['oauth-01-coinbase', 'oauth-02-connected', 'oauth-03-declined'];

/**
 * "Sign in with Coinbase" in Chromium: the button's form, the redirect on to the OAuth server
 * (which the page's CSP must allow), the server's redirect back to our one callback URL, and the
 * flow going on in the same tab. Every page is checked at both sizes (axe, overflow, tap targets).
 */
describe.skipIf(!chromiumAvailable())('Sign in with Coinbase in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let client: TestClient;
  let coinbase: FakeCoinbase;
  let oauth: FakeCoinbaseOAuth;
  let checks: PageChecks;
  let page: Page;
  let origin: string;

  beforeAll(async () => {
    // The redirect URI is under CONNECT_BASE_URL, so the server must know its own port up front.
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    coinbase = await startFakeCoinbase();
    oauth = await startFakeCoinbaseOAuth(coinbase);
    [t, browser] = await Promise.all([
      startTestApp('sqlite', {
        config: { PUBLIC_BASE_URL: origin, OAUTH_COINBASE_CLIENT_ID: OAUTH_CLIENT_ID, OAUTH_COINBASE_CLIENT_SECRET: OAUTH_CLIENT_SECRET },
        seams: {
          exchangeOverrides: { coinbase: pointExchangeAt('coinbase', coinbase.url) },
          oauthServerOverrides: { coinbase: oauth.server },
        },
      }),
      launchChromium(),
    ]);
    await t.app.listen({ host: '127.0.0.1', port });
    client = await t.newClient('Acme Budget');
    checks = new PageChecks(browser);
    page = await (await checks.newContext(PHONE)).newPage();
  });
  afterAll(async () => {
    await checks?.close();
    await browser?.close();
    await t?.close();
    await oauth?.close();
    await coinbase?.close();
  });

  async function toCoinbase(): Promise<string> {
    const { session, path } = await createHostedSession(t, client, { mode: 'live' });
    await page.goto(`${origin}${path}`);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('link', { name: /Coinbase/ }).click();
    await page.getByRole('heading', { name: 'Connect Coinbase' }).waitFor();
    return session.id;
  }

  it('signs in at the OAuth server and comes back to the flow with the account connected', async () => {
    oauth.signInAs(
      coinbase.addAccount({
        wallets: [{ uuid: '8bfc20d7-f7c6-4422-bf07-8243ca4169fe', currency: 'BTC', available: '0.25', hold: '0', transactions: [] }],
      }),
    );
    const sessionId = await toCoinbase();
    await checks.look(page, PHONE, 'oauth-01-coinbase');
    await page.getByRole('button', { name: 'Sign in with Coinbase' }).click();
    await page.getByRole('heading', { name: 'You’ve connected 1 account' }).waitFor();
    expect(await page.textContent('main')).toContain('Coinbase (signed in)');
    await checks.look(page, PHONE, 'oauth-02-connected');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('heading', { name: 'You’re all set' }).waitFor();
    const done = await fetchSession(t, client.liveKey, sessionId);
    expect(done).toMatchObject({ status: 'completed', accounts: [expect.stringMatching(/^acct_/)] });
  });

  it('says so on the Coinbase page when the person declines there', async () => {
    oauth.signInAs(coinbase.addAccount({ wallets: [] }));
    oauth.declineNext();
    await toCoinbase();
    await page.getByRole('button', { name: 'Sign in with Coinbase' }).click();
    await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('You did not allow access at Coinbase.');
    await checks.look(page, PHONE, 'oauth-03-declined');
    for (const viewport of checks.viewports) expect(checks.pagesChecked(viewport).sort()).toEqual(PAGES);
  });
});
