import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { signMessage, singleKeyWallet } from '../../bitcoin/message/sign-message.js';
import { sandboxWallet } from '../../bitcoin/sandbox/sandbox-wallet.js';
import { chromiumAvailable, launchChromium, PHONE } from '../../../test/support/browser.js';
import { createHostedSession, fetchSession } from '../../../test/support/browser-session.js';
import { PageChecks } from '../../../test/support/page-checks.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { testnetWallet } from '../../../test/support/verify.js';
import { CHALLENGE_TTL_SECONDS, MAX_FAILED_ATTEMPTS } from '../../verify/claims/proof.service.js';
import type { SigningWallet } from '../../bitcoin/message/sign-message.js';

/** Every page of the ownership proof, each checked at both screen sizes (see hosted-connect.browser.test.ts). */
const PAGES = [
  'proof-01-accounts-unproven',
  'proof-02-challenge',
  'proof-03-wrong-signature',
  'proof-04-accounts-proven',
  'proof-05-expired',
  'proof-06-too-many',
  'proof-07-deposit',
  'proof-08-deposit-not-yet',
];

/**
 * The ownership proof in the hosted connect flow, in Debian's Chromium: a connected wallet or
 * address is proven by pasting a signature made here with its key (P2WPKH, P2TR, legacy P2PKH, a
 * 2-of-3 P2WSH with a BIP-322 full signature, and a wallet from its descriptor); a wrong
 * signature, an expired message and too many tries are explained. The copy button is checked with
 * the real clipboard. SQLite only (the inject tests cover both engines).
 */
