import { signMessage } from '../../../bitcoin/message/sign-message.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumAvailable, launchChromium, PHONE } from '../../../../test/support/browser.js';
import { databaseEnv, startServe, type ServingProcess } from '../../../../test/support/cli-process.js';
import { TestClock } from '../../../../test/support/clock.js';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.js';
import { until } from '../../../../test/support/eventually.js';
import { freePort } from '../../../../test/support/free-port.js';
import { PageChecks } from '../../../../test/support/page-checks.js';
import { parseMail, startSmtpSink, type ParsedMail, type ReceivedMail, type SmtpSink } from '../../../../test/support/smtp-sink.js';
import { TEST_MASTER_KEY, TEST_MASTER_KEY_BYTES } from '../../../../test/support/test-app.js';
import { proveWith, testnetWallet, type InSession } from '../../../../test/support/verify.js';
import { TestReceiver } from '../../../../test/support/webhooks.js';
import { createClient } from '../../../clients/client.service.js';
import { service } from '../../../main/modules.js';
import { loadConfig } from '../../../platform/config/config.js';
import type { AppContext } from '../../../platform/context.js';
import { openSecretBox, type SecretBox } from '../../../platform/crypto/secret-box.js';
import { JobCatalog } from '../../../platform/jobs/catalog.js';
import { Worker } from '../../../platform/jobs/worker.js';
import { expireAccessRequest } from '../access.module-part.js';

/** Every page of the portal, each checked once at both screen sizes (screenshot, axe, no sideways scrolling, tap targets). */
const PAGES = [
  'portal-01-sign-in',
  'portal-02-check-email',
  'portal-03-link-confirm',
  'portal-04-requests',
  'portal-05-review-picker',
  'portal-06-review-prove-first',
  'portal-07-subject-entry',
  'portal-08-challenge',
  'portal-09-answered',
  'portal-10-shared-access',
  'portal-11-wallets',
  'portal-12-revoke-claim',
  'portal-13-choose-for-whom',
  'portal-14-receipt',
  'portal-15-review-already-shared',
];

interface Client {
  clientId: string;
  testKey: string;
}
interface AccessRequestJson {
  id: string;
  status: string;
  claim_ids: string[];
  notification: { status: string; last_error: string | null; sent_at: number | null };
}
interface EventJson {
  id: string;
  type: string;
  data: { object: { id: string; claim_ids?: string[]; access?: { revoked_at?: number | null } } };
}

/**
 * The account-holder portal end to end: a real `ownproof serve` process (its in-process worker
 * sends the e-mail over real SMTP to an smtp-server sink on 127.0.0.1, and delivers webhooks to a
 * real HTTP receiver whose deliveries standardwebhooks verifies), driven in Debian's Chromium from
 * the sign-in link in the received message. Every portal page is checked at both screen sizes.
 *
 * SQLite (the route tests run both engines). The test process opens the same database for what an
 * operator or a client would do outside the browser: creating clients, proving a claim through the
 * service, and, for expiry, a worker whose clock is two hours ahead running the expiry job (the
 * serve process has the real clock, and a request lasts at least an hour).
 */
