import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseEnv, startServe, type ServingProcess } from '../../test/support/cli-process.js';
import { engines } from '../../test/support/database.js';
import { until } from '../../test/support/eventually.js';
import {
  startFakeCoinbaseOAuth,
  OAUTH_CLIENT_ID,
  OAUTH_CLIENT_SECRET,
  type FakeCoinbaseOAuth,
} from '../../test/support/fake-coinbase-oauth.js';
import { startFakeCoinbase, type FakeCoinbase } from '../../test/support/fake-coinbase.js';
import { FormAgent } from '../../test/support/form-agent.js';
import { freePort } from '../../test/support/free-port.js';
import { injectOverHttp } from '../../test/support/http-inject.js';
import { startTestApp, type TestApp, type TestClient } from '../../test/support/test-app.js';
import { TestReceiver } from '../../test/support/webhooks.js';
import { openConnection } from '../connect/stored-connection.js';
import { SECRET_KINDS, type SecretKindName } from '../platform/crypto/secret-kinds.js';

/**
 * A real `ownproof serve` process at LOG_LEVEL=trace taken through a whole flow that makes one of
 * every kind of secret in SECRET_KINDS — API keys, session client secrets, portal sign-in links
 * and sessions, CSRF tokens, a webhook secret, the OAuth values of a sign-in, exchange credentials —
 * with the requests that log the most (refusals, failures): none of them may appear on its
 * standard output. A kind added to the list fails this test until the flow makes one.
 */
