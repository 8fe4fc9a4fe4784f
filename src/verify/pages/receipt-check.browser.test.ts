import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { chromiumAvailable, launchChromium, PHONE } from '../../../test/support/browser.js';
import { PageChecks } from '../../../test/support/page-checks.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';
import { proveWith, testnetWallet } from '../../../test/support/verify.js';

const PAGES = ['receipt-01-form', 'receipt-02-valid', 'receipt-03-invalid'];

/** The public receipt check in Chromium: each page axe-checked and screenshotted at both sizes. */
describe.skipIf(!chromiumAvailable())('the receipt check page in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let checks: PageChecks;
  let page: Page;
  let origin: string;
  let receipt: string;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestApp('sqlite'), launchChromium()]);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const client = await t.newClient('Acme Lending');
    const holderId = (await t.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'ada@example.com' } })).json().id;
    receipt = (await proveWith(t.ctx, { clientId: client.clientId, mode: 'test' }, holderId, testnetWallet('p2wpkh'))).receipt;
    checks = new PageChecks(browser);
    page = await (await checks.newContext(PHONE)).newPage();
  });
  afterAll(async () => {
    await checks?.close();
    await browser?.close();
    await t?.close();
  });

  it('checks a pasted receipt and says it is valid, or why not', async () => {
    await page.goto(`${origin}/verify`);
    await checks.look(page, PHONE, 'receipt-01-form');
    await page.getByLabel('Claim receipt').fill(receipt);
    await page.getByRole('button', { name: 'Check the receipt' }).click();
    await page.getByRole('heading', { name: 'This receipt is valid' }).waitFor();
    await checks.look(page, PHONE, 'receipt-02-valid');
    await page.getByRole('link', { name: 'Check another receipt' }).click();
    await page.getByLabel('Claim receipt').fill(`${receipt.slice(0, -3)}AAA`);
    await page.getByRole('button', { name: 'Check the receipt' }).click();
    await page.getByRole('heading', { name: 'This receipt is not valid' }).waitFor();
    await checks.look(page, PHONE, 'receipt-03-invalid');
    for (const viewport of checks.viewports) expect(checks.pagesChecked(viewport).sort()).toEqual(PAGES);
  });
});
