import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveInPortal, connectInHostedPages } from '../../../scripts/demo/browser-holder.js';
import { chromiumAvailable, launchChromium, PHONE, screenshot } from '../../../test/support/browser.js';
import { startNodeProcess, startServe, type LongRunningProcess, type ServingProcess } from '../../../test/support/cli-process.js';
import { freePort } from '../../../test/support/free-port.js';
import { PageChecks } from '../../../test/support/page-checks.js';

const APP_DIR = path.resolve(import.meta.dirname, '..');

/**
 * examples/lender-app as its README runs it, against `ownproof serve` on SQLite, driven in
 * Chromium on a phone screen: the applicant applies, connects on the hosted pages (wallet proven,
 * Sandbox Exchange) and returns; the lender sees the balances, asks for a statement; the applicant
 * approves in the portal from the e-mail; the app, told by verified webhooks, generates the
 * statement and serves its PDF. Each page of the app is checked at both screen sizes (screenshot,
 * axe, no sideways scrolling, no script, tap targets).
 */
describe.skipIf(!chromiumAvailable())('the example lender app', () => {
  let dataDir: string;
  let ownproof: ServingProcess;
  let app: LongRunningProcess;
  let appUrl: string;
  let browser: Browser;
  let checks: PageChecks;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-lender-app-'));
    const [ownproofPort, appPort] = [await freePort(), await freePort()];
    [ownproof, browser] = await Promise.all([startServe({ DATA_DIR: dataDir, PORT: String(ownproofPort) }), launchChromium()]);
    const apiKey = /sk_test_\w+/.exec(ownproof.banner)?.[0] as string;
    appUrl = `http://127.0.0.1:${appPort}`;
    // `npm start` in examples/lender-app, whose tsconfig maps @ownproof/sdk to the SDK's sources.
    app = startNodeProcess(['--import', 'tsx', path.join(APP_DIR, 'src/server.ts')], {
      TSX_TSCONFIG_PATH: path.join(APP_DIR, 'tsconfig.json'),
      OWNPROOF_API_KEY: apiKey,
      OWNPROOF_BASE_URL: ownproof.url,
      PORT: String(appPort),
    });
    await app.waitForLine(/is listening on/, 45_000);
    checks = new PageChecks(browser);
    context = await checks.newContext(PHONE);
    page = await context.newPage();
  }, 90_000);

  afterAll(async () => {
    await checks?.close();
    await browser?.close();
    await app?.stop();
    await ownproof?.process.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const look = (name: string) => checks.look(page, PHONE, `lender-app-${name}`);
  const shoot = (name: string) => screenshot(page, `lender-app-ownproof-${name}`);

  it('takes an applicant from the form through ownproof to balances, an approved request and the statement PDF', async () => {
    await page.goto(appUrl);
    await page.getByRole('heading', { name: 'Apply for a loan' }).waitFor();
    await look('01-apply');
    await page.getByLabel('Your name').fill('Ada Lovelace');
    await page.getByLabel('Your e-mail address').fill('ada@example.com');
    await page.getByRole('button', { name: 'Connect your accounts' }).click();

    // On ownproof's hosted pages, then back through the return_url.
    await page.waitForURL(`${ownproof.url}/connect/**`);
    await connectInHostedPages(page, shoot);
    expect(page.url()).toMatch(new RegExp(`^${appUrl}/applications/app_[0-9a-f-]+$`));
    const applicationUrl = page.url();
    await page.getByRole('heading', { name: 'Application of Ada Lovelace' }).waitFor();

    // The first refresh runs after Done; the page reads the balances once it has.
    await expect
      .poll(async () => (await page.reload(), page.getByRole('table', { name: 'Balances of Sandbox Exchange (user_good)' }).count()), {
        timeout: 30_000,
      })
      .toBe(1);
    await page.getByRole('table', { name: 'Balances of Bitcoin wallet (native segwit)' }).waitFor();
    const main = await page.textContent('main');
    expect(main).toContain('Ownership proven');
    expect(main).toMatch(/BTC\s*1\.66298776/);
    expect(main).toMatch(/EUR\s*4758\.7\s*4282\.83/);
    await expect.poll(async () => (await page.reload(), page.getByText('session.completed').count()), { timeout: 30_000 }).toBe(1);
    await look('02-accounts');

    await page.getByRole('button', { name: 'Ask for a wallet statement' }).click();
    const waiting = await page.getByRole('status').textContent();
    expect(waiting).toMatch(/^We asked ada@example\.com by e-mail to approve sharing their wallet \(access request ar_\w+\)\.$/);
    await look('03-waiting');
    const requestId = /ar_\w+/.exec(waiting as string)?.[0] as string;

    // The applicant, in the portal from the e-mail; then back at the lender's page.
    await approveInPortal(page, ownproof.url, requestId, 'ada@example.com', shoot);
    await page.goto(applicationUrl);
    await expect
      .poll(async () => (await page.reload(), page.getByRole('link', { name: 'Download the statement (PDF)' }).count()), {
        timeout: 60_000,
      })
      .toBe(1);
    // The page reads the statement from the API; its webhook is delivered by another job and may come a moment later.
    await expect.poll(async () => (await page.reload(), page.getByText('statement.completed').count()), { timeout: 30_000 }).toBe(1);
    const statement = await page.textContent('main');
    expect(statement).toMatch(/Statement stmt_\w+ is ready\./);
    for (const event of ['session.completed', 'access_request.granted', 'statement.completed']) expect(statement).toContain(event);
    await look('04-statement');

    const pdf = await page.request.get(
      await page
        .getByRole('link', { name: 'Download the statement (PDF)' })
        .getAttribute('href')
        .then((href) => new URL(href as string, appUrl).href),
    );
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    const check = await fetch(`${ownproof.url}/v1/verify/statements/verify`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/pdf' },
      body: await pdf.body(),
    });
    expect(await check.json()).toMatchObject({ valid: true });
  }, 180_000);

  it('refuses a webhook whose signature does not check, and a return_url visit for a session it does not know', async () => {
    const forged = await fetch(`${appUrl}/webhooks`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      },
      body: JSON.stringify({ id: 'evt_1', type: 'statement.completed', data: { object: {} } }),
    });
    expect(forged.status).toBe(400);
    await page.goto(`${appUrl}/return?session_id=sess_madeup&status=completed`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await look('05-not-found');
  });
});