describe.skipIf(!chromiumAvailable())('proving ownership in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let client: TestClient;
  let origin: string;
  let checks: PageChecks;
  let context: BrowserContext;
  let page: Page;
  const look = (name: string) => checks.look(page, PHONE, name);

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestApp('sqlite'), launchChromium()]);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    client = await t.newClient('Acme Lending');
    checks = new PageChecks(browser);
    context = await checks.newContext(PHONE);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    page = await context.newPage();
  });
  beforeEach(async () => {
    await context.clearCookies();
  });
  afterAll(async () => {
    await checks?.close();
    await browser?.close();
    await t?.close();
  });

  /** A session in which the person connected `wallet` (as typed in the wallet form); ends on the accounts page. */
  async function connect(wallet: string) {
    const { session, path } = await createHostedSession(t, client, { permissions: ['balances', 'transactions'] });
    await page.goto(`${origin}${path}`);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('link', { name: /Bitcoin wallet \(self-custody\)/ }).click();
    await page.getByLabel('Address, extended public key or descriptor').fill(wallet);
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByRole('heading', { name: 'You’ve connected 1 account' }).waitFor();
    return session;
  }

  /** From the accounts page to the challenge; returns the message exactly as shown. */
  async function openChallenge(): Promise<string> {
    await page.getByRole('button', { name: 'Prove you control it' }).click();
    await page.getByRole('heading', { name: /^Prove you control / }).waitFor();
    return page.getByLabel('Message to sign', { exact: true }).inputValue();
  }

  async function pasteSignature(signature: string) {
    await page.getByLabel('Signature', { exact: true }).fill(signature);
    await page.getByRole('button', { name: 'Check signature' }).click();
  }

  async function expectProven(sessionId: string) {
    await page.getByText('✓ Ownership proven').waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('heading', { name: 'You’re all set' }).waitFor();
    const [accountId] = (await fetchSession(t, client.testKey, sessionId)).accounts;
    const account = (await t.call(client.testKey, { method: 'GET', url: `/v1/connect/accounts/${accountId}` })).json();
    expect(account.ownership.status).toBe('verified');
    return account.ownership.claim as string;
  }

  it('proves a wallet from its descriptor: copy the message, sign with the key of receive 0, paste', async () => {
    const sandbox = sandboxWallet();
    const session = await connect(sandbox.descriptor);
    await look('proof-01-accounts-unproven');
    const message = await openChallenge();
    await look('proof-02-challenge');
    expect(message.startsWith('ownproof ownership proof\n')).toBe(true);
    await page.getByRole('button', { name: 'Copy message' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(message);
    await page.getByText('Show the message as a QR code').click();
    expect(await page.locator('.qr-code svg').isVisible()).toBe(true);
    await pasteSignature(signMessage(singleKeyWallet(sandbox.privateKey('receive', 0), 'p2wpkh', 'testnet'), message));
    await page.getByText('✓ Ownership proven').waitFor();
    await look('proof-04-accounts-proven');
    const claimId = await expectProven(session.id);
    const claim = (await t.call(client.testKey, { method: 'GET', url: `/v1/verify/claims/${claimId}` })).json();
    expect(claim.proof).toMatchObject({ format: 'bip322-simple', signed_path: '0/0' });
  });

  it.each([
    ['p2wpkh', 'bip322-simple'],
    ['p2tr', 'bip322-simple'],
    ['p2pkh', 'legacy'],
    ['p2wsh-multi', 'bip322-full'],
  ] as const)('proves a %s address with a signature made by its key(s)', async (type, format) => {
    const wallet: SigningWallet = testnetWallet(type);
    const session = await connect(wallet.address);
    const message = await openChallenge();
    await pasteSignature(signMessage(wallet, message));
    const claimId = await expectProven(session.id);
    const claim = (await t.call(client.testKey, { method: 'GET', url: `/v1/verify/claims/${claimId}` })).json();
    expect(claim).toMatchObject({ subject: { type: 'address', address: wallet.address }, proof: { format } });
  });

  it('explains a signature over Windows line endings, then takes the right one', async () => {
    const wallet = testnetWallet('p2wpkh');
    const session = await connect(wallet.address);
    const message = await openChallenge();
    await pasteSignature(signMessage(wallet, message.replace(/\n/g, '\r\n')));
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Windows line endings');
    expect(await alert.textContent()).toContain(`You can try ${MAX_FAILED_ATTEMPTS - 1} more times`);
    await look('proof-03-wrong-signature');
    await pasteSignature(signMessage(wallet, message));
    await expectProven(session.id);
  });

  it('says an expired message has expired and gets a fresh one', async () => {
    const wallet = testnetWallet('p2tr');
    await connect(wallet.address);
    await openChallenge();
    t.clock.advance(CHALLENGE_TTL_SECONDS + 1);
    await pasteSignature('AAAA');
    await page.getByRole('heading', { name: 'This message has expired' }).waitFor();
    await look('proof-05-expired');
    await page.getByRole('button', { name: 'Get a fresh message' }).click();
    await page.getByRole('heading', { name: /^Prove you control / }).waitFor();
  });

  it('closes the message after five wrong signatures', async () => {
    const wallet = testnetWallet('p2wpkh');
    await connect(wallet.address);
    await openChallenge();
    for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) await pasteSignature(signMessage(wallet, `not the message ${i}`));
    await page.getByRole('heading', { name: 'Too many signatures did not match' }).waitFor();
    await look('proof-06-too-many');
  });

  it('proves a wallet with a deposit made on the sandbox chain, after saying when none has arrived yet', async () => {
    const sandbox = sandboxWallet();
    const session = await connect(sandbox.descriptor);
    await page.getByRole('button', { name: 'Prove you control it' }).click();
    await page.getByRole('button', { name: 'Prove it with a small deposit instead' }).click();
    await page.getByRole('heading', { name: 'Prove it with a small deposit' }).waitFor();
    await look('proof-07-deposit');
    const address = await page.getByLabel('Send to', { exact: true }).inputValue();
    expect(address).toMatch(/^tb1q/);
    await page.getByRole('button', { name: 'I’ve sent it: check now' }).click();
    await page.getByRole('status').waitFor();
    expect(await page.getByRole('status').textContent()).toContain('has arrived yet');
    await look('proof-08-deposit-not-yet');
    await page.getByRole('button', { name: 'Send it from the sandbox wallet' }).click();
    const claimId = await expectProven(session.id);
    const claim = (await t.call(client.testKey, { method: 'GET', url: `/v1/verify/claims/${claimId}` })).json();
    expect(claim.proof).toMatchObject({ format: 'deposit', txid: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('refuses a mainnet address in test mode on the wallet form, before any proof', async () => {
    const { path } = await createHostedSession(t, client);
    await page.goto(`${origin}${path}`);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('link', { name: /Bitcoin wallet \(self-custody\)/ }).click();
    await page.getByLabel('Address, extended public key or descriptor').fill('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('This is a mainnet address; test mode needs a test-network one.');
  });

  it('offers no browser-wallet button when no wallet is on the page', async () => {
    await connect(testnetWallet('p2wpkh').address);
    await openChallenge();
    expect(await page.locator('button[data-wallet-sign]').isHidden()).toBe(true);
    expect(await page.locator('[data-wallet-status]').isHidden()).toBe(true);
  });

  it.each([
    ['p2wpkh', 'bip322-simple'],
    ['p2pkh', 'ecdsa'],
  ] as const)('signs a %s address with a browser wallet (Unisat’s provider API) in one click', async (type, unisatType) => {
    // A stand-in for the extension, with Unisat's documented provider API; the key signs in the test process.
    const wallet: SigningWallet = testnetWallet(type);
    const walletPage = await context.newPage();
    const asked: string[] = [];
    await walletPage.exposeFunction('testWalletSign', (message: string, requestedType: string) => {
      asked.push(requestedType);
      return signMessage(wallet, message);
    });
    await walletPage.addInitScript((address: string) => {
      Object.assign(globalThis, {
        unisat: {
          requestAccounts: async () => [address],
          signMessage: (message: string, signType: string) =>
            (globalThis as unknown as { testWalletSign(m: string, t: string): Promise<string> }).testWalletSign(message, signType),
        },
      });
    }, wallet.address);
    const previous = page;
    page = walletPage;
    try {
      const session = await connect(wallet.address);
      await openChallenge();
      await page.getByRole('button', { name: 'Sign with Unisat' }).click();
      const claimId = await expectProven(session.id);
      expect(asked).toEqual([unisatType]);
      const claim = (await t.call(client.testKey, { method: 'GET', url: `/v1/verify/claims/${claimId}` })).json();
      expect(claim.subject).toEqual({ type: 'address', address: wallet.address });
    } finally {
      page = previous;
      await walletPage.close();
    }
  });

  it('says so when the browser wallet is on another address, and the paste form still works', async () => {
    const wallet: SigningWallet = testnetWallet('p2wpkh');
    const walletPage = await context.newPage();
    await walletPage.addInitScript(() => {
      Object.assign(globalThis, { unisat: { requestAccounts: async () => ['tb1qsomeoneelse'], signMessage: async () => 'never' } });
    });
    const previous = page;
    page = walletPage;
    try {
      const session = await connect(wallet.address);
      const message = await openChallenge();
      await page.getByRole('button', { name: 'Sign with Unisat' }).click();
      await page.getByText(`Switch to ${wallet.address} in Unisat`).waitFor();
      expect(await page.getByLabel('Signature', { exact: true }).inputValue()).toBe('');
      await pasteSignature(signMessage(wallet, message));
      await expectProven(session.id);
    } finally {
      page = previous;
      await walletPage.close();
    }
  });

  it('checked every page of the proof at both screen sizes', () => {
    for (const viewport of checks.viewports) expect(checks.pagesChecked(viewport).sort(), viewport.name).toEqual([...PAGES].sort());
  });
});