describe.skipIf(!chromiumAvailable())('the account-holder portal end to end in Chromium', () => {
  let database: TestDatabase;
  let dataDir: string;
  let side: AppContext;
  let serve: ServingProcess;
  let sink: SmtpSink;
  let smtpPort: number;
  let receiver: TestReceiver;
  let webhookSecret: string;
  let browser: Browser;
  let checks: PageChecks;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  let acme: Client;
  let beta: Client;
  const look = (name: string) => checks.look(page, PHONE, name);
  /** Messages a test already read, so the next wait for the same address gets the next message. */
  const read = new Set<ReceivedMail>();
  /** Refused by the sink with 550 (the others are taken). */
  const BOUNCING = 'bounced@example.com';
  const REFUSAL = '5.1.1 <bounced@example.com>: Recipient address rejected: User unknown in virtual mailbox table';
  const sinkOn = (port: number) => startSmtpSink({ port, refuseRecipient: { code: 550, text: REFUSAL, only: [BOUNCING] } });
  const configEnv = () => ({
    ...databaseEnv(database.config),
    DATA_DIR: dataDir,
    MASTER_KEY: TEST_MASTER_KEY,
    PUBLIC_BASE_URL: origin,
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  });
  /** The secret box of the side contexts, opened once the database exists. */
  let sideSecretBox: SecretBox;
  /** A context on the shared database with its own clock: what a second process (CLI, worker) of the service has. */
  const sideContext = (clock: TestClock) =>
    service.createContext({
      config: loadConfig({ ...configEnv(), NODE_ENV: 'development', LOG_LEVEL: 'silent' }),
      database: database.handle,
      clock,
      secretBox: sideSecretBox,
    });

  async function api<T = Record<string, unknown>>(
    key: string,
    method: 'GET' | 'POST',
    url: string,
    json?: unknown,
  ): Promise<{ status: number; body: T }> {
    const res = await fetch(`${origin}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    return { status: res.status, body: (await res.json()) as T };
  }
  const newHolder = async (client: Client, email: string) => {
    const res = await api<{ id: string }>(client.testKey, 'POST', '/v1/connect/account_holders', { email, name: 'Ada' });
    expect(res.status).toBe(200);
    return res.body.id;
  };
  const newRequest = async (client: Client, holderId: string, extra: Record<string, unknown> = {}) => {
    const res = await api<AccessRequestJson>(client.testKey, 'POST', '/v1/verify/access_requests', {
      type: 'sharing',
      account_holder_id: holderId,
      permissions: ['balances'],
      ...extra,
    });
    expect(res.status).toBe(200);
    return res.body;
  };
  const accessRequest = async (client: Client, id: string) =>
    (await api<AccessRequestJson>(client.testKey, 'GET', `/v1/verify/access_requests/${id}`)).body;
  const claimStatus = async (client: Client, id: string) => (await api(client.testKey, 'GET', `/v1/verify/claims/${id}`)).status;
  /** A claim proven through the service (challenge, signature, receipt), as the route tests make them. */
  const prove = (client: Client, holderId: string, origin?: InSession) => {
    const wallet = testnetWallet('p2wpkh');
    return proveWith(side, { clientId: client.clientId, mode: 'test' }, holderId, wallet, origin).then((claim) => ({ claim, wallet }));
  };
  /** How the portal names an unlabelled address claim. */
  const shortName = (address: string) => `Address ${address.slice(0, 8)}…${address.slice(-6)}`;

  /** The next message the sink received for `to` (optionally with a subject like `subject`), parsed. */
  async function nextMail(to: string, subject?: RegExp): Promise<ParsedMail> {
    const raw = await until(
      async () =>
        sink.received.find(
          (m) =>
            !read.has(m) &&
            m.envelope.to.some((address) => address.toLowerCase() === to.toLowerCase()) &&
            (!subject || subject.test(parseMail(m.raw).headers.get('subject') ?? '')),
        ),
      (m) => m !== undefined,
    );
    read.add(raw as ReceivedMail);
    return parseMail((raw as ReceivedMail).raw);
  }
  /** The portal sign-in link of a message: in the text part, and the HTML part's button goes to the same place. */
  function signInLink(mail: ParsedMail): string {
    const link = new RegExp(`${origin}/portal/sign-in/pl_[0-9A-Za-z]+`).exec(mail.text ?? '')?.[0];
    if (!link) throw new Error(`no sign-in link in: ${mail.text}`);
    expect(mail.html).toContain(`href="${link}"`);
    return link;
  }
  /** Opens a sign-in link as the person would: the confirmation page, then Continue. */
  async function followLink(link: string) {
    await page.goto(link);
    await page.getByRole('heading', { name: 'Sign in to your portal' }).waitFor();
    await look('portal-03-link-confirm');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/portal/sign-in'));
  }
  /** The webhook of `type` about `objectId`, once it arrives, after checking its signature with the endpoint's secret. */
  async function webhook(type: string, objectId: string): Promise<EventJson> {
    const found = await until(
      async () =>
        receiver.received.find((r) => {
          const event = JSON.parse(r.body) as EventJson;
          return event.type === type && event.data.object.id === objectId;
        }),
      (r) => r !== undefined,
    );
    const delivery = found as (typeof receiver.received)[number];
    return new Webhook(webhookSecret).verify(delivery.body, delivery.headers as Record<string, string>) as EventJson;
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-portal-e2e-'));
    [database, receiver, sink, browser] = await Promise.all([
      createTestDatabase('sqlite'),
      TestReceiver.start(),
      sinkOn(0),
      launchChromium(),
    ]);
    smtpPort = sink.port;
    origin = `http://127.0.0.1:${await freePort()}`;
    sideSecretBox = await openSecretBox(database.handle.db, { current: TEST_MASTER_KEY_BYTES }, new TestClock());
    side = sideContext(new TestClock());
    [acme, beta] = await Promise.all([createClient(side, { name: 'Acme Lending' }), createClient(side, { name: 'Beta Audit' })]);
    serve = await startServe({ ...configEnv(), PORT: new URL(origin).port });
    expect(serve.url).toBe(origin);
    expect(serve.banner).toContain('with an in-process job worker');
    const endpoint = await api<{ secret: string }>(acme.testKey, 'POST', '/v1/webhook_endpoints', {
      url: receiver.url,
      enabled_events: ['*'],
    });
    expect(endpoint.status).toBe(200);
    webhookSecret = endpoint.body.secret;
    checks = new PageChecks(browser);
    context = await checks.newContext(PHONE);
    page = await context.newPage();
  });
  beforeEach(async () => {
    // Each test is another person.
    await context?.clearCookies();
  });
  afterAll(async () => {
    await checks?.close();
    await browser?.close();
    await serve?.process.stop();
    await side?.mailer.close();
    await Promise.all([sink?.close(), receiver?.close()]);
    await database?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('approves a request with one of two proven wallets, from the e-mail to the signed webhook and the client’s read', async () => {
    const holderId = await newHolder(acme, 'grace@example.com');
    const [picked, other] = await Promise.all([prove(acme, holderId), prove(acme, holderId)]);
    expect(await claimStatus(acme, picked.claim.id)).toBe(404);
    const created = await newRequest(acme, holderId, {
      permissions: ['balances', 'statements'],
      message: 'We need this for your loan.\nThank you!',
    });

    const mail = await nextMail('grace@example.com');
    expect(mail.headers.get('subject')).toBe('Acme Lending asks you to share proof of your Bitcoin wallet');
    expect(mail.text).toContain('Their message: “We need this for your loan.\nThank you!”');
    const sent = await until(
      () => accessRequest(acme, created.id),
      (r) => r.notification.status === 'sent',
    );
    expect(sent.notification).toMatchObject({ last_error: null, sent_at: expect.any(Number) });

    await followLink(signInLink(mail));
    expect(page.url()).toBe(`${origin}/portal/requests/${created.id}`);
    await page.getByRole('heading', { name: /^Acme Lending asks for access to your Bitcoin ownership proofs/ }).waitFor();
    await expect(page.locator('.request-message').textContent()).resolves.toContain('We need this for your loan.');
    await look('portal-05-review-picker');
    const pickedBox = page.getByRole('checkbox', { name: new RegExp(picked.wallet.address) });
    const otherBox = page.getByRole('checkbox', { name: new RegExp(other.wallet.address) });
    expect([await pickedBox.isChecked(), await otherBox.isChecked()]).toEqual([false, false]);
    await pickedBox.check();
    await page.getByRole('button', { name: 'Approve and share' }).click();
    await page.getByRole('heading', { name: 'Request of Acme Lending' }).waitFor();
    await expect(page.getByRole('status').textContent()).resolves.toMatch(/^You approved this request on .+, sharing one wallet\./);
    await look('portal-09-answered');

    const granted = await webhook('access_request.granted', created.id);
    expect(granted.data.object.claim_ids).toEqual([picked.claim.id]);
    const claim = await api<{ id: string; access: { permissions: string[] } }>(acme.testKey, 'GET', `/v1/verify/claims/${picked.claim.id}`);
    expect(claim.status).toBe(200);
    expect(claim.body.access.permissions.sort()).toEqual(['balances', 'statements']);
    expect(await claimStatus(acme, other.claim.id)).toBe(404);
    expect((await accessRequest(acme, created.id)).status).toBe('granted');
  });

  it('takes a new person through proving a wallet first, then back to the request to share it', async () => {
    const holderId = await newHolder(acme, 'newcomer@example.com');
    const created = await newRequest(acme, holderId);
    await followLink(signInLink(await nextMail('newcomer@example.com')));
    await page.getByRole('heading', { name: 'First, prove a wallet' }).waitFor();
    await look('portal-06-review-prove-first');

    await page.getByRole('link', { name: 'Prove a wallet' }).click();
    await page.getByRole('heading', { name: 'Prove you control a Bitcoin wallet' }).waitFor();
    await look('portal-07-subject-entry');
    const wallet = testnetWallet('p2wpkh');
    await page.getByLabel('Address, extended public key or descriptor').fill(wallet.address);
    await page.getByLabel('Your name for it (optional)').fill('Savings');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: /^Prove you control / }).waitFor();
    expect(page.url()).toMatch(new RegExp(`^${origin}/portal/requests/${created.id}/prove/chl_`));
    await look('portal-08-challenge');
    const message = await page.getByLabel('Message to sign', { exact: true }).inputValue();
    expect(message).toContain(wallet.address);
    await page.getByLabel('Signature', { exact: true }).fill(signMessage(wallet, message));
    await page.getByRole('button', { name: 'Check signature' }).click();

    // Back at the request, with the new claim in the picker (the only one, so already ticked).
    await page.waitForURL(`${origin}/portal/requests/${created.id}`);
    const box = page.getByRole('checkbox', { name: /Savings/ });
    expect(await box.isChecked()).toBe(true);
    const claimId = await box.getAttribute('value');
    expect(claimId).toMatch(/^clm_/);
    expect(await claimStatus(acme, claimId as string)).toBe(404);
    await page.getByRole('button', { name: 'Approve and share' }).click();
    await page.getByText('You approved this request').waitFor();
    const claim = await api<{ label: string; subject: { address: string } }>(acme.testKey, 'GET', `/v1/verify/claims/${claimId}`);
    expect(claim.status).toBe(200);
    expect(claim.body).toMatchObject({ label: 'Savings', subject: { address: wallet.address } });
    expect((await webhook('access_request.granted', created.id)).data.object.claim_ids).toEqual([claimId]);
  });

  it('declines: nothing is shared, and the client hears access_request.declined', async () => {
    const holderId = await newHolder(acme, 'decliner@example.com');
    const { claim } = await prove(acme, holderId);
    const created = await newRequest(acme, holderId);
    await followLink(signInLink(await nextMail('decliner@example.com')));
    await page.getByRole('button', { name: 'Decline' }).click();
    await page.getByText(/^You declined this request on .+\. Nothing was shared\.$/).waitFor();
    expect((await accessRequest(acme, created.id)).status).toBe('declined');
    expect((await webhook('access_request.declined', created.id)).data.object.id).toBe(created.id);
    expect(await claimStatus(acme, claim.id)).toBe(404);
  });

  it('signs in from the sign-in page, revokes one client’s access under Shared access, and revokes a claim under My wallets', async () => {
    const holderId = await newHolder(acme, 'rosa@example.com');
    // Proven in a connect session, so shared with Acme from the start.
    const inSession: InSession = { kind: 'connect_session', session_id: 'sess_e2e', permissions: ['balances'] };
    const [kept, dropped] = await Promise.all([prove(acme, holderId, inSession), prove(acme, holderId, inSession)]);
    expect(await claimStatus(acme, kept.claim.id)).toBe(200);

    await page.goto(`${origin}/portal`);
    expect(page.url()).toBe(`${origin}/portal/sign-in`);
    await look('portal-01-sign-in');
    await page.getByLabel('E-mail address').fill('Rosa@Example.com');
    await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
    await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
    await look('portal-02-check-email');
    const mail = await nextMail('rosa@example.com', /sign-in link/);
    await followLink(signInLink(mail));
    expect(page.url()).toBe(`${origin}/portal/requests`);

    await page.getByRole('link', { name: 'Shared access' }).click();
    await page.getByRole('heading', { name: 'Shared access' }).waitFor();
    await look('portal-10-shared-access');
    await page.getByRole('button', { name: `Revoke Acme Lending’s access to ${shortName(kept.wallet.address)}` }).click();
    await page.getByText('Access revoked. They can no longer read that claim.').waitFor();
    expect(await claimStatus(acme, kept.claim.id)).toBe(404);
    const accessRevoked = await webhook('claim.access_revoked', kept.claim.id);
    expect(accessRevoked.data.object.access?.revoked_at).toEqual(expect.any(Number));
    expect(await claimStatus(acme, dropped.claim.id)).toBe(200);

    await page.getByRole('link', { name: 'My wallets' }).click();
    await page.getByRole('heading', { name: 'My wallets' }).waitFor();
    await look('portal-11-wallets');
    // A claim's own page: its receipt, to copy or to check on the public page.
    await page.getByRole('link', { name: `Receipt of ${shortName(kept.wallet.address)}` }).click();
    await page.getByRole('heading', { name: shortName(kept.wallet.address) }).waitFor();
    expect(await page.getByLabel('Receipt text', { exact: true }).inputValue()).toBe(kept.claim.receipt);
    expect(await page.getByRole('button', { name: 'Copy receipt' }).isVisible()).toBe(true);
    await look('portal-14-receipt');
    await page.getByRole('button', { name: 'Check it on the public page' }).click();
    await page.waitForURL(`${origin}/verify`);
    await page.getByText(kept.claim.id).first().waitFor();
    await page.goto(`${origin}/portal/wallets`);
    await page.getByRole('link', { name: `Revoke ${shortName(dropped.wallet.address)}` }).click();
    await page.getByRole('heading', { name: `Revoke ${shortName(dropped.wallet.address)}?` }).waitFor();
    await look('portal-12-revoke-claim');
    await page.getByRole('button', { name: 'Revoke the claim' }).click();
    await page.getByText('The claim is revoked and no longer shared with anyone.').waitFor();
    expect(await claimStatus(acme, dropped.claim.id)).toBe(404);
    expect((await webhook('claim.revoked', dropped.claim.id)).type).toBe('claim.revoked');
  });

  it('tells the person which wallets the requester already has, and what approving adds', async () => {
    const holderId = await newHolder(acme, 'uma@example.com');
    const { claim, wallet } = await prove(acme, holderId, { kind: 'connect_session', session_id: 'sess_uma', permissions: ['balances'] });
    const created = await newRequest(acme, holderId, { permissions: ['balances', 'statements'] });
    await followLink(signInLink(await nextMail('uma@example.com')));
    const box = page.getByRole('checkbox', { name: new RegExp(wallet.address) });
    await expect(page.locator('.choice').textContent()).resolves.toContain(
      'Already shared with Acme Lending, who may see balances: approving also lets them request statements.',
    );
    await look('portal-15-review-already-shared');
    expect(await box.isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Approve and share' }).click();
    await page.getByText('You approved this request').waitFor();
    const read = await api<{ access: { permissions: string[] } }>(acme.testKey, 'GET', `/v1/verify/claims/${claim.id}`);
    expect(read.body.access.permissions).toEqual(['balances', 'statements']);
    expect((await accessRequest(acme, created.id)).status).toBe('granted');
  });

  it('shows a person at two clients every request, pending first; a withdrawn request says so; proving asks for whom', async () => {
    const atAcme = await newHolder(acme, 'dana@example.com');
    const atBeta = await newHolder(beta, 'Dana@example.com');
    const fromAcme = await newRequest(acme, atAcme);
    const acmeMail = await nextMail('dana@example.com', /^Acme Lending/);
    await until(
      () => accessRequest(acme, fromAcme.id),
      (r) => r.notification.status === 'sent',
    );
    const canceled = await api<AccessRequestJson>(acme.testKey, 'POST', `/v1/verify/access_requests/${fromAcme.id}/cancel`);
    expect(canceled.body.status).toBe('canceled');
    expect((await webhook('access_request.canceled', fromAcme.id)).type).toBe('access_request.canceled');
    const fromBeta = await newRequest(beta, atBeta, { permissions: ['statements'] });
    await nextMail('Dana@example.com', /^Beta Audit/);

    // The link of a withdrawn request still signs in, and the request says what happened.
    await followLink(signInLink(acmeMail));
    expect(page.url()).toBe(`${origin}/portal/requests/${fromAcme.id}`);
    await page.getByText(/^Acme Lending withdrew this request on .+\. Nothing was shared\.$/).waitFor();

    await page.getByRole('link', { name: 'All requests' }).first().click();
    await page.getByRole('heading', { name: 'Requests', exact: true }).waitFor();
    await expect(page.locator('.lead').textContent()).resolves.toBe('One request waits for your answer.');
    const items = await page.locator('.item-list li').allTextContents();
    expect(items).toHaveLength(2);
    expect(items[0]).toMatch(/Beta Audit.*Asks to request statements.*Waiting for you/s);
    expect(items[1]).toMatch(/Acme Lending.*Withdrawn/s);
    expect(await page.getByRole('heading', { name: 'Earlier' }).isVisible()).toBe(true);
    await look('portal-04-requests');
    expect(await page.getByRole('link', { name: /^Review the request of Beta Audit/ }).getAttribute('href')).toBe(
      `/portal/requests/${fromBeta.id}`,
    );

    await page.getByRole('link', { name: 'My wallets' }).click();
    await page.getByRole('link', { name: 'Prove another wallet' }).click();
    await page.getByRole('heading', { name: 'Prove a wallet for whom?' }).waitFor();
    await look('portal-13-choose-for-whom');
    await page.getByRole('link', { name: 'Prove a wallet for Beta Audit' }).click();
    await page.getByRole('heading', { name: 'Prove you control a Bitcoin wallet' }).waitFor();
    expect(page.url()).toBe(`${origin}/portal/wallets/prove/${atBeta}`);
  });

  it('expires a request nobody answered: the expiry job ends it at the deadline, the client sees the event, the portal says so', async () => {
    const holderId = await newHolder(acme, 'late@example.com');
    const created = await newRequest(acme, holderId, { expires_at: Math.floor(Date.now() / 1000) + 3600 + 60 });
    const link = signInLink(await nextMail('late@example.com'));
    expect((await accessRequest(acme, created.id)).status).toBe('pending');

    // A worker two hours ahead, running only the expiry job (the serve process's own worker runs it
    // at the deadline). The serve process reads the request with the real clock, so the change the
    // client sees is the job's. Its event is recorded at the worker's time, and so is the webhook
    // dispatch it queues: the real-clock worker would deliver it in two hours, so the client's read
    // of its events is what is checked here (webhook delivery is proven by the other tests).
    const clock = new TestClock();
    clock.advance(2 * 3600);
    const ahead = sideContext(clock);
    const worker = new Worker(ahead, new JobCatalog([expireAccessRequest]), { pollIntervalMs: 50 });
    worker.start();
    try {
      await until(
        () => accessRequest(acme, created.id),
        (r) => r.status === 'expired',
      );
    } finally {
      await worker.stop();
      await ahead.mailer.close();
    }
    const events = await api<{ data: EventJson[] }>(acme.testKey, 'GET', '/v1/events?type=access_request.expired');
    expect(events.body.data.filter((e) => e.data.object.id === created.id)).toHaveLength(1);

    await followLink(link);
    expect(page.url()).toBe(`${origin}/portal/requests/${created.id}`);
    await page
      .getByText(/^This request expired on .+ without an answer\. Nothing was shared; Acme Lending can send a new one\.$/)
      .waitFor();
    expect(await page.title()).toMatch(/^Request of Acme Lending: Expired/);
  });

  it('keeps the e-mail pending while the mail server is down, and sends it once when it is back', async () => {
    await sink.close();
    const holderId = await newHolder(acme, 'patient@example.com');
    const created = await newRequest(acme, holderId);
    const waiting = await until(
      () => accessRequest(acme, created.id),
      (r) => r.notification.last_error !== null,
    );
    expect(waiting.notification).toEqual({
      status: 'pending',
      last_error: 'Could not connect to the mail server: connection refused.',
      sent_at: null,
    });

    sink = await sinkOn(smtpPort);
    const sent = await until(
      () => accessRequest(acme, created.id),
      (r) => r.notification.status === 'sent',
      20_000,
    );
    expect(sent.notification).toMatchObject({ status: 'sent', last_error: null, sent_at: expect.any(Number) });
    expect(sink.received.filter((m) => m.envelope.to.includes('patient@example.com'))).toHaveLength(1);
    expect((await nextMail('patient@example.com')).headers.get('subject')).toBe(
      'Acme Lending asks you to share proof of your Bitcoin wallet',
    );
  });

  it('marks the e-mail failed with the mail server’s words when it refuses the recipient', async () => {
    const holderId = await newHolder(acme, BOUNCING);
    const created = await newRequest(acme, holderId);
    const failed = await until(
      () => accessRequest(acme, created.id),
      (r) => r.notification.status === 'failed',
    );
    expect(failed.notification.last_error).toBe(`The mail server refused the recipient: 550 ${REFUSAL}`);
    expect(failed.status).toBe('pending');
    expect((await webhook('access_request.notification_failed', created.id)).type).toBe('access_request.notification_failed');
    expect(sink.received.filter((m) => m.envelope.to.includes(BOUNCING))).toHaveLength(0);
  });

  it('checked every portal page at both screen sizes', () => {
    for (const viewport of checks.viewports) expect(checks.pagesChecked(viewport).sort(), viewport.name).toEqual([...PAGES].sort());
  });
});