describe.each(engines())('secrets in the logs of a server process on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  let coinbase: FakeCoinbase;
  let oauth: FakeCoinbaseOAuth;
  let receiver: TestReceiver;
  let server: ServingProcess;
  let dataDir: string;

  beforeAll(async () => {
    coinbase = await startFakeCoinbase();
    oauth = await startFakeCoinbaseOAuth(coinbase);
    receiver = await TestReceiver.start();
    t = await startTestApp(engine);
    client = await t.newClient();
    dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-secrets-in-logs-'));
    const env = {
      ...databaseEnv(t.database.config),
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      LOG_LEVEL: 'trace',
      RATE_LIMIT_PER_SECOND: '100000',
      OAUTH_COINBASE_CLIENT_ID: OAUTH_CLIENT_ID,
      OAUTH_COINBASE_CLIENT_SECRET: OAUTH_CLIENT_SECRET,
    };
    server = await startServe(env, [], { exchanges: { coinbase: coinbase.url }, oauthServers: { coinbase: oauth.server } });
  });
  afterAll(async () => {
    await server?.process.stop();
    await t?.close();
    await receiver?.close();
    await oauth?.close();
    await coinbase?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const api = async (key: string, method: 'GET' | 'POST', url: string, json?: unknown) => {
    const res = await fetch(`${server.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };

  /** A session for a new account holder, and a browser that has accepted its disclaimer (one refused post first). */
  async function consentedSession(key: string, email: string) {
    const holder = await api(key, 'POST', '/v1/connect/account_holders', { email });
    const session = await api(key, 'POST', '/v1/connect/sessions', { account_holder: holder.id, permissions: ['balances'] });
    const hostedPath = new URL(session.hosted_url as string).pathname;
    const agent = new FormAgent(injectOverHttp(server.url), 'connect');
    expect((await agent.get(hostedPath)).statusCode).toBe(200);
    expect((await agent.post(`${hostedPath}/consent`, {}, { token: null })).statusCode).toBe(403);
    const consented = await agent.post(`${hostedPath}/consent`);
    expect(consented.statusCode).toBe(303);
    const browserCookie = [consented.headers['set-cookie']].flat().find((c) => c?.startsWith('ownproof_connect_browser=')) as string;
    return { session, hostedPath, agent, browserToken: /=(cb_[0-9A-Za-z]+)/.exec(browserCookie)?.[1] as string };
  }

  it('writes none of them to stdout at LOG_LEVEL=trace', async () => {
    const secrets: Partial<Record<SecretKindName, string[]>> = { api_key: [client.testKey, client.liveKey], oauth: [OAUTH_CLIENT_SECRET] };
    const add = (kind: SecretKindName, ...values: string[]) => (secrets[kind] = [...(secrets[kind] ?? []), ...values]);
    const csrfOf = (agent: FormAgent) => add('csrf_token', agent.token as string, agent.csrfCookieValue() as string);

    // A webhook endpoint (its secret), which the rest of the flow then delivers to.
    const endpoint = await api(client.testKey, 'POST', '/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] });
    add('webhook_secret', endpoint.secret as string, (endpoint.secret as string).slice('whsec_'.length));

    // Live mode: Coinbase with an API key (a wrong one first), then "Sign in with Coinbase".
    const live = await consentedSession(client.liveKey, 'live@example.com');
    add('session_client_secret', live.session.client_secret as string);
    add('connect_browser_token', live.browserToken);
    const keyed = coinbase.addAccount();
    const wrongSecret = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString();
    add('exchange_credentials', keyed.key, keyed.secret, wrongSecret, ...pemLines(keyed.secret), ...pemLines(wrongSecret));
    expect((await live.agent.post(`${live.hostedPath}/providers/coinbase`, { apiKey: keyed.key, secret: wrongSecret })).statusCode).toBe(
      422,
    );
    expect((await live.agent.post(`${live.hostedPath}/providers/coinbase`, { apiKey: keyed.key, secret: keyed.secret })).statusCode).toBe(
      303,
    );
    oauth.signInAs(
      coinbase.addAccount({
        wallets: [{ uuid: '8bfc20d7-f7c6-4422-bf07-8243ca4169fe', currency: 'BTC', available: '0.5', hold: '0', transactions: [] }],
      }),
    );
    const start = await live.agent.post(`${live.hostedPath}/providers/coinbase/oauth`);
    expect(start.statusCode).toBe(303);
    const authorize = new URL(start.headers.location as string);
    const back = await fetch(authorize, { redirect: 'manual' });
    const callback = new URL(back.headers.get('location') as string);
    const returned = await fetch(`${server.url}${callback.pathname}${callback.search}`, { redirect: 'manual' });
    expect(returned.status).toBe(303);
    // The same return again is refused (and logged as such).
    expect((await fetch(`${server.url}${callback.pathname}${callback.search}`, { redirect: 'manual' })).status).toBe(410);
    csrfOf(live.agent);
    expect((await live.agent.post(`${live.hostedPath}/finish`)).statusCode).toBe(200);
    const liveSession = await api(client.liveKey, 'GET', `/v1/connect/sessions/${live.session.id}`);
    for (const accountId of liveSession.accounts as string[]) {
      await api(client.liveKey, 'POST', `/v1/connect/accounts/${accountId}/refresh`, { features: ['balances'] });
      await until(
        () => api(client.liveKey, 'GET', `/v1/connect/accounts/${accountId}`),
        (account) => (account.balance_refresh as { status: string }).status === 'succeeded',
      );
    }
    const signedIn = await t.ctx.db
      .selectFrom('connect_accounts')
      .select(['id', 'connection_sealed'])
      .where('session_id', '=', live.session.id as string)
      .execute();
    const tokens = signedIn.map((row) => openConnection(t.ctx.secretBox, row).oauth).filter((o) => o !== undefined);
    expect(tokens).toHaveLength(1);
    add(
      'oauth',
      authorize.searchParams.get('state') as string,
      callback.searchParams.get('code') as string,
      tokens[0]?.access_token as string,
      tokens[0]?.refresh_token as string,
    );
    add('oauth', ...oauth.tokenRequests.flatMap((body) => [body.code_verifier ?? []].flat()));

    // Test mode: a sandbox login (a wrong password first), then Done: events for the webhook.
    const sandbox = await consentedSession(client.testKey, 'ada@example.com');
    add('session_client_secret', sandbox.session.client_secret as string);
    add('connect_browser_token', sandbox.browserToken);
    expect(
      (await sandbox.agent.post(`${sandbox.hostedPath}/providers/sandbox`, { username: 'user_good', password: 'wrong-password-9f3k' }))
        .statusCode,
    ).toBe(422);
    expect(
      (await sandbox.agent.post(`${sandbox.hostedPath}/providers/sandbox`, { username: 'user_good', password: 'pass_good' })).statusCode,
    ).toBe(303);
    add('exchange_credentials', 'wrong-password-9f3k');
    expect((await sandbox.agent.post(`${sandbox.hostedPath}/finish`)).statusCode).toBe(200);

    // The portal: a sign-in link mailed for an access request, a POST of it refused for CSRF, then used.
    const holder = sandbox.session.account_holder as string;
    await api(client.testKey, 'POST', '/v1/verify/access_requests', {
      type: 'sharing',
      account_holder_id: holder,
      permissions: ['balances'],
    });
    const mail = await until(
      () =>
        fetch(`${server.url}/dev/mail/latest.json?to=ada@example.com`).then(async (res) =>
          res.ok ? ((await res.json()) as { text: string }) : undefined,
        ),
      (message) => message !== undefined,
    );
    const link = /\/portal\/sign-in\/pl_[0-9A-Za-z]+/.exec(mail?.text ?? '')?.[0] as string;
    add('portal_link_token', link.slice(link.lastIndexOf('/') + 1));
    const portal = new FormAgent(injectOverHttp(server.url), 'portal');
    expect((await portal.get(link)).statusCode).toBe(200);
    expect((await portal.post(link, {}, { token: null })).statusCode).toBe(403);
    const signIn = await portal.post(link);
    expect(signIn.statusCode).toBe(303);
    const cookie = [signIn.headers['set-cookie']].flat().find((c) => c?.startsWith('ownproof_portal_session=')) as string;
    add('portal_session_token', /=(ps_[0-9A-Za-z]+)/.exec(cookie)?.[1] as string);
    expect((await portal.get(signIn.headers.location as string)).statusCode).toBe(200);
    expect((await portal.post('/portal/sign-out', {}, { token: 'forged' })).statusCode).toBe(403);
    csrfOf(portal);

    await receiver.waitFor(1);
    expect(await server.process.stop()).toBe(0);
    const stdout = server.process.output();
    // One of every kind of the list, each long enough to search for.
    expect(Object.keys(secrets).sort()).toEqual(Object.keys(SECRET_KINDS).sort());
    // Debug lines (every request) are there: the level was in force.
    expect(stdout).toContain('"level":20');
    for (const [kind, values] of Object.entries(secrets)) for (const value of values) expect(value.length, kind).toBeGreaterThanOrEqual(16);
    const leaked = Object.entries(secrets).flatMap(([kind, values]) =>
      values.filter((value) => stdout.includes(value)).map((value) => `${kind}: ${value.slice(0, 10)}…`),
    );
    expect(leaked).toEqual([]);
  });
});

/** The lines of a PEM key's body: a log that re-wraps the key would still carry them. */
function pemLines(pem: string): string[] {
  return pem.split('\n').filter((line) => line.length >= 16 && !line.startsWith('-----'));
}
