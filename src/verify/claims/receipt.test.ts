import { signMessage } from '../../bitcoin/message/sign-message.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JSONWebKeySet } from 'jose';
import { packagesAmong, runOwnproof, runOwnproofHere, runOwnproofTracingModules } from '../../../test/support/cli-process.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';
import { proveWith, sandboxSigner, startChallenge, testnetWallet } from '../../../test/support/verify.js';
import type { Scope } from '../../platform/scope.js';
import { compactVerify, exportJWK, generateKeyPair } from 'jose';
import type { ClaimStatement } from './claim.schemas.js';
import { submitSignature } from './proof.service.js';
import { checkProof, verifyReceipt } from '@ownproof/verify';
import { signJws, signJwsBytes } from './receipt.js';
import { publicJwks } from './signing-key.service.js';
import { sandboxWallet } from '../../bitcoin/sandbox/sandbox-wallet.js';

/**
 * Receipts checked with nothing but the published keys: in-process, and through `ownproof
 * verify-claim` in a fresh process with no database and no network (SQLite only issues them; the
 * check itself touches no storage).
 */
describe('claim receipts', () => {
  let t: TestApp;
  let scope: Scope;
  let holderId: string;
  let jwks: JSONWebKeySet;
  let addressReceipt: string;
  let walletReceipt: string;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const client = await t.newClient('Acme Lending');
    scope = { clientId: client.clientId, mode: 'test' };
    holderId = (
      await t.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'ada@example.com' } })
    ).json().id;
    addressReceipt = (await proveWith(t.ctx, scope, holderId, testnetWallet('p2tr'))).receipt;
    const challenge = await startChallenge(t.ctx, scope, holderId, sandboxWallet().descriptor);
    const proven = await submitSignature(t.ctx, challenge, signMessage(sandboxSigner(0), challenge.message));
    if (!proven.ok) throw new Error('wallet proof failed');
    walletReceipt = proven.claim.receipt;
    jwks = await publicJwks(t.ctx);
    dir = mkdtempSync(path.join(tmpdir(), 'ownproof-receipt-'));
    writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify(jwks));
    writeFileSync(path.join(dir, 'address.jws'), `${addressReceipt}\n`);
  });
  afterAll(() => t.close());

  it('fails after any one byte of the receipt is changed', async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const bytesOf = (jws: string) =>
      jws
        .split('.')
        .map((part) => Buffer.from(part, 'base64url').toString('hex'))
        .join('.');
    let changed = 0;
    for (let i = 0; i < addressReceipt.length; i++) {
      const original = addressReceipt[i] as string;
      if (original === '.') continue;
      const altered =
        addressReceipt.slice(0, i) + alphabet[(alphabet.indexOf(original) + 1) % alphabet.length] + addressReceipt.slice(i + 1);
      // The last character of a base64url part may carry unused bits: a change there can decode to
      // the same bytes, which is the same receipt.
      if (bytesOf(altered) === bytesOf(addressReceipt)) continue;
      changed++;
      expect((await verifyReceipt(altered, jwks)).valid, `changed character ${i}`).toBe(false);
    }
    expect(changed).toBeGreaterThan(addressReceipt.length - 10);
  });

  it('re-derives a wallet claim’s signing address from the descriptor and the signed path', async () => {
    const verdict = await verifyReceipt(walletReceipt, jwks);
    if (!verdict.valid) throw new Error(verdict.reason);
    const claim = verdict.claim;
    expect(checkProof({ ...claim, proof: { ...claim.proof, signed_path: '0/1' } }, verdict.issuer)).toBe(
      'the wallet does not derive the signing address at 0/1',
    );
    expect(checkProof({ ...claim, proof: { ...claim.proof, signed_path: '0h/0' } }, verdict.issuer)).toMatch(/must name the signed path/);
  });

  it('refuses a statement whose message is not this issuer’s challenge about this subject', async () => {
    const verdict = await verifyReceipt(addressReceipt, jwks);
    if (!verdict.valid) throw new Error(verdict.reason);
    const claim: ClaimStatement = verdict.claim;
    expect(checkProof(claim, 'https://another.example')).toBe('the signed message names another service than the issuer');
    const otherAddress = testnetWallet('p2tr').address;
    expect(checkProof({ ...claim, subject: { type: 'address', address: otherAddress } }, verdict.issuer)).toBe(
      'the signed message names another address',
    );
  });

  it('fails for a key set that does not hold the signing key', async () => {
    expect(await verifyReceipt(addressReceipt, { keys: [] })).toMatchObject({
      valid: false,
      reason: expect.stringContaining('unknown kid'),
    });
  });

  it('says honestly that `ownproof verify-claim` cannot know offline whether the claim was revoked', async () => {
    const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    const jwksFile = path.join(dir, 'jwks.json');
    const text = await runOwnproofHere(['verify-claim', path.join(dir, 'address.jws'), '--jwks', jwksFile], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      '  not checked: whether the claim was revoked since it was issued — only the issuer knows; check the receipt at http://127.0.0.1:8080/verify\n',
    );
    const json = await runOwnproofHere(['verify-claim', path.join(dir, 'address.jws'), '--jwks', jwksFile, '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: true, status: null });
  });

  it('`ownproof verify-claim` loads what checking a receipt needs, none of the service: no HTTP server, database driver, logger or metrics', async () => {
    const run = await runOwnproofTracingModules(['verify-claim', path.join(dir, 'address.jws'), '--jwks', path.join(dir, 'jwks.json')]);
    expect(run.stdout).toMatch(/^VALID: /);
    expect(run.code).toBe(0);
    const service = ['fastify', 'kysely', 'pino', 'better-sqlite3', 'pg', 'ccxt', 'pdfkit', 'pdf-lib', 'nodemailer', 'prom-client', 'tsx'];
    expect(packagesAmong(run.modules).filter((name) => service.includes(name))).toEqual([]);
  });

  it('verifies with `ownproof verify-claim`: a fresh process needs no database or network and exits 1 on a changed byte; batches; exit 2 without keys or file', async () => {
    // An unreachable database URL: the command must not need one.
    const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    // The binary for a valid and a changed receipt (its exit codes); the other cases in this process.
    const valid = await runOwnproof(['verify-claim', path.join(dir, 'address.jws'), '--jwks', path.join(dir, 'jwks.json')], env);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stdout).toMatch(/^VALID: http:\/\/127\.0\.0\.1:8080 states that account holder ah_\w+ controls the testnet address tb1p/);
    const tampered = `${addressReceipt.slice(0, 40)}${addressReceipt[40] === 'A' ? 'B' : 'A'}${addressReceipt.slice(41)}`;
    const invalid = await runOwnproof(['verify-claim', '-', '--jwks', path.join(dir, 'jwks.json'), '--json'], env, tampered);
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout)).toMatchObject({ valid: false, reason: expect.any(String) });
    const batch = await runOwnproofHere(
      ['verify-claim', '--batch', '--jwks', path.join(dir, 'jwks.json')],
      env,
      `${addressReceipt}\n${walletReceipt}\n${tampered}\n`,
    );
    expect(batch.code).toBe(0);
    expect(
      batch.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).valid),
    ).toEqual([true, true, false]);
    const noKeys = await runOwnproofHere(['verify-claim', path.join(dir, 'address.jws'), '--jwks', path.join(dir, 'missing.json')], env);
    expect(noKeys.code).toBe(2);
    const noFile = await runOwnproofHere(
      ['verify-claim', '--batch', path.join(dir, 'missing.txt'), '--jwks', path.join(dir, 'jwks.json')],
      env,
    );
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain('cannot read');
  });
});

describe('signing', () => {
  it('makes a statement document’s JWS as bytes that are jose’s compact JWS, byte for byte, for payloads of every length modulo 3 and across the encoding slices', async () => {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const key = { kid: 'rk_test', privateJwk: await exportJWK(privateKey) };
    // 0–3 bytes, then sizes around the 49,152-byte slices (and a statement-sized payload).
    for (const size of [0, 1, 2, 3, 49_151, 49_152, 49_153, 98_305, 5_000_000]) {
      const payload = randomBytes(size);
      const bytes = signJwsBytes(key, 'test+jwt', payload);
      expect(bytes.toString('latin1'), `payload of ${size} bytes`).toBe(await signJws(key, 'test+jwt', payload));
      const verified = await compactVerify(bytes.toString('latin1'), publicKey);
      expect(Buffer.from(verified.payload).equals(payload)).toBe(true);
      expect(verified.protectedHeader).toEqual({ alg: 'EdDSA', kid: key.kid, typ: 'test+jwt' });
    }
  });
});
