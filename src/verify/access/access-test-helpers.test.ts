import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { expectRefusedUnchanged, type SendRequest } from '../../../test/support/refusals.js';
import { TENANCY_CONFIG, TENANCY_SEAMS } from '../../../test/support/tenancy-fixtures.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { proveWith, testnetWallet } from '../../../test/support/verify.js';
import { makeWallet } from '../../bitcoin/message/fixtures/signers.js';
import type { Mode } from '../../platform/scope.js';
import { revokeClaim } from './sharing.service.js';

const APPROVE = (id: string) => `/v1/test_helpers/verify/access_requests/${id}/approve`;
const DECLINE = (id: string) => `/v1/test_helpers/verify/access_requests/${id}/decline`;
const REVOKE_ACCESS = (id: string) => `/v1/test_helpers/verify/claims/${id}/revoke_access`;

/**
 * The verify test helpers answer a request and revoke a grant as the account holder would in the
 * portal, through the portal's own services: only claims the holder controls and could pick there
 * can be shared, and what they refuse changes nothing.
 */
describe.each(engines())('verify test helpers on %s', (engine) => {
  let t: TestApp;
  let acme: TestClient;
  let holderId: string;
  /** Three claims Ada proved as Acme's account holder in the portal: hers, shared with nobody yet. */
  let claims: string[];
  const api = (method: 'GET' | 'POST', url: string, json?: unknown, key = acme.testKey) =>
    t.call(key, { method, url, ...(json === undefined ? {} : { json }) });
  const expectRefused = (send: SendRequest, status: number, code: string, param?: string) =>
    expectRefusedUnchanged(t, send, status, code, param);
  const newHolder = async (email: string, key = acme.testKey) =>
    (await api('POST', '/v1/connect/account_holders', { email }, key)).json().id as string;
  const newRequest = async (account_holder_id = holderId, key = acme.testKey, permissions = ['balances']) => {
    const res = await api('POST', '/v1/verify/access_requests', { type: 'sharing', account_holder_id, permissions }, key);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().id as string;
  };
  const prove = async (holder: string, client: TestClient = acme, mode: Mode = 'test') =>
    (
      await proveWith(
        t.ctx,
        { clientId: client.clientId, mode },
        holder,
        mode === 'test' ? testnetWallet('p2wpkh') : makeWallet('p2wpkh', 'mainnet'),
      )
    ).id;
  const shared = async (key = acme.testKey) =>
    ((await api('GET', '/v1/verify/claims?limit=100', undefined, key)).json().data as { id: string }[]).map((c) => c.id).sort();
  const eventsOf = async (type: string) =>
    ((await api('GET', `/v1/events?type=${type}&limit=100`)).json().data as { data: { object: Record<string, unknown> } }[]).map(
      (e) => e.data.object,
    );

  beforeAll(async () => {
    // SMTP, so live-mode requests can be made (no job runs here, so no mail is sent); a live chain, so live claims can be.
    t = await startTestApp(engine, { seams: TENANCY_SEAMS, config: TENANCY_CONFIG });
  });
  beforeEach(async () => {
    acme = await t.newClient('Acme Lending');
    holderId = await newHolder('ada@example.com');
    claims = [await prove(holderId), await prove(holderId), await prove(holderId)];
  });
  afterAll(() => t?.close());

  describe('approve', () => {
    it('shares exactly the chosen claims, with the request’s permissions, and records access_request.granted', async () => {
      const id = await newRequest(holderId, acme.testKey, ['balances', 'statements']);
      const picked = [claims[2], claims[0]] as string[];
      const res = await api('POST', APPROVE(id), { claim_ids: picked });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ id, object: 'access_request', status: 'granted', claim_ids: picked });
      expect(await shared()).toEqual([...picked].sort());
      expect((await api('GET', `/v1/verify/claims/${claims[0]}`)).json().access.permissions).toEqual(['balances', 'statements']);
      expect((await api('GET', `/v1/verify/claims/${claims[1]}`)).statusCode).toBe(404);
      expect(await eventsOf('access_request.granted')).toEqual([res.json()]);
    });

    it('shares every claim the holder could pick in the portal when no claim_ids are given', async () => {
      const id = await newRequest();
      const res = await api('POST', APPROVE(id), {});
      expect(res.statusCode, res.body).toBe(200);
      expect([...res.json().claim_ids].sort()).toEqual([...claims].sort());
      expect(await shared()).toEqual([...claims].sort());
    });

    it('refuses a claim the holder cannot share with this request — another holder’s, another client’s, one proven under their previous address, a revoked one, or none at all — naming it; nothing is shared', async () => {
      const id = await newRequest();
      const bob = await prove(await newHolder('bob@example.com'));
      const other = await t.newClient('Other Co');
      // The same person at another client: a claim proven there stays there.
      const elsewhere = await prove(await newHolder('ada@example.com', other.testKey), other);
      const revoked = await prove(holderId);
      expect(await revokeClaim(t.ctx, { controller: 'ada@example.com', modes: ['test'] }, revoked)).toBe(true);
      const messages: string[] = [];
      for (const claim of [bob, elsewhere, revoked, 'clm_doesnotexist0000000']) {
        const refused = await expectRefused(
          () => api('POST', APPROVE(id), { claim_ids: [claims[0], claim] }),
          400,
          'parameter_invalid',
          'claim_ids[1]',
        );
        messages.push(refused.message.replace(claim, '…'));
      }
      // One answer whatever the claim is, so it tells nothing of other holders' and clients' claims.
      expect(new Set(messages)).toEqual(
        new Set(["Invalid value for claim_ids[1]: '…' is not a claim the account holder can share with this request."]),
      );

      // Moved to another address, the holder no longer controls what the old one proved.
      expect((await api('POST', `/v1/connect/account_holders/${holderId}`, { email: 'ada.new@example.com' })).statusCode).toBe(200);
      await expectRefused(() => api('POST', APPROVE(id), { claim_ids: [claims[0]] }), 400, 'parameter_invalid', 'claim_ids[0]');
      const none = await expectRefused(() => api('POST', APPROVE(id), {}), 409, 'no_shareable_claims');
      expect(none.message).toContain('prove a wallet');
      expect(await shared()).toEqual([]);
      expect((await api('GET', `/v1/verify/access_requests/${id}`)).json().status).toBe('pending');
    });
  });

  describe('decline', () => {
    it('declines as the holder would: access_request.declined, nothing shared', async () => {
      const id = await newRequest();
      const res = await api('POST', DECLINE(id));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ id, status: 'declined', claim_ids: [] });
      expect(await eventsOf('access_request.declined')).toEqual([res.json()]);
      expect(await shared()).toEqual([]);
    });

    it('answers 409 access_request_not_pending to a request already answered or canceled; nothing changes', async () => {
      const granted = await newRequest();
      expect((await api('POST', APPROVE(granted), { claim_ids: [claims[0]] })).statusCode).toBe(200);
      await expectRefused(() => api('POST', DECLINE(granted)), 409, 'access_request_not_pending');
      const again = await expectRefused(() => api('POST', APPROVE(granted), { claim_ids: [claims[1]] }), 409, 'access_request_not_pending');
      expect(again.message).toBe('The access request is granted; only a pending request can be approved or declined.');
      const declined = await newRequest();
      expect((await api('POST', DECLINE(declined))).statusCode).toBe(200);
      await expectRefused(() => api('POST', APPROVE(declined), {}), 409, 'access_request_not_pending');
      const canceled = await newRequest();
      expect((await api('POST', `/v1/verify/access_requests/${canceled}/cancel`)).statusCode).toBe(200);
      await expectRefused(() => api('POST', APPROVE(canceled), {}), 409, 'access_request_not_pending');
      await expectRefused(() => api('POST', DECLINE(canceled)), 409, 'access_request_not_pending');
      expect(await shared()).toEqual([claims[0]]);
    });
  });

  describe('revoke_access', () => {
    it('ends this client’s access to one claim as the holder would in the portal: claim.access_revoked, the claim unreadable at once, the others untouched', async () => {
      const id = await newRequest();
      expect((await api('POST', APPROVE(id), { claim_ids: [claims[0], claims[1]] })).statusCode).toBe(200);
      const res = await api('POST', REVOKE_ACCESS(claims[0] as string));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        id: claims[0],
        object: 'claim',
        status: 'active',
        access: { permissions: ['balances'], revoked_at: expect.any(Number) },
      });
      expect(await eventsOf('claim.access_revoked')).toEqual([res.json()]);
      expect((await api('GET', `/v1/verify/claims/${claims[0]}`)).statusCode).toBe(404);
      expect(await shared()).toEqual([claims[1]]);
      // No longer shared with this client: nothing to revoke.
      await expectRefused(() => api('POST', REVOKE_ACCESS(claims[0] as string)), 404, 'resource_missing', 'id');
    });

    it('answers 404 to a claim not shared with this client, even one its holder proved for it', async () => {
      await expectRefused(() => api('POST', REVOKE_ACCESS(claims[2] as string)), 404, 'resource_missing', 'id');
    });
  });

  describe('other clients and live mode', () => {
    it('answers 404 to another client’s request and claim; nothing changes', async () => {
      const other = await t.newClient('Other Co');
      const theirHolder = await newHolder('ada@example.com', other.testKey);
      const theirClaim = await prove(theirHolder, other);
      const theirs = await newRequest(theirHolder, other.testKey);
      expect((await api('POST', APPROVE(theirs), {}, other.testKey)).statusCode).toBe(200);
      const pending = await newRequest(theirHolder, other.testKey);
      await expectRefused(() => api('POST', APPROVE(pending), {}), 404, 'resource_missing', 'id');
      await expectRefused(() => api('POST', DECLINE(pending)), 404, 'resource_missing', 'id');
      await expectRefused(() => api('POST', REVOKE_ACCESS(theirClaim)), 404, 'resource_missing', 'id');
      expect(await shared(other.testKey)).toEqual([theirClaim]);
    });

    it('answers 403 test_mode_only to a live key on its own live request and claim; nothing changes', async () => {
      const liveHolder = await newHolder('ada@example.com', acme.liveKey);
      const request = await newRequest(liveHolder, acme.liveKey);
      const liveClaim = await proveWith(t.ctx, { clientId: acme.clientId, mode: 'live' }, liveHolder, makeWallet('p2wpkh', 'mainnet'), {
        kind: 'connect_session',
        session_id: 'sess_live',
        permissions: ['balances'],
      });
      await expectRefused(() => api('POST', APPROVE(request), {}, acme.liveKey), 403, 'test_mode_only');
      await expectRefused(() => api('POST', DECLINE(request), undefined, acme.liveKey), 403, 'test_mode_only');
      const refused = await expectRefused(() => api('POST', REVOKE_ACCESS(liveClaim.id), undefined, acme.liveKey), 403, 'test_mode_only');
      expect(refused.message).toContain('sk_test_');
      expect(await shared(acme.liveKey)).toEqual([liveClaim.id]);
      // And the test key does not reach live objects at all.
      await expectRefused(() => api('POST', APPROVE(request), {}), 404, 'resource_missing', 'id');
    });
  });
});
