import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { proveInHostedSession, runDueJobs, type ProvenSession } from '../../../test/support/connect.js';
import { engines } from '../../../test/support/database.js';
import { FormAgent } from '../../../test/support/form-agent.js';
import { signInToPortal } from '../../../test/support/portal.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { signWithSandboxWallet } from '../../bitcoin/sandbox/sandbox-signer.js';
import { submitSignature } from '../../verify/claims/proof.service.js';
import { markAccountProven } from '../hosted-flow.service.js';

/**
 * The disclaimer's promise, "shared only when you choose Done", held through every path a client
 * can read from: nothing of a session — accounts, claims, balances, events — before Done, and
 * nothing after Cancel or expiry. The person's proof itself stays theirs (the portal lists it).
 */
describe.each(engines())('what a client sees of a connect session, on %s', (engine) => {
  let t: TestApp;
  let acme: TestClient;
  const api = (method: 'GET' | 'POST', url: string, json?: unknown) =>
    t.call(acme.testKey, { method, url, ...(json === undefined ? {} : { json }) });
  const newHolder = async (email: string) => (await api('POST', '/v1/connect/account_holders', { email })).json().id as string;

  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  // A client of its own per test: what it sees is exactly what that test's session gave it.
  beforeEach(async () => {
    acme = await t.newClient('Acme Lending');
  });
  afterAll(() => t.close());

  /** Everything the client could learn of the session's wallet and its proof, through the API. */
  async function clientView(proven: ProvenSession) {
    await runDueJobs(t.ctx);
    const events = (await api('GET', '/v1/events?limit=100')).json().data as { type: string; data: { object: { id?: string } } }[];
    return {
      claim: (await api('GET', `/v1/verify/claims/${proven.claimId}`)).statusCode,
      claims: ((await api('GET', '/v1/verify/claims')).json().data as { id: string }[]).map((c) => c.id),
      account: (await api('GET', `/v1/connect/accounts/${proven.accountId}`)).statusCode,
      accounts: ((await api('GET', '/v1/connect/accounts')).json().data as { id: string }[]).map((a) => a.id),
      claimEvents: events.filter((e) => e.data.object.id === proven.claimId).map((e) => e.type),
      // The rows webhooks are delivered from, whatever /v1/events pages show.
      claimEventRows: (await t.ctx.db.selectFrom('events').select('type').where('client_id', '=', acme.clientId).execute()).filter((e) =>
        e.type.startsWith('claim.'),
      ).length,
    };
  }

  /** The portal's pages for the person, signed in with a link mailed to `email`. */
  async function portalFor(email: string) {
    const agent = await signInToPortal(t, email);
    return { access: (await agent.get('/portal/access')).body, wallets: (await agent.get('/portal/wallets')).body };
  }

  it('shows the client nothing of a wallet proven in a session before Done, and all of it after', async () => {
    const holderId = await newHolder('before-done@example.com');
    const proven = await proveInHostedSession(t, acme.testKey, holderId, ['balances', 'transactions']);
    expect(await clientView(proven)).toEqual({ claim: 404, claims: [], account: 404, accounts: [], claimEvents: [], claimEventRows: 0 });
    // Nor does the person's portal call it shared.
    const before = await portalFor('before-done@example.com');
    expect(before.access).toContain('You share nothing right now.');
    expect(before.wallets).toContain('not shared');

    expect((await proven.agent.post(`${proven.path}/finish`)).statusCode).toBe(200);
    const after = await clientView(proven);
    expect(after).toMatchObject({
      claim: 200,
      claims: [proven.claimId],
      account: 200,
      accounts: [proven.accountId],
      claimEvents: ['claim.created'],
    });
    const claim = (await api('GET', `/v1/verify/claims/${proven.claimId}`)).json();
    expect(claim.access.permissions).toEqual(['balances', 'statements']);
    expect(claim.balance).toBeDefined();
    expect((await portalFor('before-done@example.com')).access).toContain('Acme Lending');
  });

  it('shares nothing after "Cancel without sharing": the claim, its account and its events stay unseen', async () => {
    const holderId = await newHolder('cancel@example.com');
    const proven = await proveInHostedSession(t, acme.testKey, holderId, ['balances']);
    await proven.agent.post(`${proven.path}/exit`);
    const session = (await api('GET', `/v1/connect/sessions/${proven.sessionId}`)).json();
    expect(session).toMatchObject({ status: 'abandoned', accounts: [] });
    expect(await clientView(proven)).toEqual({ claim: 404, claims: [], account: 404, accounts: [], claimEvents: [], claimEventRows: 0 });
    const portal = await portalFor('cancel@example.com');
    expect(portal.access).toContain('You share nothing right now.');
    // The proof is the person's own: listed, not shared, revocable.
    expect(portal.wallets).toContain('not shared');
    expect(portal.wallets).toContain(`/portal/wallets/${proven.claimId}/revoke`);
  });

  it('shares nothing of a session that expired with a proven wallet in it', async () => {
    const holderId = await newHolder('expired@example.com');
    const proven = await proveInHostedSession(t, acme.testKey, holderId, ['balances']);
    t.clock.advance(2 * 3600);
    await runDueJobs(t.ctx);
    expect((await api('GET', `/v1/connect/sessions/${proven.sessionId}`)).json().status).toBe('abandoned');
    expect(await clientView(proven)).toEqual({ claim: 404, claims: [], account: 404, accounts: [], claimEvents: [], claimEventRows: 0 });
    // Done on the expired session's page changes nothing.
    await proven.agent.post(`${proven.path}/finish`);
    expect((await clientView(proven)).claim).toBe(404);
  });

  it('lets no other browser than the person’s act on the session once they accepted: the client holding the hosted URL cannot press Done for them', async () => {
    const holderId = await newHolder('other-browser@example.com');
    const proven = await proveInHostedSession(t, acme.testKey, holderId, ['balances']);
    // The person closed the tab without choosing. The client opens the URL it was given.
    const client = new FormAgent(t.app, 'connect');
    const page = await client.get(proven.path);
    expect(page.statusCode).toBe(403);
    expect(page.body).toContain('open in another browser');
    expect(page.body).not.toContain('Ownership proven');
    for (const step of ['/finish', '/exit', '/consent', `/accounts/${proven.accountId}/prove`]) {
      const res = await client.post(`${proven.path}${step}`);
      expect(res.statusCode, step).toBe(403);
    }
    expect((await api('GET', `/v1/connect/sessions/${proven.sessionId}`)).json().status).toBe('open');
    expect(await clientView(proven)).toEqual({ claim: 404, claims: [], account: 404, accounts: [], claimEvents: [], claimEventRows: 0 });
    // The person's own browser carries on.
    expect((await proven.agent.post(`${proven.path}/finish`)).statusCode).toBe(200);
    expect((await clientView(proven)).claim).toBe(200);
  });

  it('names a proven wallet’s claim on its account only while the client can read that claim', async () => {
    const ownership = async (accountId: string) => (await api('GET', `/v1/connect/accounts/${accountId}`)).json().ownership;

    // Revoked by the person before Done: Done shares nothing of it, and the account does not claim it.
    const early = await proveInHostedSession(t, acme.testKey, await newHolder('revoked-first@example.com'), ['balances']);
    const person = await signInToPortal(t, 'revoked-first@example.com');
    await person.get(`/portal/wallets/${early.claimId}/revoke`);
    expect((await person.post(`/portal/wallets/${early.claimId}/revoke`)).statusCode).toBe(303);
    expect((await early.agent.post(`${early.path}/finish`)).statusCode).toBe(200);
    expect(await ownership(early.accountId)).toEqual({ status: 'unverified', claim: null });
    expect((await api('GET', `/v1/verify/claims/${early.claimId}`)).statusCode).toBe(404);

    // Shared at Done, then the person stops sharing it: the account stops naming it too.
    const later = await proveInHostedSession(t, acme.testKey, await newHolder('revoked-after@example.com'), ['balances']);
    expect((await later.agent.post(`${later.path}/finish`)).statusCode).toBe(200);
    expect(await ownership(later.accountId)).toEqual({ status: 'verified', claim: later.claimId });
    const owner = await signInToPortal(t, 'revoked-after@example.com');
    expect((await owner.post('/portal/access/revoke', { client: acme.clientId, claim: later.claimId })).statusCode).toBe(303);
    expect(await ownership(later.accountId)).toEqual({ status: 'unverified', claim: null });
    const listed = (await api('GET', '/v1/connect/accounts')).json().data as { id: string; ownership: unknown }[];
    expect(listed.find((a) => a.id === later.accountId)?.ownership).toEqual({ status: 'unverified', claim: null });
  });

  it('records a proof that ends after Done (a request still running) on no account, and shares it with nobody', async () => {
    const holderId = await newHolder('late-proof@example.com');
    const proven = await proveInHostedSession(t, acme.testKey, holderId, ['balances']);
    // A second wallet proof is under way in the same browser when Done is pressed.
    const started = await proven.agent.post(`${proven.path}/accounts/${proven.accountId}/prove`);
    const challengeId = (started.headers.location as string).split('/').pop() as string;
    expect((await proven.agent.post(`${proven.path}/finish`)).statusCode).toBe(200);
    const challenge = await t.ctx.db.selectFrom('verify_challenges').selectAll().where('id', '=', challengeId).executeTakeFirstOrThrow();
    const signed = signWithSandboxWallet(challenge.signing_address, challenge.message);
    if (!signed.ok) throw new Error(signed.reason);
    const late = await submitSignature(t.ctx, challenge, signed.signature, {
      alsoInTransaction: markAccountProven(t.ctx, { id: proven.accountId, sessionId: proven.sessionId }),
    });
    if (!late.ok) throw new Error(JSON.stringify(late));
    expect((await api('GET', `/v1/connect/accounts/${proven.accountId}`)).json().ownership).toEqual({
      status: 'verified',
      claim: proven.claimId,
    });
    expect((await api('GET', `/v1/verify/claims/${late.claim.id}`)).statusCode).toBe(404);
  });
});
