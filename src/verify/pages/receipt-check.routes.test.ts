import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';
import { proveWith, testnetWallet } from '../../../test/support/verify.js';
import type { Scope } from '../../platform/scope.js';

/** The public receipt check at /verify: paste a receipt, see what it states or why it fails. */
describe.each(engines())('the receipt check page on %s', (engine) => {
  let t: TestApp;
  let scope: Scope;
  let holderId: string;
  const post = (receipt: string) =>
    t.app.inject({
      method: 'POST',
      url: '/verify',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ receipt }).toString(),
    });

  beforeAll(async () => {
    t = await startTestApp(engine);
    const client = await t.newClient('Acme Lending');
    scope = { clientId: client.clientId, mode: 'test' };
    holderId = (
      await t.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'ada@example.com' } })
    ).json().id;
  });
  afterAll(() => t.close());

  it('shows a form to paste a receipt into, with the page headers and no script', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/verify' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'self'/);
    expect(res.body).toContain('<h1>Check a document</h1>');
    expect(res.body).toContain('<form method="post" action="/verify" novalidate>');
    expect(res.body).not.toContain('<script');
  });

  it('says what a valid receipt states: who controls which address, how and when it was proven', async () => {
    const wallet = testnetWallet('p2tr');
    const claim = await proveWith(t.ctx, scope, holderId, wallet);
    const res = await post(claim.receipt);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<h1>This receipt is valid</h1>');
    expect(res.body).toContain(`Account holder <span class="code">${holderId}</span> controls the testnet address ${wallet.address}.`);
    expect(res.body).toContain('a BIP-322 signature (simple)');
    expect(res.body).toContain(`<span class="code">${claim.id}</span>, active (test mode)`);
  });

  it('headlines a revoked claim as revoked, in a warning, never as a valid receipt', async () => {
    const claim = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'));
    await t.ctx.db
      .updateTable('verify_claims')
      .set({ status: 'revoked', revoked_at: claim.created_at })
      .where('id', '=', claim.id)
      .execute();
    const res = await post(claim.receipt);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<h1 class="headline-warning">This claim has been revoked</h1>');
    expect(res.body).not.toContain('This receipt is valid');
    expect(res.body).toContain(
      '<div class="warning" role="status"><p>Revoked: the receipt is genuine and its Bitcoin proof holds, but the account holder has since revoked the claim, so it no longer stands.</p></div>',
    );
    expect(res.body).toContain(`<span class="code">${claim.id}</span>, revoked (test mode)`);
  });

  it('says why an altered receipt fails, and keeps it in the box', async () => {
    const claim = await proveWith(t.ctx, scope, holderId, testnetWallet('p2wpkh'));
    const [header, payload, signature] = claim.receipt.split('.') as [string, string, string];
    const altered = `${header}.${payload.slice(0, 20)}${payload[20] === 'A' ? 'B' : 'A'}${payload.slice(21)}.${signature}`;
    const res = await post(altered);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<h1>This receipt is not valid</h1>');
    expect(res.body).toContain('role="alert"');
    expect(res.body).toContain(altered);
  });

  it('asks for a receipt when none was pasted, or one that is far too long', async () => {
    const empty = await post('   ');
    expect(empty.statusCode).toBe(422);
    expect(empty.body).toContain('Paste a claim receipt.');
    const long = await post('e'.repeat(60_001));
    expect(long.statusCode).toBe(422);
    expect(long.body).toContain('this is not one');
  });
});
