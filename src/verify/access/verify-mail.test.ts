import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDueJobs } from '../../../test/support/connect.js';
import { createTestDatabase, engines, type TestDatabase } from '../../../test/support/database.js';
import { eventually } from '../../../test/support/eventually.js';
import { FormAgent } from '../../../test/support/form-agent.js';
import { queueIdle } from '../../../test/support/queue.js';
import { captureStream, startTestApp, TEST_MASTER_KEY, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { service } from '../../main/modules.js';
import { Worker } from '../../platform/jobs/worker.js';

/**
 * The access-request and sign-in e-mails on a production server without SMTP_URL, which sends no
 * mail at all (it keeps no outbox: a stored sign-in link is a usable secret). A development app
 * on the same database stands for the same server before its restart without SMTP_URL.
 */
describe.each(engines())('verify e-mail on a production server without SMTP_URL on %s', (engine) => {
  let database: TestDatabase;
  let dev: TestApp;
  let prod: TestApp;
  let client: TestClient;
  let holderId: string;
  const createRequest = (app: TestApp, json: Record<string, unknown> = {}) =>
    app.call(client.testKey, {
      method: 'POST',
      url: '/v1/verify/access_requests',
      json: { type: 'sharing', account_holder_id: holderId, permissions: ['balances'], ...json },
    });
  const count = async (table: 'mail_outbox' | 'verify_portal_links' | 'verify_access_requests') =>
    Number(
      (
        await prod.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** Runs the due jobs in the production app with a worker whose log lines are kept. */
  const runProductionJobs = async () => {
    const { stream, lines } = captureStream();
    const worker = new Worker(prod.ctx, service.jobCatalog(), { pollIntervalMs: 10, log: pino({ level: 'info' }, stream) });
    worker.start();
    try {
      await eventually(async () => (await queueIdle(prod.ctx)) && worker.activeJobs === 0);
    } finally {
      await worker.stop(1000);
    }
    return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  };

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    dev = await startTestApp(engine, { database });
    prod = await startTestApp(engine, { database, config: { NODE_ENV: 'production', MASTER_KEY: TEST_MASTER_KEY } });
    client = await dev.newClient('Acme Lending');
    holderId = (
      await dev.call(client.testKey, {
        method: 'POST',
        url: '/v1/connect/account_holders',
        json: { email: 'ada@example.com', name: 'Ada' },
      })
    ).json().id;
  });
  afterAll(async () => {
    await prod?.close();
    await dev?.close();
    await database?.destroy();
  });

  it('refuses a test-mode access request with 503 mail_unavailable, as live mode without SMTP, and creates nothing', async () => {
    const before = await count('verify_access_requests');
    const res = await createRequest(prod);
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toMatchObject({ type: 'api_error', code: 'mail_unavailable' });
    expect(res.json().error.message).toMatch(/SMTP_URL/);
    expect(await count('verify_access_requests')).toBe(before);
  });

  it('marks the e-mail of a request queued before as failed with the reason, records the event, and makes no sign-in link', async () => {
    const created = await createRequest(dev, { message: 'For your loan\napplication.' });
    expect(created.statusCode).toBe(200);
    const [outboxBefore, linksBefore] = [await count('mail_outbox'), await count('verify_portal_links')];

    await runProductionJobs();

    const read = (await prod.call(client.testKey, { method: 'GET', url: `/v1/verify/access_requests/${created.json().id}` })).json();
    expect(read.notification).toEqual({ status: 'failed', last_error: expect.stringMatching(/SMTP_URL/), sent_at: null });
    const events = (await prod.call(client.testKey, { method: 'GET', url: '/v1/events?type=access_request.notification_failed' })).json()
      .data;
    expect(events.map((e: { data: { object: { id: string } } }) => e.data.object.id)).toContain(created.json().id);
    expect(await count('mail_outbox')).toBe(outboxBefore);
    expect(await count('verify_portal_links')).toBe(linksBefore);
  });

  it('tells the person on the portal that it cannot e-mail a sign-in link, and queues none', async () => {
    const agent = new FormAgent(prod.app, 'portal');
    await agent.get('/portal/sign-in');
    const jobsBefore = Number(
      (
        await prod.ctx.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const res = await agent.post('/portal/sign-in', { email: 'ada@example.com' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('This server cannot send e-mail at the moment');
    expect(res.body).not.toContain('Check your e-mail');
    // The same answer for an address nobody has: it says nothing of who is known here.
    const unknown = await agent.post('/portal/sign-in', { email: 'nobody@example.com' });
    expect(unknown.statusCode).toBe(503);
    expect(
      Number(
        (
          await prod.ctx.db
            .selectFrom('jobs')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ).toBe(jobsBefore);
  });

  it('sends no sign-in link a person asked for before the restart, and logs why', async () => {
    const agent = new FormAgent(dev.app, 'portal');
    await agent.get('/portal/sign-in');
    expect((await agent.post('/portal/sign-in', { email: 'ada@example.com' })).statusCode).toBe(200);
    const [outboxBefore, linksBefore] = [await count('mail_outbox'), await count('verify_portal_links')];

    const lines = await runProductionJobs();

    expect(await count('mail_outbox')).toBe(outboxBefore);
    expect(await count('verify_portal_links')).toBe(linksBefore);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 50, msg: expect.stringMatching(/^portal sign-in link not sent: .*SMTP_URL/) }),
    );
    expect(JSON.stringify(lines)).not.toContain('ada@example.com');
  });

  it('e-mails the client’s message with its line breaks in both parts (development outbox)', async () => {
    const created = (await createRequest(dev, { message: 'For your loan\napplication.' })).json();
    await runDueJobs(dev.ctx);
    expect(
      (await dev.call(client.testKey, { method: 'GET', url: `/v1/verify/access_requests/${created.id}` })).json().notification.status,
    ).toBe('sent');
    const mail = await dev.ctx.db
      .selectFrom('mail_outbox')
      .selectAll()
      .where('to_address', '=', 'ada@example.com')
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    expect(mail.text_body).toContain('Their message: “For your loan\napplication.”');
    expect(mail.html_body).toContain('Their message: “For your loan<br>application.”');
  });
});
