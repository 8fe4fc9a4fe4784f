import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../src/clients/client.service.js';
import { startServer, type RunningServer } from '../../../src/main/server.js';
import { loadConfig } from '../../../src/platform/config/config.js';
import { createTestDatabase, engines, type TestDatabase } from '../../../test/support/database.js';
import { eventually } from '../../../test/support/eventually.js';
import { TEST_MASTER_KEY } from '../../../test/support/master-key.js';
import { TestReceiver } from '../../../test/support/webhooks.js';
import { Ownproof, OwnproofApiError, type OwnproofEvent } from '../src/index.js';

/**
 * The whole sandbox journey of a lender's integration through the SDK alone, against a real
 * `ownproof serve` (HTTP on a real port, its in-process worker, real webhook deliveries to a
 * receiver on loopback): holder → session completed by the test helper → accounts refreshed and
 * read → access request approved by the test helper → webhooks received and unwrapped → statement
 * generated → its PDF, checked by the server.
 */
describe.each(engines())('the SDK journey on %s', (engine) => {
  let database: TestDatabase;
  let server: RunningServer;
  let receiver: TestReceiver;
  let dataDir: string;
  let ownproof: Ownproof;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-sdk-journey-'));
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      MASTER_KEY: TEST_MASTER_KEY,
    });
    const quiet = { write: () => true } as unknown as NodeJS.WritableStream;
    server = await startServer({ ...config, database: database.config }, quiet);
    const client = await createClient(server.runtime.ctx, { name: 'Lender' });
    ownproof = new Ownproof({ apiKey: client.testKey, baseUrl: server.url });
    receiver = await TestReceiver.start();
  }, 60_000);

  afterAll(async () => {
    await receiver?.close();
    await server?.stop();
    await database?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('goes from a new account holder to a checked statement PDF', async () => {
    const endpoint = await ownproof.webhookEndpoints.create({ url: receiver.url, enabled_events: ['*'] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    const holder = await ownproof.connect.accountHolders.create({ email: 'ada@example.com', name: 'Ada Lovelace' });

    const session = await ownproof.connect.sessions.create({ account_holder: holder.id, permissions: ['balances', 'transactions'] });
    expect(session.status).toBe('open');
    await ownproof.testHelpers.connect.sessions.complete(session.id, {
      exchange_logins: [{ username: 'user_good' }],
      wallets: [{ prove_ownership: true }],
    });
    const completed = await ownproof.connect.sessions.poll(session.id, { intervalMs: 500 });
    expect(completed.status).toBe('completed');
    expect(completed.accounts).toHaveLength(2);

    const accounts = await ownproof.connect.accounts.list({ session: session.id, limit: 1 }).toArray();
    expect(accounts.map((a) => a.id).sort()).toEqual([...completed.accounts].sort());
    for (const account of accounts) {
      await ownproof.connect.accounts.refresh(account.id, { features: ['balances', 'transactions'] });
      const refreshed = await ownproof.connect.accounts.pollRefresh(account.id, { intervalMs: 500 });
      expect(refreshed.balance_refresh?.status).toBe('succeeded');
      const balances = await ownproof.connect.accounts.balances(account.id).toArray();
      expect(balances.length).toBeGreaterThan(0);
    }
    const wallet = accounts.find((a) => a.ownership?.status === 'verified');
    expect(wallet).toBeDefined();

    const request = await ownproof.verify.accessRequests.create({
      type: 'sharing',
      account_holder_id: holder.id,
      permissions: ['balances', 'statements'],
    });
    const granted = await ownproof.testHelpers.verify.accessRequests.approve(request.id);
    expect(granted.status).toBe('granted');
    expect(granted.claim_ids).toHaveLength(1);

    // The webhooks of what happened, each checked and typed by the SDK.
    const events = new Map<string, OwnproofEvent>();
    await eventually(async () => {
      for (const delivery of receiver.received) {
        const event = await ownproof.webhooks.unwrap(delivery.body, delivery.headers as Record<string, string>, endpoint.secret as string);
        events.set(event.type, event);
      }
      return events.has('session.completed') && events.has('access_request.granted');
    }, 30_000);
    const sessionEvent = events.get('session.completed');
    expect(sessionEvent?.type === 'session.completed' && sessionEvent.data.object.accounts).toEqual(completed.accounts);
    const grantEvent = events.get('access_request.granted');
    expect(grantEvent?.type === 'access_request.granted' && grantEvent.data.object.claim_ids).toEqual(granted.claim_ids);

    const now = Math.floor(Date.now() / 1000);
    const statement = await ownproof.verify.statements.generate({
      account_holder_id: holder.id,
      claim_ids: granted.claim_ids,
      period: { open: now - 90 * 86_400, close: now - 60 },
      timezone: 'Europe/London',
    });
    const done = await ownproof.verify.statements.poll(statement.id, { intervalMs: 500 });
    expect(done.status).toBe('completed');
    const pdf = await ownproof.verify.statements.downloadPdf(statement.id);
    expect(new TextDecoder().decode(pdf.slice(0, 5))).toBe('%PDF-');
    const check = await ownproof.verify.statements.check(pdf);
    expect(check.valid).toBe(true);

    // Errors arrive typed: a claim the server does not know.
    const failure = await ownproof.verify.claims.retrieve('clm_doesnotexist').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OwnproofApiError);
    expect(failure).toMatchObject({ status: 404, code: 'resource_missing', param: 'id' });
  }, 180_000);
});
