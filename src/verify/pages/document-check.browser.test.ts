import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { chromiumAvailable, launchChromium, PHONE } from '../../../test/support/browser.js';
import { PageChecks } from '../../../test/support/page-checks.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';
import { at, makeStatementWorld, octoberHistory } from '../../../test/support/statements.js';
import { proveWith, testnetWallet } from '../../../test/support/verify.js';
import { createChainSources } from '../../bitcoin/chain-for-mode.js';
import { buildSandboxChain } from '../../bitcoin/sandbox/sandbox-chain.js';

const PAGES = [
  'receipt-01-form',
  'receipt-02-valid',
  'receipt-03-invalid',
  'receipt-04-revoked',
  'statement-01-valid',
  'statement-02-invalid',
  'statement-03-hash-error',
];

/** The public document check in Chromium: each page axe-checked and screenshotted at both sizes. */
describe.skipIf(!chromiumAvailable())('the document check page in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let checks: PageChecks;
  let page: Page;
  let origin: string;
  let receipt: string;
  let revokedReceipt: string;
  let dir: string;
  let documentHash: string;
  const sim = buildSandboxChain();

  beforeAll(async () => {
    [t, browser] = await Promise.all([
      startTestApp('sqlite', { seams: { chains: createChainSources({ esploraUrl: undefined, test: sim }) } }),
      launchChromium(),
    ]);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const client = await t.newClient('Acme Lending');
    const holderId = (
      await t.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'ada@example.com' } })
    ).json().id;
    receipt = (await proveWith(t.ctx, { clientId: client.clientId, mode: 'test' }, holderId, testnetWallet('p2wpkh'))).receipt;
    const revoked = await proveWith(t.ctx, { clientId: client.clientId, mode: 'test' }, holderId, testnetWallet('p2tr'));
    await t.ctx.db
      .updateTable('verify_claims')
      .set({ status: 'revoked', revoked_at: revoked.created_at })
      .where('id', '=', revoked.id)
      .execute();
    revokedReceipt = revoked.receipt;
    // A completed statement's PDF, as its recipient would have it on disk.
    const world = await makeStatementWorld(t, { clientName: 'Bay Credit', holder: { email: 'grace@example.com', name: 'Grace Hopper' } });
    const claim = await world.proveAddress();
    await octoberHistory(sim, claim);
    const statement = await world.completedStatement({
      claim_ids: [claim.id],
      period: { open: at('2026-10-01T00:00:00Z'), close: at('2026-11-01T00:00:00Z') },
      timezone: 'Europe/Paris',
    });
    const pdf = (await t.call(world.client.testKey, { method: 'GET', url: `/v1/verify/statements/${statement.id}/document/pdf` }))
      .rawPayload;
    documentHash = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/verify/statements/verify',
        payload: pdf,
        headers: { 'content-type': 'application/pdf' },
      })
    ).json().document_hash;
    dir = mkdtempSync(path.join(tmpdir(), 'ownproof-check-page-'));
    writeFileSync(path.join(dir, 'statement.pdf'), pdf);
    const changed = Buffer.from(pdf);
    changed[pdf.length >> 1] = (changed[pdf.length >> 1] as number) ^ 0x01;
    writeFileSync(path.join(dir, 'changed.pdf'), changed);
    checks = new PageChecks(browser);
    page = await (await checks.newContext(PHONE)).newPage();
  });
  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await checks?.close();
    await browser?.close();
    await t?.close();
  });

  it('checks a pasted receipt and says it is valid, why not, or that its claim was revoked', async () => {
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
    await page.getByLabel('Claim receipt').fill(revokedReceipt);
    await page.getByRole('button', { name: 'Check the receipt' }).click();
    await page.getByRole('heading', { name: 'This claim has been revoked' }).waitFor();
    // Told by its words, not only by the amber colour: the heading and the notice say "revoked".
    expect(await page.getByRole('status').textContent()).toMatch(/^Revoked: /);
    await checks.look(page, PHONE, 'receipt-04-revoked');
  });

  it('checks an uploaded statement PDF and a typed document hash, without scripts', async () => {
    await page.goto(`${origin}/verify`);
    await page.getByLabel('Statement PDF').setInputFiles(path.join(dir, 'statement.pdf'));
    await page.getByRole('button', { name: 'Check the statement' }).click();
    await page.getByRole('heading', { name: 'This statement is valid' }).waitFor();
    expect(await page.getByText('Grace Hopper · grace@example.com').isVisible()).toBe(true);
    await checks.look(page, PHONE, 'statement-01-valid');
    await page.getByRole('link', { name: 'Check another document' }).click();
    await page.getByLabel('Statement PDF').setInputFiles(path.join(dir, 'changed.pdf'));
    await page.getByRole('button', { name: 'Check the statement' }).click();
    await page.getByRole('heading', { name: 'This statement is not valid' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('the file was changed after it was issued');
    await checks.look(page, PHONE, 'statement-02-invalid');
    await page.getByLabel('Or its document hash').fill('not a hash');
    await page.getByRole('button', { name: 'Check the hash' }).click();
    await page.getByText('A document hash is 64 characters').waitFor();
    await checks.look(page, PHONE, 'statement-03-hash-error');
    await page.getByLabel('Or its document hash').fill(documentHash);
    await page.getByRole('button', { name: 'Check the hash' }).click();
    await page.getByRole('heading', { name: 'This statement is valid' }).waitFor();
    expect(page.url()).toBe(`${origin}/verify?document_hash=${documentHash}`);
    for (const viewport of checks.viewports) expect(checks.pagesChecked(viewport).sort()).toEqual(PAGES);
  });
});
