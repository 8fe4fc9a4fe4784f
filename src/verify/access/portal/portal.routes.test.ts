import { signMessage } from '../../../bitcoin/message/sign-message.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDueJobs } from '../../../../test/support/connect.js';
import { engines } from '../../../../test/support/database.js';
import { FormAgent } from '../../../../test/support/form-agent.js';
import { startTestApp, type TestApp, type TestClient } from '../../../../test/support/test-app.js';
import { proveWith, testnetWallet } from '../../../../test/support/verify.js';
import type { Scope } from '../../../platform/scope.js';

/** The portal through its real HTTP surface, as a browser without JavaScript uses it. */
describe.each(engines())('account-holder portal on %s', (engine) => {
  let t: TestApp;
  let acme: TestClient;
  let beta: TestClient;
  const api = (key: string, method: 'GET' | 'POST', url: string, json?: unknown) =>
    t.call(key, { method, url, ...(json === undefined ? {} : { json }) });
  const newHolder = async (client: TestClient, email: string, key = client.testKey) =>
    (await api(key, 'POST', '/v1/connect/account_holders', { email, name: 'Ada' })).json().id as string;
  const newRequest = async (client: TestClient, holderId: string, permissions = ['balances'], message?: string) =>
    (
      await api(client.testKey, 'POST', '/v1/verify/access_requests', {
        type: 'sharing',
        account_holder_id: holderId,
        permissions,
        ...(message ? { message } : {}),
      })
    ).json().id as string;
  const latestLink = async (to: string) => {
    const mail = await t.ctx.db
      .selectFrom('mail_outbox')
      .selectAll()
      .where('to_address', '=', to)
      .orderBy('seq', 'desc')
      .executeTakeFirst();
    const path = /\/portal\/sign-in\/pl_[0-9A-Za-z]+/.exec(mail?.text_body ?? '')?.[0];
    if (!path) throw new Error(`no sign-in link mailed to ${to}`);
    return path;
  };
  const outboxCount = async (to: string) =>
    (await t.ctx.db.selectFrom('mail_outbox').select('id').where('to_address', '=', to).execute()).length;

  /** Signs in with the newest link mailed to `email`; returns the agent and where it landed. */
  async function signIn(email: string, agent = new FormAgent(t.app, 'portal')) {
    const link = await latestLink(email);
    expect((await agent.get(link)).statusCode).toBe(200);
    const res = await agent.post(link);
    expect(res.statusCode).toBe(303);
    return { agent, location: res.headers.location as string };
  }

  async function askLink(email: string, agent = new FormAgent(t.app, 'portal')) {
    await agent.get('/portal/sign-in');
    const res = await agent.post('/portal/sign-in', { email });
    await runDueJobs(t.ctx);
    return res;
  }

  beforeAll(async () => {
    t = await startTestApp(engine);
    acme = await t.newClient('Acme Lending');
    beta = await t.newClient('Beta Audit');
  });
  afterAll(() => t.close());

  it('answers a sign-in request the same for a known and an unknown address, and mails only the known one', async () => {
    await newHolder(acme, 'known@example.com');
    const known = await askLink('Known@Example.com');
    const unknown = await askLink('nobody@example.com');
    expect(known.statusCode).toBe(200);
    expect(unknown.statusCode).toBe(200);
    const text = (body: string) => body.replace(/<strong>[^<]*<\/strong>/, '').replace(/name="_csrf" value="[^"]+"/g, '');
    expect(text(known.body)).toBe(text(unknown.body));
    expect(await outboxCount('known@example.com')).toBe(1);
    expect(await outboxCount('nobody@example.com')).toBe(0);
  });

  it('signs in once per link: a confirmation page, then a fresh HttpOnly SameSite=Lax session cookie; the link cannot be used again', async () => {
    await newHolder(acme, 'once@example.com');
    await askLink('once@example.com');
    const link = await latestLink('once@example.com');
    // A planted session cookie is replaced by a fresh one and never becomes signed in.
    const agent = new FormAgent(t.app, 'portal');
    const page = await agent.get(link);
    expect(page.body).toContain('Continue');
    const res = await t.app.inject({
      method: 'POST',
      url: link,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `ownproof_portal_csrf=${agent.csrfCookieValue()}; ownproof_portal_session=ps_planted`,
      },
      payload: `_csrf=${agent.token}`,
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/portal/requests');
    const cookie = [res.headers['set-cookie']].flat().find((c) => c?.startsWith('ownproof_portal_session=')) as string;
    expect(cookie).toMatch(/^ownproof_portal_session=ps_[0-9A-Za-z]{32};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/portal');
    const again = await new FormAgent(t.app, 'portal').get(link);
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('expired or was already used');
    const planted = await t.app.inject({
      method: 'GET',
      url: '/portal/requests',
      headers: { cookie: 'ownproof_portal_session=ps_planted' },
    });
    expect(planted.statusCode).toBe(303);
    expect(planted.headers.location).toBe('/portal/sign-in');
  });

  it('ends the session a browser had when it signs in again (the session is rotated, never reused)', async () => {
    await newHolder(acme, 'rotate@example.com');
    await askLink('rotate@example.com');
    const first = await signIn('rotate@example.com');
    const sessionCookie = async (agent: FormAgent) => {
      const res = await agent.get('/portal/requests');
      expect(res.statusCode).toBe(200);
      return res;
    };
    await sessionCookie(first.agent);
    const before = await t.ctx.db
      .selectFrom('verify_portal_sessions')
      .select(['token_hash', 'ended_at'])
      .where('email', '=', 'rotate@example.com')
      .execute();
    expect(before.map((r) => r.ended_at)).toEqual([null]);
    await askLink('rotate@example.com', first.agent);
    await signIn('rotate@example.com', first.agent);
    const after = await t.ctx.db
      .selectFrom('verify_portal_sessions')
      .select(['token_hash', 'ended_at'])
      .where('email', '=', 'rotate@example.com')
      .orderBy('seq')
      .execute();
    expect(after).toHaveLength(2);
    expect(after[0]?.token_hash).toBe(before[0]?.token_hash);
    expect(after[0]?.ended_at).not.toBeNull();
    expect(after[1]?.ended_at).toBeNull();
    await sessionCookie(first.agent);
  });

  it('lets a sign-in link expire after 15 minutes', async () => {
    await newHolder(acme, 'late@example.com');
    await askLink('late@example.com');
    const link = await latestLink('late@example.com');
    t.clock.advance(15 * 60 + 1);
    const agent = new FormAgent(t.app, 'portal');
    expect((await agent.get(link)).statusCode).toBe(410);
  });

  it('limits sign-in links per address (429 with Retry-After, nothing sent)', async () => {
    await newHolder(acme, 'busy@example.com');
    for (let i = 0; i < 5; i++) expect((await askLink('busy@example.com')).statusCode).toBe(200);
    const limited = await askLink('busy@example.com');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(await outboxCount('busy@example.com')).toBe(5);
  });

  it('limits sign-in links per IP address across addresses (429), and another IP address is not affected', async () => {
    const agent = new FormAgent(t.app, 'portal');
    await agent.get('/portal/sign-in');
    const from = (ip: string, email: string) =>
      t.app.inject({
        method: 'POST',
        url: '/portal/sign-in',
        remoteAddress: ip,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `ownproof_portal_csrf=${agent.csrfCookieValue()}` },
        payload: new URLSearchParams({ email, _csrf: agent.token as string }).toString(),
      });
    for (let i = 0; i < 30; i++) expect((await from('192.0.2.7', `spray${i}@example.com`)).statusCode).toBe(200);
    expect((await from('192.0.2.7', 'spray30@example.com')).statusCode).toBe(429);
    expect((await from('192.0.2.8', 'spray30@example.com')).statusCode).toBe(200);
  });

  it('sends signed-out people to sign in, and refuses forms without the CSRF token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/portal/wallets' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/portal/sign-in');
    await newHolder(acme, 'csrf@example.com');
    await askLink('csrf@example.com');
    const agent = new FormAgent(t.app, 'portal');
    const link = await latestLink('csrf@example.com');
    await agent.get(link);
    expect((await agent.post(link, {}, { token: null })).statusCode).toBe(403);
  });

  it('takes a person from the request e-mail to review, approve with an existing claim, and shared access', async () => {
    const holderId = await newHolder(acme, 'grace@example.com');
    const scope: Scope = { clientId: acme.clientId, mode: 'test' };
    const claim = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'));
    const requestId = await newRequest(acme, holderId, ['balances', 'statements'], 'We need this for your loan.');
    await runDueJobs(t.ctx);
    const { agent, location } = await signIn('grace@example.com');
    expect(location).toBe(`/portal/requests/${requestId}`);
    const review = await agent.get(location);
    expect(review.statusCode).toBe(200);
    for (const text of [
      'Acme Lending asks for access',
      'We need this for your loan.',
      'view the real-time balance of a claim',
      'request a statement for a claim',
      'ongoing access',
      'Approve and share',
      'Decline',
    ]) {
      expect(review.body).toContain(text);
    }
    expect(review.body).toContain(`value="${claim.id}"`);
    const approved = await agent.post(`${location}/approve`, { claim: claim.id });
    expect(approved.statusCode).toBe(303);
    expect((await api(acme.testKey, 'GET', `/v1/verify/access_requests/${requestId}`)).json()).toMatchObject({
      status: 'granted',
      claim_ids: [claim.id],
    });
    expect((await api(acme.testKey, 'GET', `/v1/verify/claims/${claim.id}`)).statusCode).toBe(200);
    expect((await agent.get(location)).body).toContain('You approved this request');
    const access = await agent.get('/portal/access');
    expect(access.body).toContain('Acme Lending');
    expect(access.body).toContain('May see balances and request statements');
    const revoked = await agent.post('/portal/access/revoke', { client: acme.clientId, claim: claim.id });
    expect(revoked.headers.location).toBe('/portal/access?done=revoked');
    expect((await api(acme.testKey, 'GET', `/v1/verify/claims/${claim.id}`)).statusCode).toBe(404);
    expect((await agent.get('/portal/access?done=revoked')).body).toContain('Access revoked');
  });

  it('walks a person with no claim through proving a wallet first, then back to the request to share it', async () => {
    const holderId = await newHolder(acme, 'newcomer@example.com');
    const requestId = await newRequest(acme, holderId);
    await runDueJobs(t.ctx);
    const { agent, location } = await signIn('newcomer@example.com');
    const review = await agent.get(location);
    expect(review.body).toContain('First, prove a wallet');
    const entry = await agent.get(`${location}/prove`);
    expect(entry.body).toContain('Address, extended public key or descriptor');
    // A label with a line break is refused; nothing starts.
    const wallet = testnetWallet('p2wpkh');
    expect((await agent.post(`${location}/prove`, { subject: wallet.address, label: 'two\nlines' })).statusCode).toBe(422);
    expect((await agent.post(`${location}/prove`, { subject: 'bc1qnotatestnetaddress' })).statusCode).toBe(422);
    const started = await agent.post(`${location}/prove`, { subject: wallet.address, label: 'Savings' });
    expect(started.statusCode).toBe(303);
    const challengeUrl = started.headers.location as string;
    expect(challengeUrl).toMatch(new RegExp(`^/portal/requests/${requestId}/prove/chl_`));
    const challenge = await t.ctx.db
      .selectFrom('verify_challenges')
      .selectAll()
      .where('id', '=', challengeUrl.split('/').pop() as string)
      .executeTakeFirstOrThrow();
    await agent.get(challengeUrl);
    const proven = await agent.post(challengeUrl, { signature: signMessage(wallet, challenge.message) });
    expect(proven.statusCode).toBe(303);
    expect(proven.headers.location).toBe(location);
    const picker = await agent.get(location);
    expect(picker.body).toContain('Savings');
    const claim = await t.ctx.db
      .selectFrom('verify_claims')
      .selectAll()
      .where('account_holder_id', '=', holderId)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(claim.statement).label).toBe('Savings');
    // Not shared until the person approves.
    expect((await api(acme.testKey, 'GET', `/v1/verify/claims/${claim.id}`)).statusCode).toBe(404);
    await agent.post(`${location}/approve`, { claim: claim.id });
    expect((await api(acme.testKey, 'GET', `/v1/verify/claims/${claim.id}`)).json().label).toBe('Savings');
  });

  it('declines (access_request.declined), and refuses an approve without a claim', async () => {
    const holderId = await newHolder(acme, 'decliner@example.com');
    await proveWith(t.ctx, { clientId: acme.clientId, mode: 'test' }, holderId, testnetWallet('p2tr'));
    const requestId = await newRequest(acme, holderId);
    await runDueJobs(t.ctx);
    const { agent, location } = await signIn('decliner@example.com');
    await agent.get(location);
    const empty = await agent.post(`${location}/approve`, {});
    expect(empty.statusCode).toBe(422);
    expect(empty.body).toContain('Choose at least one wallet');
    await agent.post(`${location}/decline`);
    expect((await api(acme.testKey, 'GET', `/v1/verify/access_requests/${requestId}`)).json().status).toBe('declined');
    expect((await agent.get(location)).body).toContain('You declined this request');
  });

  it('shows one person every client’s requests after one sign-in, but shares a claim only with the client it was proven for', async () => {
    const atAcme = await newHolder(acme, 'both@example.com');
    const atBeta = await newHolder(beta, 'BOTH@example.com');
    const acmeClaim = await proveWith(t.ctx, { clientId: acme.clientId, mode: 'test' }, atAcme, testnetWallet('p2wpkh'));
    const acmeRequest = await newRequest(acme, atAcme);
    const betaRequest = await newRequest(beta, atBeta);
    await runDueJobs(t.ctx);
    const { agent } = await signIn('both@example.com');
    const list = await agent.get('/portal/requests');
    expect(list.body).toContain('Acme Lending');
    expect(list.body).toContain('Beta Audit');
    const betaReview = await agent.get(`/portal/requests/${betaRequest}`);
    expect(betaReview.body).not.toContain(acmeClaim.id);
    expect(betaReview.body).toContain('First, prove a wallet');
    // Forcing Acme's claim into Beta's approval is refused and shares nothing.
    expect((await agent.post(`/portal/requests/${betaRequest}/approve`, { claim: acmeClaim.id })).statusCode).toBe(422);
    expect((await api(beta.testKey, 'GET', `/v1/verify/access_requests/${betaRequest}`)).json().status).toBe('pending');
    expect((await api(beta.testKey, 'GET', `/v1/verify/claims/${acmeClaim.id}`)).statusCode).toBe(404);
    expect((await agent.get(`/portal/requests/${acmeRequest}`)).body).toContain(acmeClaim.id);
  });

  it('never lets one person see or act on another’s request or claim, even with the ids', async () => {
    const victim = await newHolder(acme, 'victim@example.com');
    const victimClaim = await proveWith(t.ctx, { clientId: acme.clientId, mode: 'test' }, victim, testnetWallet('p2wpkh'));
    const victimRequest = await newRequest(acme, victim);
    const attacker = await newHolder(acme, 'attacker@example.com');
    const attackerRequest = await newRequest(acme, attacker);
    await runDueJobs(t.ctx);
    // The victim shares their claim, so there is access to revoke.
    const victimSide = await signIn('victim@example.com');
    await victimSide.agent.get(victimSide.location);
    await victimSide.agent.post(`${victimSide.location}/approve`, { claim: victimClaim.id });
    const { agent } = await signIn('attacker@example.com');
    await agent.get('/portal/requests');
    expect((await agent.get(`/portal/requests/${victimRequest}`)).statusCode).toBe(404);
    expect((await agent.post(`/portal/requests/${victimRequest}/decline`)).statusCode).toBe(404);
    expect((await agent.post(`/portal/requests/${victimRequest}/approve`, { claim: victimClaim.id })).statusCode).toBe(404);
    expect((await agent.post(`/portal/requests/${attackerRequest}/approve`, { claim: victimClaim.id })).statusCode).toBe(422);
    expect((await agent.get(`/portal/requests/${victimRequest}/prove`)).statusCode).toBe(404);
    await agent.post('/portal/access/revoke', { client: acme.clientId, claim: victimClaim.id });
    expect((await agent.get(`/portal/wallets/${victimClaim.id}/revoke`)).statusCode).toBe(303);
    await agent.post(`/portal/wallets/${victimClaim.id}/revoke`);
    expect((await agent.get(`/portal/wallets/prove/${victim}`)).statusCode).toBe(303);
    expect((await agent.post(`/portal/wallets/prove/${victim}`, { subject: testnetWallet('p2wpkh').address })).statusCode).toBe(303);
    const victimChallenge = await t.ctx.db
      .selectFrom('verify_challenges')
      .select('id')
      .where('account_holder_id', '=', victim)
      .executeTakeFirstOrThrow();
    const ownChallengePath = `/portal/wallets/prove/${attacker}/${victimChallenge.id}`;
    expect((await agent.get(ownChallengePath)).statusCode).toBe(404);
    expect((await agent.post(ownChallengePath, { signature: 'AkcwRAIgZm9yZ2Vk' })).statusCode).toBe(404);
    expect((await agent.post(`${ownChallengePath}/sandbox`)).statusCode).toBe(404);
    expect((await agent.get('/portal/wallets')).body).not.toContain(victimClaim.id);
    // Nothing of the victim's changed.
    expect((await api(acme.testKey, 'GET', `/v1/verify/access_requests/${victimRequest}`)).json().status).toBe('granted');
    expect((await api(acme.testKey, 'GET', `/v1/verify/claims/${victimClaim.id}`)).json().status).toBe('active');
    expect(await t.ctx.db.selectFrom('verify_challenges').select('id').where('account_holder_id', '=', victim).execute()).toHaveLength(1);
  });

  it('revokes a claim from My wallets after a confirmation: unshared everywhere, receipt check says revoked', async () => {
    const holderId = await newHolder(acme, 'revoker@example.com');
    const claim = await proveWith(t.ctx, { clientId: acme.clientId, mode: 'test' }, holderId, testnetWallet('p2wpkh'), {
      kind: 'connect_session',
      session_id: 'sess_x',
      permissions: ['balances'],
    });
    await askLink('revoker@example.com');
    const { agent } = await signIn('revoker@example.com');
    const wallets = await agent.get('/portal/wallets');
    expect(wallets.body).toContain('shared with Acme Lending');
    expect((await agent.get(`/portal/wallets/${claim.id}/revoke`)).body).toContain('This cannot be undone');
    const done = await agent.post(`/portal/wallets/${claim.id}/revoke`);
    expect(done.headers.location).toBe('/portal/wallets?done=claim_revoked');
    expect((await api(acme.testKey, 'GET', `/v1/verify/claims/${claim.id}`)).statusCode).toBe(404);
    const check = (await t.call(undefined, { method: 'POST', url: '/v1/verify/claims/verify', json: { receipt: claim.receipt } })).json();
    expect(check.status).toBe('revoked');
  });

  it('proves another wallet from My wallets, asking for whom when the person is known to several clients', async () => {
    await newHolder(acme, 'multi@example.com');
    const atBeta = await newHolder(beta, 'multi@example.com');
    await askLink('multi@example.com');
    const { agent } = await signIn('multi@example.com');
    const choose = await agent.get('/portal/wallets/prove');
    expect(choose.statusCode).toBe(200);
    expect(choose.body).toContain('Prove a wallet for Beta Audit');
    const entry = await agent.get(`/portal/wallets/prove/${atBeta}`);
    expect(entry.body).toContain('Your name for it');
  });

  it('signs out: the session ends and the cookie is cleared', async () => {
    await newHolder(acme, 'leaver@example.com');
    await askLink('leaver@example.com');
    const { agent } = await signIn('leaver@example.com');
    await agent.get('/portal/requests');
    const out = await agent.post('/portal/sign-out');
    expect(out.headers.location).toBe('/portal/sign-in?signed_out=1');
    expect((await agent.get('/portal/requests')).statusCode).toBe(303);
  });

  it('never signs in to live-mode data with a link that went to the development outbox', async () => {
    await newHolder(acme, 'liveonly@example.com', acme.liveKey);
    await askLink('liveonly@example.com');
    expect(await outboxCount('liveonly@example.com')).toBe(0);
  });
});

