import type { TestApp, TestClient } from './test-app.js';

/** A session as the API returns it (the fields the hosted-flow tests read). */
export interface CreatedSession {
  id: string;
  client_secret: string;
  hosted_url: string;
  status: string;
  accounts: string[];
  account_ids: string[];
  return_url: string | null;
}

/**
 * Creates an account holder and a session through the real API, as a client would. Returns the
 * session and the path of its hosted URL (the app may listen on another origin than the config's).
 */
export async function createHostedSession(
  t: TestApp,
  client: TestClient,
  options: { permissions?: string[]; returnUrl?: string; mode?: 'test' | 'live' } = {},
): Promise<{ session: CreatedSession; path: string }> {
  const key = options.mode === 'live' ? client.liveKey : client.testKey;
  const holder = await t.call(key, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'holder@example.com' } });
  if (holder.statusCode !== 200) throw new Error(`account holder: ${holder.statusCode} ${holder.body}`);
  const created = await t.call(key, {
    method: 'POST',
    url: '/v1/connect/sessions',
    json: {
      account_holder: holder.json().id,
      permissions: options.permissions ?? ['balances', 'transactions', 'addresses'],
      ...(options.returnUrl ? { return_url: options.returnUrl } : {}),
    },
  });
  if (created.statusCode !== 200) throw new Error(`session: ${created.statusCode} ${created.body}`);
  const session = created.json() as CreatedSession;
  return { session, path: new URL(session.hosted_url).pathname };
}

/**
 * The session as the client sees it now, through `GET /v1/connect/sessions/{id}`. Polling is
 * limited to two a second per session; a test that looks more often waits as a client would.
 */
export async function fetchSession(t: TestApp, key: string, id: string): Promise<CreatedSession> {
  let res = await t.call(key, { method: 'GET', url: `/v1/connect/sessions/${id}` });
  for (let attempt = 0; res.statusCode === 429 && attempt < 3; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers['retry-after'] ?? 1) * 1000));
    res = await t.call(key, { method: 'GET', url: `/v1/connect/sessions/${id}` });
  }
  if (res.statusCode !== 200) throw new Error(`retrieve session: ${res.statusCode} ${res.body}`);
  return res.json() as CreatedSession;
}
