import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signMessage, singleKeyWallet } from '../../bitcoin/message/sign-message.js';
import { sandboxWallet } from '../../bitcoin/sandbox/sandbox-wallet.js';
import { createHostedSession } from '../../../test/support/browser-session.js';
import { runDueJobs } from '../../../test/support/connect.js';
import { engines } from '../../../test/support/database.js';
import { FormAgent } from '../../../test/support/form-agent.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { testnetWallet } from '../../../test/support/verify.js';
import { CHALLENGE_TTL_SECONDS, MAX_FAILED_ATTEMPTS } from '../../verify/claims/proof.service.js';

/**
 * The verify module's ownership proof inside the hosted connect flow, over `inject` as a browser
 * without JavaScript: a connected wallet is proven, the account says so through the API, and the
 * claim is shared with the session's client.
 */
describe.each(engines())('proving a connected wallet in the connect flow, on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  const sandbox = sandboxWallet();
  const sandboxSigner = singleKeyWallet(sandbox.privateKey('receive', 0), 'p2wpkh', 'testnet');

  beforeAll(async () => {
    t = await startTestApp(engine);
    client = await t.newClient('Acme Lending');
  });
  afterAll(() => t.close());

  /** A session in which the person connected `wallet` (text as typed), on the accounts page. */
  async function connectedWallet(wallet: string, permissions = ['balances', 'transactions']) {
    const { session, path } = await createHostedSession(t, client, { permissions });
    const agent = new FormAgent(t.app, 'connect');
    await agent.get(path);
    await agent.post(`${path}/consent`);
    await agent.get(`${path}/providers/bitcoin`);
    const connected = await agent.post(`${path}/providers/bitcoin`, { wallet });
    expect(connected.statusCode).toBe(303);
    const accounts = await agent.get(path);
    const accountId = (
      await t.ctx.db.selectFrom('connect_accounts').select('id').where('session_id', '=', session.id).executeTakeFirstOrThrow()
    ).id;
    return { session, path, agent, accounts, accountId, prove: `${path}/accounts/${accountId}/prove` };
  }

  /** Starts the proof from the accounts page's button and opens the challenge page. */
  async function openChallenge(agent: FormAgent, prove: string) {
    const started = await agent.post(prove);
    expect(started.statusCode).toBe(303);
    const location = started.headers.location as string;
    expect(location).toMatch(new RegExp(`^${prove}/chl_[0-9A-Za-z]{22}$`));
    const page = await agent.get(location);
    const message = /<textarea id="challenge-message"[^>]*>([\s\S]*?)<\/textarea>/.exec(page.body)?.[1];
    if (message === undefined) throw new Error('no message on the challenge page');
    return { url: location, page, message: decodeEntities(message) };
  }

  it('offers the proof for a wallet, and proves it with a pasted signature: the account and the claim say so', async () => {
    const { session, path, agent, accounts, accountId, prove } = await connectedWallet(sandbox.descriptor);
    expect(accounts.body).toContain('Prove you control it');
    expect(accounts.body).toContain(`action="${prove}"`);
    const { url, page, message } = await openChallenge(agent, prove);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Prove you control Bitcoin wallet (native segwit)');
    expect(page.body).toContain(
      `the first receive address of your wallet, <span class="code">${sandbox.address('receive', 0)}</span> (path 0/0`,
    );
    expect(message).toContain(`Wallet: ${sandbox.descriptor}`);
    expect(message).toContain('Requested by: Acme Lending');
    expect(page.body).toMatch(/<svg role="img" aria-label="QR code of the message to sign"/);
    for (const wallet of ['Sparrow', 'Electrum', 'Bitcoin Core', 'Trezor Suite', 'Ledger'])
      expect(page.body).toContain(`<summary>${wallet}`);
    expect(page.body).toContain('Sign with the sandbox wallet');
    // The copy button is the only script, from our origin, and the policy says so.
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toMatch(/<script src="\/connect\/assets\/web\.[0-9a-f]{12}\.js" defer><\/script>/);
    expect(page.body).toContain('data-copy="challenge-message" hidden');

    const proven = await agent.post(url, { signature: signMessage(sandboxSigner, message) });
    expect(proven.statusCode).toBe(303);
    expect(proven.headers.location).toBe(path);
    expect((await agent.get(path)).body).toContain('✓ Ownership proven');

    await agent.post(`${path}/finish`);
    const account = (await t.call(client.testKey, { method: 'GET', url: `/v1/connect/accounts/${accountId}` })).json();
    expect(account.ownership).toEqual({ status: 'verified', claim: expect.stringMatching(/^clm_/) });
    const claim = (await t.call(client.testKey, { method: 'GET', url: `/v1/verify/claims/${account.ownership.claim}` })).json();
    expect(claim).toMatchObject({
      subject: { type: 'wallet', descriptor: sandbox.descriptor },
      proof: { signed_path: '0/0' },
      status: 'active',
    });
    expect(claim.balance).toBeDefined();
    expect((await t.call(client.testKey, { method: 'GET', url: `/v1/connect/sessions/${session.id}` })).json().status).toBe('completed');
  });

  it('shows an unproven wallet as unverified through the API, and exchange accounts too', async () => {
    const { path, agent, accountId } = await connectedWallet(testnetWallet('p2wpkh').address);
    await agent.post(`${path}/finish`);
    const account = (await t.call(client.testKey, { method: 'GET', url: `/v1/connect/accounts/${accountId}` })).json();
    expect(account.ownership).toEqual({ status: 'unverified', claim: null });
  });

  it('proves a single address connected by itself, with the sandbox button in test mode', async () => {
    const address = sandbox.address('receive', 1);
    const { path, agent, prove } = await connectedWallet(address);
    const { url, page } = await openChallenge(agent, prove);
    expect(page.body).toContain(`the address <span class="code">${address}</span>`);
    const proven = await agent.post(`${url}/sandbox`);
    expect(proven.statusCode).toBe(303);
    expect((await agent.get(path)).body).toContain('✓ Ownership proven');
  });

  it('explains a signature over Windows line endings next to the field, and counts the try', async () => {
    const { agent, prove } = await connectedWallet(sandbox.descriptor);
    const { url, message } = await openChallenge(agent, prove);
    const wrong = await agent.post(url, { signature: signMessage(sandboxSigner, message.replace(/\n/g, '\r\n')) });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('role="alert"');
    expect(wrong.body).toContain('Windows line endings');
    expect(wrong.body).toContain(`You can try ${MAX_FAILED_ATTEMPTS - 1} more times with this message.`);
    expect(wrong.body).toContain('aria-invalid="true"');
    const empty = await agent.post(url, { signature: '  ' });
    expect(empty.statusCode).toBe(422);
    expect(empty.body).toContain('Paste the signature your wallet made.');
  });

  it('closes the message after five wrong signatures and offers a fresh one', async () => {
    const { agent, prove } = await connectedWallet(sandbox.descriptor);
    const { url } = await openChallenge(agent, prove);
    let last;
    for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) last = await agent.post(url, { signature: signMessage(sandboxSigner, 'something else') });
    expect(last?.statusCode).toBe(410);
    expect(last?.body).toContain('Too many signatures did not match');
    expect((await agent.get(url)).body).toContain('Too many signatures did not match');
    const fresh = await openChallenge(agent, prove);
    expect(fresh.url).not.toBe(url);
  });

  it('says an expired message has expired and starts a fresh one from there', async () => {
    const { agent, prove } = await connectedWallet(sandbox.descriptor);
    const { url, message } = await openChallenge(agent, prove);
    t.clock.advance(CHALLENGE_TTL_SECONDS + 1);
    const late = await agent.post(url, { signature: signMessage(sandboxSigner, message) });
    expect(late.statusCode).toBe(410);
    expect(late.body).toContain('This message has expired');
    expect(late.body).toContain(`action="${prove}"`);
  });

  it('answers another person’s challenge id, an exchange account and a foreign account id with the link-invalid pages', async () => {
    const first = await connectedWallet(sandbox.descriptor);
    const { url } = await openChallenge(first.agent, first.prove);
    const other = await connectedWallet(sandbox.descriptor);
    const challengeId = url.split('/').pop() as string;
    const foreign = await other.agent.get(`${other.prove}/${challengeId}`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).toContain('This proof link isn’t valid');
    expect((await other.agent.post(`${other.path}/accounts/${first.accountId}/prove`)).statusCode).toBe(404);

    const { session, path } = await createHostedSession(t, client);
    const agent = new FormAgent(t.app, 'connect');
    await agent.get(path);
    await agent.post(`${path}/consent`);
    await agent.post(`${path}/providers/sandbox`, { username: 'user_good', password: 'pass_good' });
    const exchangeAccount = (
      await t.ctx.db.selectFrom('connect_accounts').select('id').where('session_id', '=', session.id).executeTakeFirstOrThrow()
    ).id;
    const refused = await agent.post(`${path}/accounts/${exchangeAccount}/prove`);
    expect(refused.statusCode).toBe(404);
    expect(refused.body).toContain('This link isn’t valid');
  });

  it('never lets a challenge of one account in the session prove another account of it', async () => {
    const { session, path, agent, accountId, prove } = await connectedWallet(sandbox.descriptor);
    const otherWallet = testnetWallet('p2wpkh');
    await agent.get(`${path}/providers/bitcoin`);
    expect((await agent.post(`${path}/providers/bitcoin`, { wallet: otherWallet.address })).statusCode).toBe(303);
    const other = (
      await t.ctx.db
        .selectFrom('connect_accounts')
        .select('id')
        .where('session_id', '=', session.id)
        .where('id', '!=', accountId)
        .executeTakeFirstOrThrow()
    ).id;
    const { url, message } = await openChallenge(agent, prove);
    const challengeId = url.split('/').pop() as string;
    // The first wallet's valid signature, posted under the second account's proof URL.
    const crossed = await agent.post(`${path}/accounts/${other}/prove/${challengeId}`, { signature: signMessage(sandboxSigner, message) });
    expect(crossed.statusCode).toBe(404);
    expect((await agent.get(`${path}/accounts/${other}/prove/${challengeId}`)).statusCode).toBe(404);
    // The session is still open, so the API does not show its accounts yet: read what they record.
    const claimOf = async (id: string) =>
      (await t.ctx.db.selectFrom('connect_accounts').select('claim_id').where('id', '=', id).executeTakeFirstOrThrow()).claim_id;
    expect(await claimOf(other)).toBeNull();
    // Under its own account the same signature proves the first wallet.
    expect((await agent.post(url, { signature: signMessage(sandboxSigner, message) })).statusCode).toBe(303);
    expect(await claimOf(accountId)).toMatch(/^clm_/);
    expect(await claimOf(other)).toBeNull();
  });

  it('confirms a sandbox deposit in a block of the current time, and the pending receipt it confirms does not move back in time', async () => {
    const now = () => Math.floor(t.clock.now() / 1000);
    /** Runs `act` and returns the app clock's seconds around it. */
    const during = async (act: () => Promise<unknown>) => {
      const from = now();
      await act();
      return { from, to: now() };
    };
    // A client watches the sandbox wallet: its unconfirmed receipt of 0.01 BTC is pending, as of now by the app's clock.
    t.clock.advance(86_400);
    const watched = await connectedWallet(sandbox.descriptor);
    expect((await watched.agent.post(`${watched.path}/finish`)).statusCode).toBe(200);
    const refresh = async () => {
      expect(
        (
          await t.call(client.testKey, {
            method: 'POST',
            url: `/v1/connect/accounts/${watched.accountId}/refresh`,
            json: { features: ['transactions'] },
          })
        ).statusCode,
      ).toBe(200);
      await runDueJobs(t.ctx);
    };
    const receipts = async () =>
      (await t.call(client.testKey, { method: 'GET', url: `/v1/connect/accounts/${watched.accountId}/transactions?limit=100` })).json()
        .data as { tx_hash: string; status: string; occurred_at: number }[];
    const firstRefresh = await during(refresh);
    const pending = (await receipts()).find((tx) => tx.status === 'pending');
    if (!pending) throw new Error('the sandbox wallet has no pending receipt');
    expect(pending.occurred_at).toBeGreaterThanOrEqual(firstRefresh.from);
    expect(pending.occurred_at).toBeLessThanOrEqual(firstRefresh.to);

    // Days later, the person proves the wallet with a deposit sent from the sandbox wallet.
    t.clock.advance(3 * 86_400);
    const { agent, prove } = await connectedWallet(sandbox.descriptor);
    const started = await agent.post(prove, { method: 'deposit' });
    expect(started.statusCode).toBe(303);
    const sending = await during(async () =>
      expect((await agent.post(`${started.headers.location as string}/sandbox`)).statusCode).toBe(303),
    );
    const claim = await t.ctx.db.selectFrom('verify_claims').select('statement').orderBy('seq', 'desc').executeTakeFirstOrThrow();
    const deposit = await t.ctx.chains.forMode('test')?.getTransaction(JSON.parse(claim.statement).proof.txid as string);
    // Mined now, by the app's clock: not months ago, after the sandbox history's last block.
    if (!deposit?.status.confirmed) throw new Error('the sandbox deposit was not confirmed');
    expect(deposit.status.blockTime).toBeGreaterThanOrEqual(sending.from);
    expect(deposit.status.blockTime).toBeLessThanOrEqual(sending.to);

    // That block confirmed the pending receipt too: on the next refresh it is as of that block, not earlier.
    await refresh();
    const confirmed = (await receipts()).find((tx) => tx.tx_hash === pending.tx_hash);
    expect(confirmed).toMatchObject({ status: 'completed', occurred_at: deposit.status.blockTime });
    expect(confirmed?.occurred_at).toBeGreaterThanOrEqual(pending.occurred_at);
  });

  it('refuses a signature posted without the form’s CSRF token and changes nothing', async () => {
    const { agent, prove } = await connectedWallet(sandbox.descriptor);
    const { url, message } = await openChallenge(agent, prove);
    const forged = await agent.post(url, { signature: signMessage(sandboxSigner, message) }, { token: null });
    expect(forged.statusCode).toBe(403);
    const challenge = await t.ctx.db
      .selectFrom('verify_challenges')
      .select(['status', 'failed_attempts'])
      .where('id', '=', url.split('/').pop() as string)
      .executeTakeFirstOrThrow();
    expect(challenge).toEqual({ status: 'open', failed_attempts: 0 });
  });
});

/** The text of a textarea as the browser shows it (the template escaped it). */
function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}
