import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { createHostedSession, fetchSession } from '../../../test/support/browser-session.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';

// The first page cannot be built: the flow failed to initialise (a bug or a broken dependency).
vi.mock('./disclaimer-page.js', () => ({
  disclaimerPage: () => {
    throw new Error('template exploded');
  },
}));

describe.each(engines())('a hosted flow that fails to initialise, on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;

  beforeAll(async () => {
    t = await startTestApp(engine);
    client = await t.newClient('Acme Budget');
  });
  afterAll(() => t.close());

  it('abandons the session and redirects to the return_url with status=abandoned', async () => {
    const { session, path } = await createHostedSession(t, client, { returnUrl: 'https://client.example/back' });
    const res = await t.app.inject({ method: 'GET', url: path });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`https://client.example/back?session_id=${session.id}&status=abandoned`);
    expect((await fetchSession(t, client.testKey, session.id)).status).toBe('abandoned');
    const row = await t.ctx.db
      .selectFrom('connect_sessions')
      .select('abandon_reason')
      .where('id', '=', session.id)
      .executeTakeFirstOrThrow();
    expect(row.abandon_reason).toBe('initialization_failed');
    const events = (await t.call(client.testKey, { method: 'GET', url: '/v1/events' })).json().data as {
      type: string;
      data: { object: { id: string } };
    }[];
    expect(events.some((e) => e.type === 'session.abandoned' && e.data.object.id === session.id)).toBe(true);
  });

  it('without a return_url, abandons the session and says the connection could not start', async () => {
    const { session, path } = await createHostedSession(t, client);
    const res = await t.app.inject({ method: 'GET', url: path });
    expect(res.statusCode).toBe(500);
    expect(res.body).toContain('We couldn’t start the connection');
    expect(res.body).not.toContain('template exploded');
    expect((await fetchSession(t, client.testKey, session.id)).status).toBe('abandoned');
    expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(410);
  });
});