describe('account-holder portal under https', () => {
  it('marks the session cookie Secure and __Secure- prefixed', async () => {
    const t = await startTestApp('sqlite', { config: { PUBLIC_BASE_URL: 'https://ownproof.example.com' } });
    try {
      const acme = await t.newClient('Acme Lending');
      await t.call(acme.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'secure@example.com' } });
      const agent = new FormAgent(t.app, 'portal');
      await agent.get('/portal/sign-in');
      await agent.post('/portal/sign-in', { email: 'secure@example.com' });
      await runDueJobs(t.ctx);
      const mail = await t.ctx.db
        .selectFrom('mail_outbox')
        .selectAll()
        .where('to_address', '=', 'secure@example.com')
        .executeTakeFirstOrThrow();
      const link = /https:\/\/ownproof\.example\.com(\/portal\/sign-in\/pl_[0-9A-Za-z]+)/.exec(mail.text_body)?.[1] as string;
      expect(link).toBeDefined();
      await agent.get(link);
      const res = await agent.post(link);
      const cookie = [res.headers['set-cookie']].flat().find((c) => c?.startsWith('__Secure-ownproof_portal_session=')) as string;
      expect(cookie).toContain('Secure');
      expect(cookie).toContain('HttpOnly');
    } finally {
      await t.close();
    }
  });
});
