import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWallet } from '../../../bitcoin/sandbox/sandbox-wallet.js';
import { proveInHostedSession } from '../../../../test/support/connect.js';
import { engines } from '../../../../test/support/database.js';
import { askPortalLink, signInToPortal } from '../../../../test/support/portal.js';
import { startTestApp, type TestApp, type TestClient } from '../../../../test/support/test-app.js';

/**
 * Who controls a claim (docs/verify.md): the e-mail identity it was proven under. A client that
 * changes an account holder's address — to a mailbox of its own, say — gets no power over claims
 * proven before, through any page of the portal; the old address keeps what it proved.
 */
describe.each(engines())('who controls a claim, on %s', (engine) => {
  let t: TestApp;
  let acme: TestClient;
  let beta: TestClient;
  const api = (client: TestClient, method: 'GET' | 'POST', url: string, json?: unknown) =>
    t.call(client.testKey, { method, url, ...(json === undefined ? {} : { json }) });
  const newHolder = async (client: TestClient, email: string) => {
    const res = await api(client, 'POST', '/v1/connect/account_holders', { email });
    expect(res.statusCode).toBe(200);
    return res.json().id as string;
  };
  const changeEmail = (client: TestClient, holderId: string, email: string) =>
    api(client, 'POST', `/v1/connect/account_holders/${holderId}`, { email });
  const newRequest = async (client: TestClient, holderId: string, permissions: string[]) =>
    (await api(client, 'POST', '/v1/verify/access_requests', { type: 'sharing', account_holder_id: holderId, permissions })).json()
      .id as string;
  /** A claim proven in a hosted session the person finished with Done. */
  async function sessionClaim(client: TestClient, holderId: string, permissions: string[]) {
    const proven = await proveInHostedSession(t, client.testKey, holderId, permissions);
    expect((await proven.agent.post(`${proven.path}/finish`)).statusCode).toBe(200);
    return proven.claimId;
  }
  const access = async (client: TestClient, claimId: string) => {
    const res = await api(client, 'GET', `/v1/verify/claims/${claimId}`);
    return res.statusCode === 200 ? (res.json().access.permissions as string[]) : res.statusCode;
  };
  const statementFor = (client: TestClient, holderId: string, claimId: string) =>
    api(client, 'POST', '/v1/verify/statements/generate', {
      account_holder_id: holderId,
      claim_ids: [claimId],
      period: { open: Math.floor(t.clock.now() / 1000) - 86_400, close: Math.floor(t.clock.now() / 1000) - 3600 },
      timezone: 'UTC',
    });

  const askLink = async (email: string) => (await askPortalLink(t, email)) !== undefined;
  const signIn = (email: string) => signInToPortal(t, email);

  beforeAll(async () => {
    t = await startTestApp(engine);
    acme = await t.newClient('Acme Lending');
    beta = await t.newClient('Beta Audit');
  });
  afterAll(() => t.close());

  it('gives a changed e-mail address no power over a claim proven under the old one: the client cannot approve its own request with it', async () => {
    const holderId = await newHolder(acme, 'ada.change@example.com');
    const claimId = await sessionClaim(acme, holderId, ['balances']);
    expect(await access(acme, claimId)).toEqual(['balances']);
    const requestId = await newRequest(acme, holderId, ['statements']);
    expect((await changeEmail(acme, holderId, 'mallory.change@example.com')).statusCode).toBe(200);

    const mallory = await signIn('mallory.change@example.com');
    const review = await mallory.get(`/portal/requests/${requestId}`);
    expect(review.statusCode).toBe(200);
    expect(review.body).not.toContain(claimId);
    expect(review.body).toContain('First, prove a wallet');
    const forced = await mallory.post(`/portal/requests/${requestId}/approve`, { claim: claimId });
    expect(forced.statusCode).toBe(422);
    expect((await api(acme, 'GET', `/v1/verify/access_requests/${requestId}`)).json().status).toBe('pending');
    expect(await access(acme, claimId)).toEqual(['balances']);
    const statement = await statementFor(acme, holderId, claimId);
    expect(statement.statusCode).toBe(403);
    expect(statement.json().error.code).toBe('statement_permission_missing');
    // The new address starts empty: no wallet, no sharing, nothing to revoke.
    const wallets = (await mallory.get('/portal/wallets')).body;
    expect(wallets).toContain('You have not proven any wallet yet.');
    expect(wallets).not.toContain(sandboxWallet().descriptor);
    expect((await mallory.get('/portal/access')).body).toContain('You share nothing right now.');
    await mallory.post('/portal/access/revoke', { client: acme.clientId, claim: claimId });
    await mallory.post(`/portal/wallets/${claimId}/revoke`);
    expect(await access(acme, claimId)).toEqual(['balances']);
  });

  it('keeps a revocation final after an e-mail change: the client cannot restore its access', async () => {
    const holderId = await newHolder(acme, 'ada.revoke@example.com');
    const claimId = await sessionClaim(acme, holderId, ['balances']);
    const ada = await signIn('ada.revoke@example.com');
    expect((await ada.get('/portal/access')).body).toContain('Acme Lending');
    await ada.post('/portal/access/revoke', { client: acme.clientId, claim: claimId });
    expect(await access(acme, claimId)).toBe(404);

    const requestId = await newRequest(acme, holderId, ['balances', 'statements']);
    await changeEmail(acme, holderId, 'mallory.revoke@example.com');
    const mallory = await signIn('mallory.revoke@example.com');
    await mallory.get(`/portal/requests/${requestId}`);
    expect((await mallory.post(`/portal/requests/${requestId}/approve`, { claim: claimId })).statusCode).toBe(422);
    expect(await access(acme, claimId)).toBe(404);
    expect((await statementFor(acme, holderId, claimId)).statusCode).toBe(404);
  });

  it('leaves the old address in control of what it proved: it signs in, sees the claim and its sharing, and revokes', async () => {
    const holderId = await newHolder(acme, 'ada.old@example.com');
    const claimId = await sessionClaim(acme, holderId, ['balances']);
    const requestId = await newRequest(acme, holderId, ['statements']);
    await changeEmail(acme, holderId, 'ada.new@example.com');

    const old = await signIn('ada.old@example.com');
    const wallets = (await old.get('/portal/wallets')).body;
    expect(wallets).toContain(`/portal/wallets/${claimId}/revoke`);
    expect(wallets).toContain('shared with Acme Lending');
    expect((await old.get('/portal/access')).body).toContain('Acme Lending');
    // Requests follow the account holder's address: the old one no longer answers them.
    expect((await old.get(`/portal/requests/${requestId}`)).statusCode).toBe(404);
    await old.get(`/portal/wallets/${claimId}/revoke`);
    expect((await old.post(`/portal/wallets/${claimId}/revoke`)).headers.location).toBe('/portal/wallets?done=claim_revoked');
    expect(await access(acme, claimId)).toBe(404);
  });

  it('treats a change of letter case as the same address, and refuses look-alike addresses in other scripts', async () => {
    const holderId = await newHolder(acme, 'ada.case@example.com');
    const claimId = await sessionClaim(acme, holderId, ['balances']);
    expect((await changeEmail(acme, holderId, 'Ada.Case@EXAMPLE.com')).statusCode).toBe(200);
    const requestId = await newRequest(acme, holderId, ['statements']);
    const ada = await signIn('ADA.case@example.com');
    const review = await ada.get(`/portal/requests/${requestId}`);
    expect(review.body).toContain(`value="${claimId}"`);
    expect((await ada.post(`/portal/requests/${requestId}/approve`, { claim: claimId })).statusCode).toBe(303);
    expect(await access(acme, claimId)).toEqual(['balances', 'statements']);

    // Cyrillic "а", a Kelvin sign that lower-cases to "k", a fullwidth letter: other mailboxes, never the same identity.
    for (const lookAlike of ['ada.case@exаmple.com', '\u212Aada.case@example.com', 'ａda.case@example.com']) {
      const res = await changeEmail(acme, holderId, lookAlike);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'email' });
      expect(await askLink(lookAlike)).toBe(false);
    }
    expect((await api(acme, 'GET', `/v1/connect/account_holders/${holderId}`)).json().email).toBe('Ada.Case@EXAMPLE.com');
  });

  it('never lets one address share a claim proven at one client with another client that has the same address', async () => {
    const atAcme = await newHolder(acme, 'ada.two@example.com');
    const claimId = await sessionClaim(acme, atAcme, ['balances']);
    const atBeta = await newHolder(beta, 'Ada.Two@example.com');
    const betaRequest = await newRequest(beta, atBeta, ['balances', 'statements']);
    const ada = await signIn('ada.two@example.com');
    const review = await ada.get(`/portal/requests/${betaRequest}`);
    expect(review.body).not.toContain(claimId);
    expect((await ada.post(`/portal/requests/${betaRequest}/approve`, { claim: claimId })).statusCode).toBe(422);
    expect((await api(beta, 'GET', `/v1/verify/claims/${claimId}`)).statusCode).toBe(404);
    // Beta moving its holder to another address changes nothing at Acme either.
    await changeEmail(beta, atBeta, 'mallory.two@example.com');
    const mallory = await signIn('mallory.two@example.com');
    expect((await mallory.get('/portal/wallets')).body).toContain('You have not proven any wallet yet.');
    expect(await access(acme, claimId)).toEqual(['balances']);
  });

  it('starts a holder that takes over an address empty: the address moved off one holder and onto another', async () => {
    const first = await newHolder(acme, 'ada.reuse@example.com');
    const claimId = await sessionClaim(acme, first, ['balances']);
    await changeEmail(acme, first, 'ada.elsewhere@example.com');
    const second = await newHolder(acme, 'ada.reuse@example.com');
    const requestId = await newRequest(acme, second, ['balances', 'statements']);

    // The address proved the claim, so it still sees it — but it was proven as the first holder,
    // and only a request to that holder could ever share it.
    const reused = await signIn('ada.reuse@example.com');
    expect((await reused.get('/portal/wallets')).body).toContain(`/portal/wallets/${claimId}/revoke`);
    const review = await reused.get(`/portal/requests/${requestId}`);
    expect(review.body).not.toContain(`value="${claimId}"`);
    expect((await reused.post(`/portal/requests/${requestId}/approve`, { claim: claimId })).statusCode).toBe(422);
    // And the first holder's new address got nothing of it.
    const elsewhere = await signIn('ada.elsewhere@example.com');
    expect((await elsewhere.get('/portal/wallets')).body).toContain('You have not proven any wallet yet.');
    expect(await access(acme, claimId)).toEqual(['balances']);
  });
});
