import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDueJobs } from '../../../test/support/connect.js';
import { engines } from '../../../test/support/database.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { proveWith, testnetWallet } from '../../../test/support/verify.js';
import type { Scope } from '../../platform/scope.js';
import { findAccessRequestById } from './access-request.repository.js';
import { grantAccessRequest } from './access-request.service.js';
import { revokeAccess, revokeClaim, shareClaim, type ClaimOwner } from './sharing.service.js';

describe.each(engines())('access requests API on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  let scope: Scope;
  let holderId: string;
  /** Ada in the portal: the address her claims are proven under. */
  const owner: ClaimOwner = { controller: 'ada@example.com', modes: ['test'] };
  const post = (url: string, json?: unknown, key = client.testKey) =>
    t.call(key, { method: 'POST', url, ...(json === undefined ? {} : { json }) });
  const get = (url: string, key = client.testKey) => t.call(key, { method: 'GET', url });
  const create = (json: Record<string, unknown>, key = client.testKey) => post('/v1/verify/access_requests', json, key);
  const eventsOf = async (type: string, key = client.testKey) =>
    ((await get(`/v1/events?type=${type}&limit=100`, key)).json().data as { data: { object: Record<string, unknown> } }[]).map(
      (e) => e.data.object,
    );
  const outbox = (to: string) =>
    t.ctx.db.selectFrom('mail_outbox').selectAll().where('to_address', '=', to).orderBy('seq', 'desc').execute();

  beforeAll(async () => {
    t = await startTestApp(engine);
    client = await t.newClient('Acme Lending');
    scope = { clientId: client.clientId, mode: 'test' };
    holderId = (await post('/v1/connect/account_holders', { email: 'ada@example.com', name: 'Ada Lovelace' })).json().id;
  });
  afterAll(() => t.close());

  it('creates a pending sharing request and e-mails the account holder a link to review it', async () => {
    const res = await create({
      type: 'sharing',
      account_holder_id: holderId,
      permissions: ['balances', 'statements'],
      message: 'For your loan\napplication.',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^ar_[0-9A-Za-z]{22}$/),
      object: 'access_request',
      type: 'sharing',
      status: 'pending',
      account_holder_id: holderId,
      permissions: ['balances', 'statements'],
      claim_ids: [],
      message: 'For your loan\napplication.',
      notification: { status: 'pending', last_error: null, sent_at: null },
      created_at: expect.any(Number),
      expires_at: body.created_at + 30 * 24 * 3600,
      responded_at: null,
      livemode: false,
    });
    await runDueJobs(t.ctx);
    const after = (await get(`/v1/verify/access_requests/${body.id}`)).json();
    expect(after.notification).toEqual({ status: 'sent', last_error: null, sent_at: expect.any(Number) });
    const [mail] = await outbox('ada@example.com');
    expect(mail).toMatchObject({ kind: 'access_request', subject: 'Acme Lending asks you to share proof of your Bitcoin wallet' });
    expect(mail?.text_body).toContain('Hello Ada Lovelace');
    expect(mail?.text_body).toContain('view the real-time balance of a claim');
    expect(mail?.text_body).toContain('For your loan');
    expect(mail?.text_body).toMatch(/\/portal\/sign-in\/pl_[0-9A-Za-z]{32}/);
  });

  it.each([
    [{ type: 'statement', account_holder_id: 'HOLDER', permissions: ['balances'] }, 400, 'access_request_type_unsupported', 'type'],
    [{ type: 'lending', account_holder_id: 'HOLDER', permissions: ['balances'] }, 400, 'parameter_invalid', 'type'],
    [{ account_holder_id: 'HOLDER', permissions: ['balances'] }, 400, 'parameter_missing', 'type'],
    [{ type: 'sharing', account_holder_id: 'ah_nobody', permissions: ['balances'] }, 400, 'parameter_invalid', 'account_holder_id'],
    [{ type: 'sharing', account_holder_id: 'HOLDER', permissions: [] }, 400, 'parameter_invalid', 'permissions'],
    [{ type: 'sharing', account_holder_id: 'HOLDER', permissions: ['balances', 'balances'] }, 400, 'parameter_invalid', 'permissions'],
    [{ type: 'sharing', account_holder_id: 'HOLDER', permissions: ['transactions'] }, 400, 'parameter_invalid', 'permissions[0]'],
    [
      { type: 'sharing', account_holder_id: 'HOLDER', permissions: ['balances'], message: 'x'.repeat(501) },
      400,
      'parameter_invalid',
      'message',
    ],
    [
      { type: 'sharing', account_holder_id: 'HOLDER', permissions: ['balances'], message: 'bell\u0007' },
      400,
      'parameter_invalid',
      'message',
    ],
    [{ type: 'sharing', account_holder_id: 'HOLDER', permissions: ['balances'], expires_at: 1 }, 400, 'parameter_invalid', 'expires_at'],
    [
      { type: 'sharing', account_holder_id: 'HOLDER', permissions: ['balances'], expires_at: 'DAYS:91' },
      400,
      'parameter_invalid',
      'expires_at',
    ],
    [{ type: 'sharing', account_holder_id: 'HOLDER', permissions: ['balances'], claim_ids: [] }, 400, 'parameter_unknown', 'claim_ids'],
  ])('refuses %j with %i %s naming %s, and creates nothing', async (input, status, code, param) => {
    const now = Math.floor(t.clock.now() / 1000);
    const json = Object.fromEntries(
      Object.entries(input).map(([k, v]) => [k, v === 'HOLDER' ? holderId : v === 'DAYS:91' ? now + 91 * 24 * 3600 : v]),
    );
    const before = (await get('/v1/verify/access_requests?limit=100')).json().data.length;
    const res = await create(json);
    expect(res.statusCode).toBe(status);
    expect(res.json().error).toMatchObject({ code, param });
    if (code === 'access_request_type_unsupported') expect(res.json().error.message).toContain('"sharing"');
    expect((await get('/v1/verify/access_requests?limit=100')).json().data.length).toBe(before);
  });

  it('refuses another client’s account holder as if it did not exist', async () => {
    const other = await t.newClient('Other');
    const theirs = (await post('/v1/connect/account_holders', { email: 'x@example.com' }, other.testKey)).json().id;
    const res = await create({ type: 'sharing', account_holder_id: theirs, permissions: ['balances'] });
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'account_holder_id' });
  });

  it('refuses live-mode requests while mail only reaches the development outbox', async () => {
    const liveHolder = (await post('/v1/connect/account_holders', { email: 'live@example.com' }, client.liveKey)).json().id;
    const res = await create({ type: 'sharing', account_holder_id: liveHolder, permissions: ['balances'] }, client.liveKey);
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('mail_unavailable');
    expect((await get('/v1/verify/access_requests', client.liveKey)).json().data).toEqual([]);
  });

  it('lists newest first with status and account holder filters, and hides other tenants’ requests', async () => {
    const second = (await post('/v1/connect/account_holders', { email: 'grace@example.com' })).json().id;
    const a = (await create({ type: 'sharing', account_holder_id: second, permissions: ['balances'] })).json();
    const b = (await create({ type: 'sharing', account_holder_id: second, permissions: ['statements'] })).json();
    await post(`/v1/verify/access_requests/${a.id}/cancel`);
    const listed = (await get(`/v1/verify/access_requests?account_holder_id=${second}`)).json();
    expect(listed).toMatchObject({ object: 'list', url: '/v1/verify/access_requests', has_more: false });
    expect(listed.data.map((r: { id: string }) => r.id)).toEqual([b.id, a.id]);
    expect(
      (await get(`/v1/verify/access_requests?account_holder_id=${second}&status=canceled`)).json().data.map((r: { id: string }) => r.id),
    ).toEqual([a.id]);
    expect((await get('/v1/verify/access_requests?status=maybe')).json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'status',
    });
    const other = await t.newClient('Other');
    expect((await get(`/v1/verify/access_requests/${b.id}`, other.testKey)).statusCode).toBe(404);
    expect((await get(`/v1/verify/access_requests/${b.id}`, client.liveKey)).statusCode).toBe(404);
    expect((await post(`/v1/verify/access_requests/${b.id}/cancel`, undefined, other.testKey)).statusCode).toBe(404);
  });

  it('cancels a pending request once (access_request.canceled), then answers 409', async () => {
    const created = (await create({ type: 'sharing', account_holder_id: holderId, permissions: ['balances'] })).json();
    const canceled = await post(`/v1/verify/access_requests/${created.id}/cancel`);
    expect(canceled.statusCode).toBe(200);
    expect(canceled.json()).toMatchObject({ status: 'canceled', responded_at: expect.any(Number) });
    const again = await post(`/v1/verify/access_requests/${created.id}/cancel`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'access_request_not_pending', param: 'id' });
    expect(again.json().error.message).toContain('canceled');
    expect((await eventsOf('access_request.canceled')).filter((o) => o.id === created.id)).toHaveLength(1);
    // The e-mail of a request canceled before it went out is not sent.
    await runDueJobs(t.ctx);
    expect((await get(`/v1/verify/access_requests/${created.id}`)).json().notification).toMatchObject({
      status: 'failed',
      last_error: 'not sent: the request was canceled first',
    });
  });

  it('expires an unanswered request at expires_at (access_request.expired), seen on read before any worker runs', async () => {
    const now = Math.floor(t.clock.now() / 1000);
    const created = (
      await create({ type: 'sharing', account_holder_id: holderId, permissions: ['balances'], expires_at: now + 3600 })
    ).json();
    expect(created.expires_at).toBe(now + 3600);
    t.clock.advance(3601);
    const read = (await get(`/v1/verify/access_requests/${created.id}`)).json();
    expect(read).toMatchObject({ status: 'expired', responded_at: expect.any(Number) });
    await runDueJobs(t.ctx);
    expect((await eventsOf('access_request.expired')).filter((o) => o.id === created.id)).toHaveLength(1);
    expect((await post(`/v1/verify/access_requests/${created.id}/cancel`)).statusCode).toBe(409);
  });

  it('grants: the picked claims are shared with the request’s permissions, the client sees them, and access_request.granted names them', async () => {
    const created = (await create({ type: 'sharing', account_holder_id: holderId, permissions: ['statements'] })).json();
    const claim = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'));
    expect((await get(`/v1/verify/claims/${claim.id}`)).statusCode).toBe(404);
    const row = await findAccessRequestById(t.ctx.db, created.id);
    const outcome = await grantAccessRequest(t.ctx, row!, owner, [claim.id]);
    expect(outcome.ok).toBe(true);
    const granted = (await get(`/v1/verify/access_requests/${created.id}`)).json();
    expect(granted).toMatchObject({ status: 'granted', claim_ids: [claim.id], responded_at: expect.any(Number) });
    const seen = (await get(`/v1/verify/claims/${claim.id}`)).json();
    expect(seen.access).toEqual({ permissions: ['statements'], granted_at: expect.any(Number), revoked_at: null });
    expect(seen.balance).toBeUndefined();
    const [event] = (await eventsOf('access_request.granted')).filter((o) => o.id === created.id);
    expect(event).toMatchObject({ status: 'granted', claim_ids: [claim.id] });
    // A second grant widens the client's access to both permissions; a later narrower one never takes any away.
    const wider = (await create({ type: 'sharing', account_holder_id: holderId, permissions: ['balances'] })).json();
    await grantAccessRequest(t.ctx, (await findAccessRequestById(t.ctx.db, wider.id))!, owner, [claim.id]);
    expect((await get(`/v1/verify/claims/${claim.id}`)).json().access.permissions).toEqual(['balances', 'statements']);
    // Answered requests cannot be granted again.
    expect(await grantAccessRequest(t.ctx, (await findAccessRequestById(t.ctx.db, created.id))!, owner, [claim.id])).toEqual({
      ok: false,
      reason: 'not_pending',
    });
  });

  it('refuses to share a claim of another account holder, a revoked claim, or none', async () => {
    const created = (await create({ type: 'sharing', account_holder_id: holderId, permissions: ['balances'] })).json();
    const otherHolder = (await post('/v1/connect/account_holders', { email: 'eve@example.com' })).json().id;
    const theirs = await proveWith(t.ctx, scope, otherHolder, testnetWallet('p2wpkh'));
    const mine = await proveWith(t.ctx, scope, holderId, testnetWallet('p2tr'));
    await revokeClaim(t.ctx, owner, mine.id);
    const row = (await findAccessRequestById(t.ctx.db, created.id))!;
    expect(await grantAccessRequest(t.ctx, row, owner, [theirs.id])).toEqual({ ok: false, reason: 'claim_not_yours', claimId: theirs.id });
    expect(await grantAccessRequest(t.ctx, row, owner, [mine.id])).toEqual({ ok: false, reason: 'claim_not_yours', claimId: mine.id });
    expect(await grantAccessRequest(t.ctx, row, owner, [])).toEqual({ ok: false, reason: 'no_claims' });
    expect((await get(`/v1/verify/access_requests/${created.id}`)).json().status).toBe('pending');
  });

  it('never shares a claim revoked meanwhile (another tab), and never shows a revoked claim even through a grant left active', async () => {
    const claim = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'));
    expect(await revokeClaim(t.ctx, owner, claim.id)).toBe(true);
    // The approval's own check ran before the revocation; sharing itself re-reads the claim, locked.
    const shared = await t.ctx.db
      .transaction()
      .execute((trx) => shareClaim(trx, t.ctx, { scope, claimId: claim.id, permissions: ['balances'], source: 'test' }));
    expect(shared).toBeUndefined();
    expect(await t.ctx.db.selectFrom('verify_claim_grants').select('claim_id').where('claim_id', '=', claim.id).execute()).toEqual([]);
    await t.ctx.db
      .insertInto('verify_claim_grants')
      .values({
        client_id: client.clientId,
        mode: 'test',
        claim_id: claim.id,
        permissions: '["balances"]',
        source: 'test',
        created_at: 0,
        revoked_at: null,
      })
      .execute();
    expect((await get(`/v1/verify/claims/${claim.id}`)).statusCode).toBe(404);
  });

  it('follows a revoke at once: the claim is a 404 for that client, with claim.access_revoked', async () => {
    const created = (await create({ type: 'sharing', account_holder_id: holderId, permissions: ['balances'] })).json();
    const claim = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'));
    await grantAccessRequest(t.ctx, (await findAccessRequestById(t.ctx.db, created.id))!, owner, [claim.id]);
    expect((await get(`/v1/verify/claims/${claim.id}`)).statusCode).toBe(200);
    expect(
      await revokeAccess(t.ctx, { controller: 'someone.else@example.com', modes: ['test'] }, client.clientId, claim.id),
    ).toBeUndefined();
    expect((await get(`/v1/verify/claims/${claim.id}`)).statusCode).toBe(200);
    const revoked = await revokeAccess(t.ctx, owner, client.clientId, claim.id);
    expect((await get(`/v1/verify/claims/${claim.id}`)).statusCode).toBe(404);
    expect((await get('/v1/verify/claims?limit=100')).json().data.map((c: { id: string }) => c.id)).not.toContain(claim.id);
    const [event] = (await eventsOf('claim.access_revoked')).filter((o) => o.id === claim.id);
    expect(event).toMatchObject({
      object: 'claim',
      status: 'active',
      access: { permissions: ['balances'], revoked_at: expect.any(Number) },
    });
    expect(revoked).toEqual(event);
    expect(await revokeAccess(t.ctx, owner, client.clientId, claim.id)).toBeUndefined();
  });

  it('revoking a claim ends every client’s access (claim.revoked to each) and the public check says revoked', async () => {
    const other = await t.newClient('Second Lender');
    const claim = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'), {
      kind: 'connect_session',
      session_id: 'sess_x',
      permissions: ['balances'],
    });
    await t.ctx.db
      .insertInto('verify_claim_grants')
      .values({
        client_id: other.clientId,
        mode: 'test',
        claim_id: claim.id,
        permissions: '["balances"]',
        source: 'test',
        created_at: 0,
        revoked_at: null,
      })
      .execute();
    expect(await revokeClaim(t.ctx, owner, claim.id)).toBe(true);
    for (const key of [client.testKey, other.testKey]) {
      expect((await get(`/v1/verify/claims/${claim.id}`, key)).statusCode).toBe(404);
      expect((await eventsOf('claim.revoked', key)).filter((o) => o.id === claim.id)).toEqual([
        expect.objectContaining({ status: 'revoked' }),
      ]);
    }
    const check = (await t.call(undefined, { method: 'POST', url: '/v1/verify/claims/verify', json: { receipt: claim.receipt } })).json();
    expect(check).toMatchObject({ valid: true, status: 'revoked' });
    expect(await revokeClaim(t.ctx, owner, claim.id)).toBe(false);
  });
});
