import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseEnv, startServe, type ServingProcess } from '../../../test/support/cli-process.js';
import { engines } from '../../../test/support/database.js';
import { at, makeStatementWorld, octoberHistory, type StatementWorld } from '../../../test/support/statements.js';
import { startTestApp, TEST_MASTER_KEY, type TestApp } from '../../../test/support/test-app.js';
import { createChainSources } from '../../bitcoin/chain-for-mode.js';
import { buildSandboxChain } from '../../bitcoin/sandbox/sandbox-chain.js';

/**
 * Two real `ownproof serve` processes on one PostgreSQL database, each asked for the first PDFs of
 * the same statements at the same moment: every statement is billed once, and both processes
 * serve the one stored file of each format.
 */
describe.runIf(engines().includes('postgres'))('statement PDFs across two server processes on PostgreSQL', () => {
  const STATEMENTS = 4;
  const sim = buildSandboxChain();
  let t: TestApp;
  let world: StatementWorld;
  let dataDir: string;
  let servers: ServingProcess[] = [];
  const statementIds: string[] = [];
  let warmUpIds: string[] = [];

  beforeAll(async () => {
    t = await startTestApp('postgres', { seams: { chains: createChainSources({ esploraUrl: undefined, test: sim }) } });
    world = await makeStatementWorld(t);
    const claim = await world.proveAddress();
    await octoberHistory(sim, claim);
    const body = {
      claim_ids: [claim.id],
      period: { open: at('2026-10-01T00:00:00Z'), close: at('2026-11-20T00:00:00Z') },
      timezone: 'Europe/Paris',
    };
    for (let i = 0; i < STATEMENTS + 2; i++) statementIds.push((await world.completedStatement(body)).id);
    warmUpIds = statementIds.splice(0, 2);
    dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-pdf-processes-'));
    // The test app's master key: the servers open the same receipt signing key.
    const env = { ...databaseEnv(t.database.config), DATA_DIR: dataDir, MASTER_KEY: TEST_MASTER_KEY, RATE_LIMIT_PER_SECOND: '100000' };
    servers = await Promise.all([startServe(env, ['--no-worker']), startServe(env, ['--no-worker'])]);
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.process.stop()));
    await t?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const download = async (server: ServingProcess, id: string, format: string) => {
    const res = await fetch(`${server.url}/v1/verify/statements/${id}/document/pdf?format=${format}`, {
      headers: { authorization: `Bearer ${world.client.testKey}` },
    });
    return { status: res.status, etag: res.headers.get('etag'), body: Buffer.from(await res.arrayBuffer()) };
  };

  it('bills each statement once when both processes generate its first PDFs at the same moment, and both serve the stored file', async () => {
    // Each process makes one PDF first, so pdfkit and the fonts are loaded and the race below is between two renders.
    for (const [i, server] of servers.entries()) expect((await download(server, warmUpIds[i] as string, 'monthly')).status).toBe(200);

    const requests = statementIds.flatMap((id) =>
      servers.flatMap((server) => ['monthly', 'custom'].map((format) => ({ id, format, server }))),
    );
    const responses = await Promise.all(
      requests.map(async (request) => ({ ...request, ...(await download(request.server, request.id, request.format)) })),
    );
    expect(responses.map((r) => r.status)).toEqual(requests.map(() => 200));

    const usage = await t.ctx.db
      .selectFrom('usage_records')
      .select(['resource_id', 'type'])
      .where('client_id', '=', world.client.clientId)
      .execute();
    expect(
      usage
        .filter((u) => u.type === 'statement_pdf')
        .map((u) => u.resource_id)
        .sort(),
    ).toEqual([...warmUpIds, ...statementIds].sort());
    const documents = await t.ctx.db
      .selectFrom('verify_statement_documents')
      .select(['statement_id', 'format', 'pdf_sha256'])
      .where('statement_id', 'in', statementIds)
      .execute();
    expect(documents).toHaveLength(2 * STATEMENTS);
    for (const response of responses) {
      const stored = documents.find((d) => d.statement_id === response.id && d.format === response.format);
      expect(response.etag, `${response.id} ${response.format}`).toBe(`"${stored?.pdf_sha256}"`);
      expect(createHash('sha256').update(response.body).digest('hex')).toBe(stored?.pdf_sha256);
    }
    const generatedAt = await t.ctx.db.selectFrom('verify_statements').select('pdf_generated_at').where('id', 'in', statementIds).execute();
    expect(generatedAt.every((row) => typeof row.pdf_generated_at === 'number')).toBe(true);
  });
});
