import { createSessionFor, type CreatedSession } from './connect.js';
import type { TestApp, TestClient } from './test-app.js';

/** `createSessionFor` with a client's key for the mode (test by default). */
export async function createHostedSession(
  t: TestApp,
  client: TestClient,
  options: { permissions?: string[]; returnUrl?: string; mode?: 'test' | 'live' } = {},
): Promise<{ session: CreatedSession; path: string }> {
  const { mode, ...rest } = options;
  return createSessionFor(t, mode === 'live' ? client.liveKey : client.testKey, rest);
}

/** A session read after its creation: its secret is shown only by the create response. */
export type ReadSession = Omit<CreatedSession, 'client_secret' | 'hosted_url'> & { client_secret: null; hosted_url: null };

/**
 * The session as the client sees it now, through `GET /v1/connect/sessions/{id}`. Polling is
 * limited to two a second per session; a test that looks more often waits as a client would.
 */
export async function fetchSession(t: TestApp, key: string, id: string): Promise<ReadSession> {
  let res = await t.call(key, { method: 'GET', url: `/v1/connect/sessions/${id}` });
  for (let attempt = 0; res.statusCode === 429 && attempt < 3; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers['retry-after'] ?? 1) * 1000));
    res = await t.call(key, { method: 'GET', url: `/v1/connect/sessions/${id}` });
  }
  if (res.statusCode !== 200) throw new Error(`retrieve session: ${res.statusCode} ${res.body}`);
  return res.json() as ReadSession;
}
