import { setTimeout as sleep } from 'node:timers/promises';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_PATH, SANDBOX_WALLET_DESCRIPTOR, type AccountHolder } from './account-holder.js';

export interface BrowserHolderOptions {
  /** The ownproof server (for the development outbox, where the access request's e-mail waits). */
  baseUrl: string;
  /** A window to watch (slowed down so a person can follow), or headless. */
  headed: boolean;
  /** Where each page's screenshot goes. */
  screenshotDir: string;
  /** Told each screenshot's path. */
  onScreenshot?: (file: string) => void;
}

/**
 * The account holder in Chromium, doing what a person does: the hosted connect pages (consent,
 * the sandbox wallet proven with **Sign with the sandbox wallet**, the Sandbox Exchange, Done, back
 * to the lender's `return_url`), then the access request's e-mail in the development outbox, the
 * portal sign-in and **Approve and share**. Each page is saved as a screenshot.
 */
export async function browserHolder(options: BrowserHolderOptions): Promise<AccountHolder> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: !options.headed,
    slowMo: options.headed ? 400 : 0,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 }, locale: 'en-GB' });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  mkdirSync(options.screenshotDir, { recursive: true });
  let shots = 0;
  const shoot = async (name: string) => {
    const file = path.join(options.screenshotDir, `${String(++shots).padStart(2, '0')}-${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    options.onScreenshot?.(file);
  };

  return {
    how: options.headed ? 'in Chromium' : 'in headless Chromium',
    async completeSession(session) {
      if (session.hosted_url === null) throw new Error('the session has no hosted_url (only its create response shows it)');
      await page.goto(session.hosted_url);
      await connectInHostedPages(page, shoot);
    },
    async approveAccessRequest(request, email) {
      await approveInPortal(page, options.baseUrl, request.id, email, shoot);
    },
    close: () => browser.close(),
  };
}

/** Saves a screenshot of the page as it is now, under a name. */
export type Shoot = (name: string) => Promise<void>;

/**
 * On the hosted consent page: Continue, the sandbox wallet (pasted, then proven with **Sign with
 * the sandbox wallet**), the Sandbox Exchange as `user_good`, Done; resolves once the browser has
 * left ownproof for the lender's `return_url`.
 */
export async function connectInHostedPages(page: Page, shoot: Shoot): Promise<void> {
  const ownproofOrigin = new URL(page.url()).origin;
  await shoot('consent');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('link', { name: /Bitcoin wallet \(self-custody\)/ }).click();
  await page.getByLabel('Address, extended public key or descriptor').fill(SANDBOX_WALLET_DESCRIPTOR);
  await shoot('wallet-form');
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await page.getByRole('button', { name: 'Prove you control it' }).click();
  await page.getByRole('heading', { name: /^Prove you control / }).waitFor();
  await shoot('ownership-challenge');
  await page.getByRole('button', { name: 'Sign with the sandbox wallet' }).click();
  await page.getByText('✓ Ownership proven').waitFor();
  await page.getByRole('link', { name: 'Connect another account' }).click();
  await page.getByRole('link', { name: /Sandbox Exchange/ }).click();
  await page.getByLabel('Username').fill('user_good');
  await page.getByLabel('Password').fill('pass_good');
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await page.getByRole('heading', { name: 'You’ve connected 2 accounts' }).waitFor();
  await shoot('accounts');
  await page.getByRole('button', { name: 'Done' }).click();
  await page.waitForURL((url) => url.origin !== ownproofOrigin);
  await shoot('back-at-the-lender');
}

/**
 * The access request as its e-mail leads the person: the link in the development outbox of the
 * server at `baseUrl`, the portal's sign-in, every wallet ticked, **Approve and share**.
 */
export async function approveInPortal(page: Page, baseUrl: string, requestId: string, email: string, shoot: Shoot): Promise<void> {
  const link = await reviewLink(page, baseUrl, email);
  await page.goto(link);
  await page.getByRole('heading', { name: 'Sign in to your portal' }).waitFor();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((url) => url.pathname === `/portal/requests/${requestId}`);
  for (const box of await page.getByRole('checkbox').all()) await box.check();
  await shoot('portal-request');
  await page.getByRole('button', { name: 'Approve and share' }).click();
  await page.getByRole('status').waitFor();
  await shoot('portal-approved');
}

/** The portal link of the newest e-mail to `email` in the development outbox, once the worker has sent it. */
async function reviewLink(page: Page, baseUrl: string, email: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await page.request.get(`${baseUrl}/dev/mail/latest.json?to=${encodeURIComponent(email)}`);
    if (answer.ok()) {
      const mail = (await answer.json()) as { kind: string; links: string[] };
      const link = mail.links.find((l) => l.startsWith(`${baseUrl}/portal/`));
      if (mail.kind === 'access_request' && link !== undefined) return link;
    }
    if (Date.now() > deadline) throw new Error(`no access request e-mail to ${email} in ${baseUrl}/dev/mail within 30 s`);
    await sleep(500);
  }
}
