import { createHash } from 'node:crypto';
import { compactVerify, createLocalJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDueJobs } from '../../../test/support/connect.js';
import { engines } from '../../../test/support/database.js';
import { describeChanges, snapshotDatabase } from '../../../test/support/db-snapshot.js';
import { pdfAttachments, pdfFonts, pdfInfo, pdfPages, pdfQrCodes } from '../../../test/support/pdf.js';
import { at, makeStatementWorld, octoberHistory, type StatementWorld } from '../../../test/support/statements.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';
import { createChainSources } from '../../bitcoin/chain-for-mode.js';
import { buildSandboxChain } from '../../bitcoin/sandbox/sandbox-chain.js';
import { revokeAccess } from '../access/sharing.service.js';
import type { StatementDocument } from './statement-document.schemas.js';
import { btc } from './pdf/statement-words.js';
import type { StatementData } from './statement.schemas.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();
const PUBLIC_BASE_URL = 'https://proofs.example.com';

describe.each(engines())('statement PDFs on %s', (engine) => {
  const sim = buildSandboxChain();
  let t: TestApp;
  let world: StatementWorld;
  /** The claim with three transactions in October and November 2026, and its completed statement in New York time. */
  let claim: { id: string; address: string; privateKey: Uint8Array };
  let history: { fee: bigint; txids: string[] };
  let statement: Record<string, unknown> & { id: string; summary: Record<string, string | number> };
  const period = { open: at('2026-10-01T00:00:00Z'), close: at('2026-11-20T00:00:00Z') };

  const get = (url: string, key = world.client.testKey, headers: Record<string, string> = {}) =>
    t.call(key, { method: 'GET', url, headers });
  const pdfUrl = (id: string, format?: string) =>
    `/v1/verify/statements/${id}/document/pdf${format === undefined ? '' : `?format=${format}`}`;
  const usage = async () => (await get('/v1/usage?limit=100')).json().data as { resource_id: string; type: string; created_at: number }[];
  const newStatement = () => world.completedStatement({ claim_ids: [claim.id], period, timezone: 'America/New_York' });

  beforeAll(async () => {
    t = await startTestApp(engine, {
      seams: { chains: createChainSources({ esploraUrl: undefined, test: sim }) },
      config: { PUBLIC_BASE_URL },
    });
    world = await makeStatementWorld(t, { holder: { email: 'ada@example.com', name: 'Ada Lovelace', external_ref: 'CUST-0042' } });
    claim = await world.proveAddress();
    history = await octoberHistory(sim, claim);
    statement = (await newStatement()) as typeof statement;
  });
  afterAll(() => t.close());

  it('serves the monthly layout by default: who, what, when, the summary and a section per month, page x of y on every page', async () => {
    const res = await get(`/api/v1/verify/statements/${statement.id}/document/pdf`);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="statement-${statement.id}-monthly.pdf"`);
    const pages = await pdfPages(res.rawPayload);
    const text = pages.join('\n');
    const flat = text.replace(/\s+/g, ' ');
    for (const expected of [
      'Bitcoin statement',
      'Prepared for Acme Lending',
      'Ada Lovelace · ada@example.com',
      'Your reference: CUST-0042',
      `Account holder id: ${world.holderId}`,
      // Midnight UTC is 20:00 the day before in New York (EDT), and the period ends at 19:00 EST.
      '30 September 2026, 20:00 UTC-04:00 to 19 November 2026, 19:00 UTC-05:00 (the end not included)',
      'Times are in America/New_York, each with its offset from UTC: -04:00 to 1 November 2026, 06:00 UTC, then -05:00.',
      `Address ${claim.address}`,
      `claim ${claim.id}`,
      'Control proven by a BIP-322 signature (simple)',
      'Monthly: the summary, then each calendar month with its transactions.',
      'TEST MODE',
    ]) {
      expect(flat).toContain(expected);
    }
    expect(flat).toContain(`Tip block hash ${(statement.chain as { block_hash: string }).block_hash}`);
    const summary = statement.summary;
    const line = (label: string) => text.split('\n').find((l) => l.includes(label)) ?? '';
    expect(line('Opening balance, 30 September 2026, 20:00 UTC-04:00')).toContain(btc(summary.opening_balance as string));
    expect(line('Received')).toContain(btc(summary.total_in as string));
    expect(line('Sent')).toContain(btc(summary.total_out as string));
    expect(line('Network fees paid')).toContain(btc(history.fee));
    expect(line('Closing balance, 19 November 2026, 19:00 UTC-05:00')).toContain(btc(summary.closing_balance as string));
    expect(btc(summary.closing_balance as string)).toBe(btc(530_000n - 120_000n - history.fee));
    // The month sections, cut where the period cuts them, each between its opening balance and its totals.
    for (const title of [
      'September 2026, from 30 September, 20:00 UTC-04:00',
      'October 2026',
      'November 2026, until 19 November, 19:00 UTC-05:00',
    ])
      expect(text).toContain(title);
    expect(text).toContain('No transactions. Balance throughout: 0.00000000 BTC.');
    expect(text).toContain('Totals · 2 transactions');
    expect(text).toContain('Totals · 1 transaction');
    for (const txid of history.txids) expect(text).toContain(txid);
    // The payment: its date, its name, block and amounts; under them its time with the offset, its id and where it went.
    expect(text).toMatch(
      new RegExp(
        `2026-10-20\\s+Sent\\s+\\d+\\s+0\\.00120000\\s+0\\.00000\\d{3}\\s+0\\.00\\d{6}\\n\\s*08:00 -04:00\\s+${history.txids[1]} to tb1q`,
      ),
    );
    pages.forEach((page, i) => expect(page).toContain(`Page ${i + 1} of ${pages.length}`));
    expect((await pdfInfo(res.rawPayload))['Page size']).toMatch(/^595\.2\d* x 841\.8\d* pts \(A4\)/);
    const fonts = await pdfFonts(res.rawPayload);
    expect(fonts.map((f) => f.name.replace(/^[A-Z]{6}\+/, '')).sort()).toEqual(['DejaVuSans', 'DejaVuSans-Bold', 'DejaVuSansMono']);
    expect(fonts.every((f) => f.embedded)).toBe(true);
  });

  it('serves the custom layout: one summary and every transaction of the period in one table', async () => {
    const res = await get(pdfUrl(statement.id, 'custom'));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="statement-${statement.id}-custom.pdf"`);
    const text = (await pdfPages(res.rawPayload)).join('\n');
    expect(text).toContain('Custom: the summary, then every transaction of the period in one table.');
    expect(text).toContain('Totals · 3 transactions');
    expect(text).not.toContain('October 2026');
    const rows = history.txids.map((txid) => text.indexOf(txid));
    expect(rows.every((index) => index > 0)).toBe(true);
    expect([...rows].sort((a, b) => a - b)).toEqual(rows);
  });

  it('embeds the statement’s data signed with a published key, and prints the SHA-256 of the signed data as the document hash, with a QR code to check it', async () => {
    const res = await get(pdfUrl(statement.id, 'monthly'));
    const attachments = await pdfAttachments(res.rawPayload);
    expect([...attachments.keys()]).toEqual([`ownproof-statement-${statement.id}.jws`]);
    const jws = (attachments.get(`ownproof-statement-${statement.id}.jws`) as Buffer).toString('ascii');
    const jwks = (await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    const verified = await compactVerify(jws, createLocalJWKSet(jwks), { algorithms: ['EdDSA'] });
    expect(verified.protectedHeader).toEqual({ alg: 'EdDSA', kid: jwks.keys[0].kid, typ: 'ownproof-statement+jws' });
    const document = JSON.parse(new TextDecoder().decode(verified.payload)) as StatementDocument;
    const row = await t.ctx.db.selectFrom('verify_statements').select('data').where('id', '=', statement.id).executeTakeFirstOrThrow();
    expect(document).toEqual({
      iss: PUBLIC_BASE_URL,
      document: { format: 'monthly', page_size: 'A4', issued_at: expect.any(Number) },
      statement: {
        id: statement.id,
        livemode: false,
        requested_by: 'Acme Lending',
        account_holder: { id: world.holderId, email: 'ada@example.com', name: 'Ada Lovelace', external_ref: 'CUST-0042' },
        created_at: statement.created_at,
        completed_at: statement.completed_at,
      },
      claims: [
        {
          claim: expect.objectContaining({ id: claim.id, subject: { type: 'address', address: claim.address } }),
          receipt: expect.stringMatching(/^ey/),
        },
      ],
      data: JSON.parse(row.data as string) as StatementData,
    });
    const claimRes = (await get(`/v1/verify/claims/${claim.id}`)).json();
    expect(document.claims[0]?.receipt).toBe(claimRes.receipt);

    const documentHash = sha256(verified.payload).toString('hex');
    const pages = await pdfPages(res.rawPayload);
    expect(pages[0]).toContain(documentHash);
    for (const page of pages) expect(page).toContain(`Document hash (SHA-256) ${documentHash}`);
    expect(pages[0]).toContain(`${PUBLIC_BASE_URL}/verify`);
    expect(await pdfQrCodes(res.rawPayload, 1)).toEqual([`${PUBLIC_BASE_URL}/verify?document_hash=${documentHash}`]);
    const stored = await t.ctx.db
      .selectFrom('verify_statement_documents')
      .select(['document_hash', 'signing_key_id'])
      .where('statement_id', '=', statement.id)
      .where('format', '=', 'monthly')
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ document_hash: documentHash, signing_key_id: verified.protectedHeader.kid });
  });

  it('bills the first PDF of a statement once, serves the stored bytes afterwards with an ETag, a Content-Digest and a year of private caching, and answers If-None-Match with 304', async () => {
    const fresh = await newStatement();
    expect(fresh.pdf_generated_at).toBeNull();
    const before = await usage();
    t.clock.advance(60);
    const sent = Math.floor(t.clock.now() / 1000);
    const first = await get(pdfUrl(fresh.id));
    const answered = Math.floor(t.clock.now() / 1000);
    expect(first.statusCode).toBe(200);
    const digest = sha256(first.rawPayload);
    expect(first.headers).toMatchObject({
      etag: `"${digest.toString('hex')}"`,
      'content-digest': `sha-256=:${digest.toString('base64')}:`,
      'cache-control': 'private, max-age=31536000, immutable',
    });
    const billed = await usage();
    expect(billed).toHaveLength(before.length + 1);
    expect(billed[0]).toEqual({
      id: expect.stringMatching(/^ur_[0-9A-Za-z]{22}$/),
      object: 'usage_record',
      type: 'statement_pdf',
      resource_id: fresh.id,
      quantity: 1,
      created_at: expect.any(Number),
      livemode: false,
    });
    expect(billed[0]?.created_at).toBeGreaterThanOrEqual(sent);
    expect(billed[0]?.created_at).toBeLessThanOrEqual(answered);
    const read = (await get(`/v1/verify/statements/${fresh.id}`)).json();
    expect(read.pdf_generated_at).toBe(billed[0]?.created_at);

    t.clock.advance(60);
    const again = await get(pdfUrl(fresh.id, 'monthly'));
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(again.headers.etag).toBe(first.headers.etag);
    const otherFormat = await get(pdfUrl(fresh.id, 'custom'));
    expect(otherFormat.statusCode).toBe(200);
    expect(otherFormat.headers.etag).not.toBe(first.headers.etag);
    const notModified = await get(pdfUrl(fresh.id), world.client.testKey, { 'if-none-match': `W/"x", ${first.headers.etag as string}` });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.rawPayload.length).toBe(0);
    expect(notModified.headers).toMatchObject({ etag: first.headers.etag, 'cache-control': 'private, max-age=31536000, immutable' });
    const changed = await get(pdfUrl(fresh.id), world.client.testKey, { 'if-none-match': '"another"' });
    expect(changed.statusCode).toBe(200);
    expect(await usage()).toEqual(billed);
    expect((await get(`/v1/verify/statements/${fresh.id}`)).json().pdf_generated_at).toBe(read.pdf_generated_at);
    expect((await get('/v1/usage?type=statement_pdf&limit=1')).json()).toMatchObject({
      object: 'list',
      url: '/v1/usage',
      has_more: billed.length > 1,
      data: [billed[0]],
    });
  });

  it('bills once when the first downloads of both formats arrive at the same moment, and gives every caller the stored file of its format', async () => {
    const fresh = await newStatement();
    const responses = await Promise.all(
      ['monthly', 'custom', 'monthly', 'custom', 'monthly', 'custom'].map((format) => get(pdfUrl(fresh.id, format))),
    );
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect((await usage()).filter((u) => u.resource_id === fresh.id)).toHaveLength(1);
    const stored = await t.ctx.db
      .selectFrom('verify_statement_documents')
      .select(['format', 'pdf_sha256'])
      .where('statement_id', '=', fresh.id)
      .execute();
    expect(stored.map((s) => s.format).sort()).toEqual(['custom', 'monthly']);
    for (const [i, res] of responses.entries()) {
      const format = i % 2 === 0 ? 'monthly' : 'custom';
      expect(res.headers.etag, format).toBe(`"${stored.find((s) => s.format === format)?.pdf_sha256}"`);
    }
  });

  it('refuses another format with 400 naming format, a pending statement with 409 statement_not_ready and a failed one with 409 statement_failed, changing nothing', async () => {
    const pendingId = (
      await t.call(world.client.testKey, {
        method: 'POST',
        url: '/v1/verify/statements/generate',
        json: { account_holder_id: world.holderId, claim_ids: [claim.id], period, timezone: 'UTC' },
      })
    ).json().id;
    const doomed = await world.proveAddress();
    const failedId = (
      await t.call(world.client.testKey, {
        method: 'POST',
        url: '/v1/verify/statements/generate',
        json: { account_holder_id: world.holderId, claim_ids: [doomed.id], period, timezone: 'UTC' },
      })
    ).json().id;
    await revokeAccess(t.ctx, { controller: 'ada@example.com', modes: ['test'] }, world.client.clientId, doomed.id);
    await runDueJobs(t.ctx);
    const failed = (await get(`/v1/verify/statements/${failedId}`)).json();
    expect(failed.status).toBe('failed');
    // The pending one was computed by that run too: make another that stays pending.
    const stillPending = (
      await t.call(world.client.testKey, {
        method: 'POST',
        url: '/v1/verify/statements/generate',
        json: { account_holder_id: world.holderId, claim_ids: [claim.id], period, timezone: 'UTC' },
      })
    ).json().id;
    expect(pendingId).toMatch(/^stmt_/);

    const before = await snapshotDatabase(t.ctx.db, ['rate_limits']);
    const cases: [string, number, string, string][] = [
      [pdfUrl(statement.id, 'weekly'), 400, 'parameter_invalid', 'format'],
      [pdfUrl(statement.id, 'MONTHLY'), 400, 'parameter_invalid', 'format'],
      [`${pdfUrl(statement.id)}?page_size=Letter`, 400, 'parameter_unknown', 'page_size'],
      [pdfUrl(stillPending), 409, 'statement_not_ready', 'id'],
      [pdfUrl(failedId, 'custom'), 409, 'statement_failed', 'id'],
    ];
    for (const [url, status, code, param] of cases) {
      const res = await get(url);
      expect([res.statusCode, res.json().error.code, res.json().error.param], url).toEqual([status, code, param]);
    }
    expect((await get(pdfUrl(statement.id, 'weekly'))).json().error.message).toContain('monthly');
    expect((await get(pdfUrl(failedId))).json().error.message).toContain(failed.failure_reason);
    expect(describeChanges(before, await snapshotDatabase(t.ctx.db, ['rate_limits']))).toBe('');
  });

  it('answers 404 to another client and to the other mode, and records nothing', async () => {
    const stranger = await t.newClient('Other Lender');
    const fresh = await newStatement();
    const before = await snapshotDatabase(t.ctx.db, ['rate_limits']);
    for (const key of [stranger.testKey, world.client.liveKey]) {
      const res = await get(pdfUrl(fresh.id), key);
      expect([res.statusCode, res.json().error.code, res.json().error.param]).toEqual([404, 'resource_missing', 'id']);
    }
    expect(describeChanges(before, await snapshotDatabase(t.ctx.db, ['rate_limits']))).toBe('');
    expect((await get('/v1/usage', stranger.testKey)).json().data).toEqual([]);
  });
});
