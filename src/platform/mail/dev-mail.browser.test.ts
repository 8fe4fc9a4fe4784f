import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, chromiumAvailable, launchChromium, PHONE, screenshot } from '../../../test/support/browser.js';
import { runDueJobs } from '../../../test/support/connect.js';
import { freePort } from '../../../test/support/free-port.js';
import { PageChecks } from '../../../test/support/page-checks.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';
import { renderEmail } from './email-layout.js';
import { insertOutboxMessage } from './outbox.repository.js';

const PAGES = ['mail-01-list', 'mail-02-message'];

/**
 * The development outbox in Chromium: the list and a message, each checked at both screen sizes
 * (`PageChecks`: screenshot, axe, no sideways scrolling, no script, tap targets), the message's
 * HTML part rendered in its sandboxed frame, and its link followed as a developer would follow a
 * sign-in link.
 */
describe.skipIf(!chromiumAvailable())('the /dev/mail outbox in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let checks: PageChecks;
  let page: Page;
  let origin: string;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestApp('sqlite'), launchChromium()]);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    checks = new PageChecks(browser);
    page = await (await checks.newContext(PHONE)).newPage();
  });
  afterAll(async () => {
    await checks?.close();
    await browser?.close();
    await t?.close();
  });

  it('lists the outbox, shows a message with its HTML part, and follows the link in it', async () => {
    await t.ctx.mailer.send({
      to: 'grace@example.com',
      subject: 'Acme Lending asks for access',
      kind: 'access_request',
      ...renderEmail({
        preheader: 'Acme Lending asks to see your verified address.',
        heading: 'Acme Lending asks for access',
        paragraphs: ['Acme Lending would like to see the Bitcoin address you proved you control.'],
        action: { label: 'Review the request', url: `${origin}/dev/mail?followed=review` },
        footer: 'You get this e-mail because Acme Lending has your address.',
      }),
    });
    const signIn = renderEmail({
      preheader: 'Your sign-in link, valid for 15 minutes.',
      heading: 'Sign in to your ownproof portal',
      paragraphs: [
        'Use the button below to sign in. The link works once and expires in 15 minutes.',
        'If you did not ask for it, you can ignore this e-mail.',
      ],
      action: { label: 'Sign in', url: `${origin}/dev/mail?followed=sign-in-link-with-a-long-token-0123456789abcdefghijklmnopqrstuvwxyz` },
      details: [
        { label: 'Requested from', value: '203.0.113.7 (Firefox on Linux)' },
        { label: 'Valid until', value: '2026-06-01 12:15 UTC' },
      ],
      footer: 'You get this e-mail because someone entered your address on the ownproof portal.',
    });
    const { messageId } = await t.ctx.mailer.send({
      to: 'ada.lovelace@example.com',
      subject: 'Your sign-in link',
      kind: 'portal_sign_in',
      ...signIn,
    });

    await page.goto(`${origin}/dev/mail`);
    await page.getByRole('heading', { name: 'Outbox' }).waitFor();
    await checks.look(page, PHONE, 'mail-01-list');

    await page.getByRole('link', { name: /Your sign-in link/ }).click();
    await page.getByRole('heading', { name: 'Your sign-in link' }).waitFor();
    expect(page.url()).toBe(`${origin}/dev/mail/${messageId}`);
    // The HTML part renders in its frame (our pages' policy would block a frame without frame-src 'self').
    const frame = page.frameLocator('iframe.mail-frame');
    await frame.getByRole('heading', { name: 'Sign in to your ownproof portal' }).waitFor();
    await expect(frame.getByRole('link', { name: 'Sign in' }).getAttribute('href')).resolves.toMatch(/followed=sign-in-link/);
    await checks.look(page, PHONE, 'mail-02-message');

    await page.getByRole('link', { name: /followed=sign-in-link/ }).click();
    await page.waitForURL(/\/dev\/mail\?followed=sign-in-link/);
    await page.getByRole('heading', { name: 'Outbox' }).waitFor();

    for (const viewport of checks.viewports) expect(checks.pagesChecked(viewport).sort()).toEqual(PAGES);
  });

  it('follows "Review the request" clicked inside the frame to the portal sign-in confirmation, in a new tab', async () => {
    // A server whose PUBLIC_BASE_URL is where it listens, so the links of its e-mail lead back to it.
    const port = await freePort();
    const server = await startTestApp('sqlite', { config: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
    const context = await browser.newContext();
    try {
      await server.app.listen({ host: '127.0.0.1', port });
      const base = `http://127.0.0.1:${port}`;
      const client = await server.newClient('Acme Lending');
      const holder = (
        await server.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'review@example.com' } })
      ).json();
      const request = await server.call(client.testKey, {
        method: 'POST',
        url: '/v1/verify/access_requests',
        json: { type: 'sharing', account_holder_id: holder.id, permissions: ['balances'] },
      });
      expect(request.statusCode).toBe(200);
      await runDueJobs(server.ctx);
      const mail = (await server.app.inject({ method: 'GET', url: '/dev/mail/latest.json?to=review@example.com' })).json();

      const mailPage = await context.newPage();
      await mailPage.goto(`${base}/dev/mail/${mail.id}`);
      const button = mailPage.frameLocator('iframe.mail-frame').getByRole('link', { name: 'Review the request' });
      const [portal] = await Promise.all([context.waitForEvent('page', { timeout: 10_000 }), button.click()]);
      await portal.getByRole('heading', { name: 'Sign in to your portal' }).waitFor();
      expect(portal.url()).toMatch(new RegExp(`^${base}/portal/sign-in/pl_[0-9A-Za-z]+$`));
      await expect(portal.getByRole('button', { name: 'Continue' }).isVisible()).resolves.toBe(true);
      // The outbox stays where it was.
      expect(mailPage.url()).toBe(`${base}/dev/mail/${mail.id}`);
    } finally {
      await context.close();
      await server.close();
    }
  });

  it('keeps a hostile HTML part from running script, reaching the page around it, or navigating it', async () => {
    const id = 'msg_hostile0000000000000000';
    await insertOutboxMessage(t.ctx.db, {
      id,
      to_address: 'eve@example.com',
      from_address: 'ownproof <no-reply@example.com>',
      subject: 'Hostile message',
      kind: 'access_request',
      text_body: 'Hostile',
      html_body: `<p>Hostile</p><script>document.title = 'ran'; parent.document.title = 'reached';</script><a href="${origin}/dev/mail?navigated=top" target="_top">Top</a>`,
      created_at: Math.floor(t.clock.now() / 1000),
    });
    const context = await browser.newContext();
    try {
      const mailPage = await context.newPage();
      await mailPage.goto(`${origin}/dev/mail/${id}`);
      const frame = mailPage.frameLocator('iframe.mail-frame');
      await frame.getByText('Hostile').waitFor();
      await frame.getByRole('link', { name: 'Top' }).click();
      await mailPage.waitForTimeout(500);
      expect(mailPage.url()).toBe(`${origin}/dev/mail/${id}`);
      expect(await mailPage.title()).not.toBe('reached');
      const [, mailFrame] = mailPage.frames();
      expect(mailFrame?.url()).toBe(`${origin}/dev/mail/${id}/html`);
      expect(await mailFrame?.title()).toBe('');
    } finally {
      await context.close();
    }
  });

  it('lays the HTML part out as an accessible document, at the width of a phone and of a wide mail pane', async () => {
    const mail = renderEmail({
      preheader: 'Your sign-in link.',
      heading: 'Sign in to your ownproof portal',
      paragraphs: ['Use the button below to sign in. The link works once and expires in 15 minutes.'],
      action: { label: 'Sign in', url: 'https://ownproof.example/portal/sign-in/pt_x' },
      details: [{ label: 'Valid until', value: '2026-06-01 12:15 UTC' }],
      footer: 'You get this e-mail because someone entered your address.',
    });
    // Loaded as the document itself: under /dev/mail its policy (`sandbox`, no script) also keeps axe out.
    for (const width of [360, 800]) {
      const context = await browser.newContext({ viewport: { width, height: 700 } });
      try {
        const mailPage = await context.newPage();
        await mailPage.setContent(mail.html);
        await screenshot(mailPage, `mail-03-html-part-${width}`);
        expect(await axeViolations(mailPage), `${width}px`).toEqual([]);
        const overflow = await mailPage.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        expect(overflow, `${width}px`).toBe(0);
      } finally {
        await context.close();
      }
    }
  });
});
