import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOwnproof, runOwnproofHere } from '../../../test/support/cli-process.js';
import { engines } from '../../../test/support/database.js';
import { pdfAttachments, pdfInfo, pdfPages } from '../../../test/support/pdf.js';
import { makeStatementWorld, octoberHistory, at, type StatementWorld } from '../../../test/support/statements.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';
import { createChainSources } from '../../bitcoin/chain-for-mode.js';
import { buildSandboxChain } from '../../bitcoin/sandbox/sandbox-chain.js';
import { publicJwks } from '../claims/signing-key.service.js';
import { sealStatementPdf } from './statement-check.js';

const PUBLIC_BASE_URL = 'https://proofs.example.com';
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
/** The file signature is the file's last line. */
const withoutSignature = (pdf: Buffer) => pdf.subarray(0, pdf.lastIndexOf('\n%ownproof-signature '));

/**
 * Checking statement documents: the public API (a PDF or a document hash) and `ownproof
 * verify-statement` offline. A statement PDF is valid only byte for byte as issued.
 */
describe.each(engines())('checking statement documents on %s', (engine) => {
  const sim = buildSandboxChain();
  let t: TestApp;
  let world: StatementWorld;
  let monthly: Buffer;
  let custom: Buffer;
  let statementId: string;
  let documentHash: string;
  let dir: string;

  const check = (payload: Buffer | string, contentType?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/verify/statements/verify',
      payload,
      headers: contentType ? { 'content-type': contentType } : {},
    });
  const checkPdf = async (pdf: Buffer) => {
    const res = await check(pdf, 'application/pdf');
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    return res.json();
  };
  const download = async (id: string, format: string) => {
    const res = await t.call(world.client.testKey, { method: 'GET', url: `/v1/verify/statements/${id}/document/pdf?format=${format}` });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    return res.rawPayload;
  };

  beforeAll(async () => {
    t = await startTestApp(engine, {
      seams: { chains: createChainSources({ esploraUrl: undefined, test: sim }) },
      config: { PUBLIC_BASE_URL },
    });
    world = await makeStatementWorld(t, { holder: { email: 'ada@example.com', name: 'Ada Lovelace', external_ref: 'CUST-0042' } });
    const claim = await world.proveAddress();
    await octoberHistory(sim, claim);
    statementId = (
      await world.completedStatement({
        claim_ids: [claim.id],
        period: { open: at('2026-10-01T00:00:00Z'), close: at('2026-11-20T00:00:00Z') },
        timezone: 'Europe/London',
        valuation_currency: 'EUR',
      })
    ).id;
    [monthly, custom] = [await download(statementId, 'monthly'), await download(statementId, 'custom')];
    documentHash = /Document hash \(SHA-256\) ([0-9a-f]{64})/.exec((await pdfPages(monthly))[0] ?? '')?.[1] ?? '';
    dir = mkdtempSync(path.join(tmpdir(), 'ownproof-statement-check-'));
    writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify(await publicJwks(t.ctx)));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it('says a downloaded PDF is an unaltered statement issued here, and what it states', async () => {
    const verdict = await checkPdf(monthly);
    expect(verdict).toMatchObject({
      object: 'statement_check',
      valid: true,
      reason: null,
      issuer: PUBLIC_BASE_URL,
      signing_key_id: expect.stringMatching(/^rk_/),
      document_hash: documentHash,
      file_sha256: sha256(monthly),
    });
    const statement = (await t.call(world.client.testKey, { method: 'GET', url: `/v1/verify/statements/${statementId}` })).json();
    expect(verdict.document.statement).toMatchObject({
      id: statementId,
      requested_by: 'Acme Lending',
      livemode: false,
      account_holder: { name: 'Ada Lovelace', external_ref: 'CUST-0042' },
    });
    expect(verdict.document.document.format).toBe('monthly');
    expect(verdict.document.data.summary).toEqual(statement.summary);
    // The valuation is part of what the signed document states: its source, every price, the figures the API shows.
    expect(verdict.document.data.valuation).toMatchObject({
      status: 'valued',
      currency: 'EUR',
      source: { market: 'BTC/EUR' },
      prices: expect.any(Array),
    });
    expect({
      status: 'valued',
      currency: 'EUR',
      source: verdict.document.data.valuation.source,
      ...verdict.document.data.valuation.summary,
    }).toEqual(statement.valuation);
    expect((await checkPdf(custom)).document.document.format).toBe('custom');
    // The file signature after %%EOF leaves the PDF readable by ordinary tools.
    expect((await pdfInfo(monthly)).Pages).toMatch(/^\d+$/);
    expect([...(await pdfAttachments(monthly)).keys()]).toEqual([`ownproof-statement-${statementId}.jws`]);
  });

  it('checks a document hash (the printed one, which the QR code holds) against the documents issued here', async () => {
    const res = await check(JSON.stringify({ document_hash: documentHash }), 'application/json');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      valid: true,
      document_hash: documentHash,
      file_sha256: sha256(monthly),
      document: { statement: { id: statementId } },
    });
    const unknown = await check(JSON.stringify({ document_hash: 'ab'.repeat(32) }), 'application/json');
    expect(unknown.json()).toMatchObject({ valid: false, reason: 'no statement document with this hash was issued here', document: null });
  });

  it('answers a changed, stripped, re-saved or re-signed file with why it is not valid', async () => {
    const reasons = async (pdf: Buffer) => (await checkPdf(pdf)).reason as string;
    // One byte changed anywhere — in the pages, the attached data or the signature line — fails.
    const positions = [
      9,
      Math.floor(monthly.length / 3),
      Math.floor(monthly.length / 2),
      withoutSignature(monthly).length - 3,
      monthly.length - 40,
    ];
    for (const at of positions) {
      const changed = Buffer.from(monthly);
      changed[at] = (changed[at] as number) ^ 0x01;
      const verdict = await checkPdf(changed);
      expect(verdict, `byte ${at}`).toMatchObject({ valid: false, document: null, signing_key_id: null });
    }
    expect(await reasons(withoutSignature(monthly))).toMatch(/^the file carries no ownproof signature/);
    const resaved = Buffer.from(await (await PDFDocument.load(monthly)).save());
    expect(await reasons(resaved)).toMatch(/^the file carries no ownproof signature/);
    // Another statement document's signature line on this file.
    const swapped = Buffer.concat([withoutSignature(monthly), custom.subarray(withoutSignature(custom).length)]);
    expect(await reasons(swapped)).toBe('the file was changed after it was issued: its content no longer matches its signature');
    // Re-signed by someone else's key: the content is what was issued, the signature is not ours.
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const { pdf: forged } = await sealStatementPdf(
      { kid: 'rk_forged', privateJwk: await exportJWK(privateKey) },
      withoutSignature(monthly),
      {
        statement_id: statementId,
        format: 'monthly',
        document_hash: documentHash,
      },
    );
    expect(await reasons(forged)).toBe('the file signature was made with a key the issuer does not publish (unknown kid)');
    expect(await reasons(Buffer.from('%PDF-1.3\nnot really\n'))).toMatch(/^the file carries no ownproof signature/);
    expect(await reasons(Buffer.from('hello'))).toBe('not a PDF');
  });

  it('refuses requests that send neither a PDF nor a document hash', async () => {
    const cases: [Buffer | string, string | undefined, number, string, string?][] = [
      ['', undefined, 400, 'parameter_missing', 'document_hash'],
      ['{}', 'application/json', 400, 'parameter_missing', 'document_hash'],
      ['', 'application/json', 400, 'body_invalid'],
      [JSON.stringify({ document_hash: 'ABC' }), 'application/json', 400, 'parameter_invalid', 'document_hash'],
      [JSON.stringify({ document_hash: documentHash, extra: 1 }), 'application/json', 400, 'parameter_unknown', 'extra'],
      ['hello', 'text/plain', 415, 'unsupported_media_type'],
      [Buffer.alloc(32 * 1024 * 1024 + 1), 'application/pdf', 413, 'body_too_large'],
    ];
    for (const [payload, contentType, status, code, param] of cases) {
      const res = await check(payload, contentType);
      expect(res.statusCode, `${String(contentType)} ${String(payload).slice(0, 40)}`).toBe(status);
      expect(res.json().error, `${String(contentType)} ${String(payload).slice(0, 40)}`).toMatchObject({
        code,
        ...(param ? { param } : {}),
      });
    }
    expect((await check(Buffer.alloc(32 * 1024 * 1024 + 1), 'application/pdf')).json().error.message).toBe(
      'The request body is larger than 32 MiB.',
    );
  });

  /** A multipart form as a browser sends it, with the file under `statement`. */
  async function upload(file: Buffer | undefined) {
    const form = new FormData();
    form.append('statement', new Blob(file ? [file] : []), file ? 'statement.pdf' : '');
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    return t.app.inject({
      method: 'POST',
      url: '/verify/statement',
      payload: Buffer.from(await request.arrayBuffer()),
      headers: { 'content-type': request.headers.get('content-type') ?? '' },
    });
  }

  it('checks on the /verify page: an uploaded PDF, the hash the QR code opens, and says why not', async () => {
    const valid = await upload(monthly);
    expect(valid.statusCode).toBe(200);
    expect(valid.body).toContain('<h1>This statement is valid</h1>');
    expect(valid.body).toContain(`It is unaltered, exactly as ${PUBLIC_BASE_URL} issued it`);
    expect(valid.body).toContain('<dt>Account holder</dt><dd>Ada Lovelace · ada@example.com (reference CUST-0042)');
    expect(valid.body).toContain(`<span class="code">${documentHash}</span>`);
    expect(valid.body).toMatch(/<dt>Valuation in EUR<\/dt><dd>prices from Sandbox price series \(sandbox\), market BTC\/EUR/);
    expect(valid.body).toMatch(/<dt>Closing value<\/dt><dd>[\d,]+\.\d{2} EUR/);
    const byHash = await t.app.inject({ method: 'GET', url: `/verify?document_hash=${documentHash}` });
    expect(byHash.body).toContain('<h1>This statement is valid</h1>');
    expect(byHash.body).toContain(`<dt>Statement</dt><dd>${statementId}, monthly layout`);

    const changed = Buffer.from(monthly);
    changed[monthly.length >> 1] = (changed[monthly.length >> 1] as number) ^ 0x01;
    const altered = await upload(changed);
    expect(altered.body).toContain('<h1>This statement is not valid</h1>');
    expect(altered.body).toContain('the file was changed after it was issued');
    const unknown = await t.app.inject({ method: 'GET', url: `/verify?document_hash=${'0'.repeat(64)}` });
    expect(unknown.body).toContain('no statement document with this hash was issued here');

    const badHash = await t.app.inject({ method: 'GET', url: '/verify?document_hash=xyz' });
    expect(badHash.statusCode).toBe(422);
    expect(badHash.body).toContain('A document hash is 64 characters');
    expect(badHash.body).toContain('value="xyz"');
    const noFile = await upload(undefined);
    expect(noFile.statusCode).toBe(422);
    expect(noFile.body).toContain('Choose the statement PDF.');
    const tooLarge = await upload(Buffer.alloc(32 * 1024 * 1024 + 1));
    expect(tooLarge.statusCode).toBe(422);
    expect(tooLarge.body).toContain('That file is larger than 32 MB');
  });

  // The command reads no database: one engine's statement is enough (two processes, ~10 s a run).
  it.runIf(engine === engines()[0])(
    'checks with `ownproof verify-statement`: a fresh process needs no database or network and exits 1 when altered; exit 2 when unreadable',
    async () => {
      const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
      const jwks = path.join(dir, 'jwks.json');
      writeFileSync(path.join(dir, 'statement.pdf'), monthly);
      // The binary for a valid and a changed file (its exit codes); the unreadable cases in this process.
      const valid = await runOwnproof(['verify-statement', path.join(dir, 'statement.pdf'), '--jwks', jwks], env);
      expect(valid.code, valid.stderr).toBe(0);
      expect(valid.stdout).toContain(`VALID: an unaltered statement issued by ${PUBLIC_BASE_URL}`);
      // Every time it states carries its zone: the issue, the period's bounds.
      expect(valid.stdout).toMatch(
        /Statement: stmt_\w+, monthly layout, issued \d{1,2} \w+ \d{4}, \d{2}:\d{2} UTC[+-]\d{2}:\d{2} \(test mode/,
      );
      expect(valid.stdout).toContain(
        'Period: 1 October 2026, 01:00 UTC+01:00 to 20 November 2026, 00:00 UTC+00:00 (the end not included). Times are in Europe/London',
      );
      expect(valid.stdout).toMatch(/Chain tip: block \d+, hash [0-9a-f]{64}; transactions with at least 6 confirmations there are counted/);
      expect(valid.stdout).toMatch(
        /Valuation in EUR: prices from Sandbox price series \(sandbox\), market BTC\/EUR, 1h candles; \d+ prices, in the signed data/,
      );
      expect(valid.stdout).toMatch(/Closing value: [\d,]+\.\d{2} EUR \(at [\d,.]+ EUR\/BTC\)/);
      for (const line of [
        `Statement: ${statementId}, monthly layout`,
        'Requested by: Acme Lending',
        'Account holder: Ada Lovelace · ada@example.com (reference CUST-0042)',
        'Period: 1 October 2026',
        `Document hash: ${documentHash}`,
      ]) {
        expect(valid.stdout).toContain(line);
      }
      const changed = Buffer.from(monthly);
      changed[monthly.length >> 1] = (changed[monthly.length >> 1] as number) ^ 0x01;
      writeFileSync(path.join(dir, 'changed.pdf'), changed);
      const invalid = await runOwnproof(['verify-statement', path.join(dir, 'changed.pdf'), '--jwks', jwks, '--json'], env);
      expect(invalid.code).toBe(1);
      expect(JSON.parse(invalid.stdout)).toMatchObject({
        valid: false,
        reason: 'the file was changed after it was issued: its content no longer matches its signature',
      });
      // A character of the file signature's own signature changed: said once, not as "the file signature's signature".
      const reSigned = Buffer.from(monthly);
      const inSignature = monthly.length - 10;
      reSigned[inSignature] = reSigned[inSignature] === 0x41 ? 0x42 : 0x41;
      writeFileSync(path.join(dir, 'signature-changed.pdf'), reSigned);
      const broken = await runOwnproofHere(['verify-statement', path.join(dir, 'signature-changed.pdf'), '--jwks', jwks], env);
      expect(broken.code).toBe(1);
      expect(broken.stdout).toBe(
        'INVALID: the file signature does not match the content it signs: it was altered or not issued with this key\n',
      );
      const missing = await runOwnproofHere(['verify-statement', path.join(dir, 'missing.pdf'), '--jwks', jwks], env);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('cannot read');
      const noKeys = await runOwnproofHere(
        ['verify-statement', path.join(dir, 'statement.pdf'), '--jwks', path.join(dir, 'missing.json')],
        env,
      );
      expect(noKeys.code).toBe(2);
    },
  );
});
