import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { proveWith, sandboxSigner, testnetWallet } from '../../../test/support/verify.js';
import type { Scope } from '../../platform/scope.js';
import { rotateSigningKey } from './signing-key.service.js';

describe.each(engines())('claims API on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  let scope: Scope;
  let holderId: string;
  const get = (url: string, key = client.testKey) => t.call(key, { method: 'GET', url });
  const check = (receipt: unknown) => t.call(undefined, { method: 'POST', url: '/v1/verify/claims/verify', json: { receipt } });

  beforeAll(async () => {
    t = await startTestApp(engine);
    client = await t.newClient('Acme Lending');
    scope = { clientId: client.clientId, mode: 'test' };
    holderId = (
      await t.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'ada@example.com' } })
    ).json().id;
  });
  afterAll(() => t.close());

  const viaSession = (permissions: string[]) => ({ kind: 'connect_session' as const, session_id: 'sess_example', permissions });

  it('shows a claim only once it is shared: a claim proven outside a session is invisible to the client', async () => {
    const claim = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'));
    expect((await get(`/v1/verify/claims/${claim.id}`)).statusCode).toBe(404);
    expect((await get('/v1/verify/claims')).json().data.map((c: { id: string }) => c.id)).not.toContain(claim.id);
  });

  it('shares a claim proven in a connect session with that session’s client, with a balance when it asked for balances', async () => {
    const claim = await proveWith(t.ctx, scope, holderId, sandboxSigner(0), viaSession(['balances', 'transactions']));
    const res = await get(`/v1/verify/claims/${claim.id}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      id: claim.id,
      object: 'claim',
      account_holder_id: holderId,
      subject: { type: 'address', address: sandboxSigner(0).address },
      status: 'active',
      receipt: claim.receipt,
      livemode: false,
    });
    // Receive address 0 of the sandbox wallet: 0.5 BTC in, 0.1 out, 0.333 in again (docs/sandbox.md).
    expect(body.balance).toMatchObject({ confirmed: expect.stringMatching(/^\d+$/), unconfirmed: '0', as_of_height: expect.any(Number) });
    expect(BigInt(body.balance.confirmed)).toBeGreaterThan(0n);
    const grant = await t.ctx.db.selectFrom('verify_claim_grants').selectAll().where('claim_id', '=', claim.id).executeTakeFirstOrThrow();
    expect(JSON.parse(grant.permissions)).toEqual(['balances', 'statements']);
    const listed = (await get(`/v1/verify/claims?account_holder_id=${holderId}`)).json();
    expect(listed).toMatchObject({ object: 'list', url: '/v1/verify/claims' });
    expect(listed.data[0].id).toBe(claim.id);
  });

  it('leaves the balance out when the session did not ask for balances', async () => {
    const claim = await proveWith(t.ctx, scope, holderId, testnetWallet('p2tr'), viaSession(['transactions']));
    const body = (await get(`/v1/verify/claims/${claim.id}`)).json();
    expect(body.balance).toBeUndefined();
  });

  it('records claim.created for the client it was shared with', async () => {
    const claim = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'), viaSession(['balances']));
    const events = (await get('/v1/events?type=claim.created')).json().data as { data: { object: { id: string; receipt: string } } }[];
    expect(events.map((e) => e.data.object.id)).toContain(claim.id);
  });

  it('hides a shared claim from other clients and from the other mode', async () => {
    const claim = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'), viaSession(['balances']));
    const other = await t.newClient('Other');
    expect((await get(`/v1/verify/claims/${claim.id}`, other.testKey)).json().error).toMatchObject({
      code: 'resource_missing',
      param: 'id',
    });
    expect((await get(`/v1/verify/claims/${claim.id}`, client.liveKey)).statusCode).toBe(404);
    expect((await get('/v1/verify/claims', other.testKey)).json().data).toEqual([]);
  });

  it('refuses an account_holder_id filter that names no account holder of this client and mode', async () => {
    const res = await get('/v1/verify/claims?account_holder_id=ah_nobody');
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'account_holder_id' });
  });

  describe('checking receipts without an API key', () => {
    it('publishes the signing keys as a JWKS', async () => {
      await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'));
      const res = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      const { keys } = res.json();
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: expect.stringMatching(/^rk_/) });
        expect(key.d).toBeUndefined();
      }
    });

    it('says what a receipt states and the claim’s current status', async () => {
      const claim = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'));
      const res = await check(claim.receipt);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        valid: true,
        issuer: t.ctx.config.publicBaseUrl,
        status: 'active',
        claim: { id: claim.id, account_holder_id: holderId },
      });
      expect(res.json().summary).toBe(
        `Valid: ${t.ctx.config.publicBaseUrl} issued this receipt, its Bitcoin proof holds, and the claim is active.`,
      );
    });

    it('says plainly that a revoked claim is revoked, while its signature stays genuine', async () => {
      const claim = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'));
      await t.ctx.db
        .updateTable('verify_claims')
        .set({ status: 'revoked', revoked_at: claim.created_at })
        .where('id', '=', claim.id)
        .execute();
      expect((await check(claim.receipt)).json()).toMatchObject({
        valid: true,
        status: 'revoked',
        summary:
          'Revoked: the receipt is genuine and its Bitcoin proof holds, but the account holder has since revoked the claim, so it no longer stands.',
        claim: { id: claim.id },
      });
    });

    it('answers valid: false, never an error, for altered, forged and malformed receipts', async () => {
      const claim = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'));
      const [header, payload, signature] = claim.receipt.split('.') as [string, string, string];
      const statement = JSON.parse(Buffer.from(payload, 'base64url').toString());
      statement.claim.account_holder_id = 'ah_someoneelse';
      const altered = `${header}.${Buffer.from(JSON.stringify(statement)).toString('base64url')}.${signature}`;
      const signatureBytes = Buffer.from(signature, 'base64url');
      signatureBytes[0] = (signatureBytes[0] as number) ^ 0x01;
      const forged = `${header}.${payload}.${signatureBytes.toString('base64url')}`;
      for (const receipt of [altered, forged, 'hello', 'a.b.c', `${claim.receipt}x`]) {
        const res = await check(receipt);
        expect(res.statusCode, receipt.slice(0, 30)).toBe(200);
        expect(res.json(), receipt.slice(0, 30)).toMatchObject({ valid: false, reason: expect.any(String) });
        expect(res.json().summary, receipt.slice(0, 30)).toBe(`Not valid: ${res.json().reason}.`);
      }
      expect((await check(123)).statusCode).toBe(400);
    });

    it('limits each IP address to 60 checks a minute, with the API’s 429 and headers', async () => {
      const from = (remoteAddress: string) =>
        t.app.inject({
          method: 'POST',
          url: '/v1/verify/claims/verify',
          remoteAddress,
          headers: { 'content-type': 'application/json' },
          payload: '{"receipt":"x"}',
        });
      const answers = [];
      for (let i = 0; i < 61; i++) answers.push(await from('198.51.100.7'));
      expect(answers.slice(0, 60).every((res) => res.statusCode === 200)).toBe(true);
      const refused = answers[60]!;
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error.code).toBe('rate_limit_exceeded');
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.headers['ratelimit-limit']).toBe('60');
      expect((await from('198.51.100.8')).statusCode).toBe(200);
    });

    it('keeps old receipts valid after a key rotation and signs new ones with the new key', async () => {
      const before = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'));
      const rotated = await rotateSigningKey(t.ctx);
      const after = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'));
      expect(JSON.parse(Buffer.from(after.receipt.split('.')[0] as string, 'base64url').toString()).kid).toBe(rotated.kid);
      expect(rotated.retired).toContain(before.signing_key_id);
      for (const receipt of [before.receipt, after.receipt]) expect((await check(receipt)).json().valid).toBe(true);
    });
  });
});
