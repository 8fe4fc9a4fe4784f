import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { snapshotDatabase } from '../../../test/support/db-snapshot.js';
import {
  startFakeCoinbaseOAuth,
  OAUTH_CLIENT_ID,
  OAUTH_CLIENT_SECRET,
  type FakeCoinbaseOAuth,
} from '../../../test/support/fake-coinbase-oauth.js';
import { pointExchangeAt } from '../../../test/support/exchange-overrides.js';
import { startFakeCoinbase, type FakeCoinbase } from '../../../test/support/fake-coinbase.js';
import { liveExchangeSteps } from '../../../test/support/live-exchange.js';
import { captureStream, startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { OAUTH_ATTEMPT_TTL_SECONDS } from './oauth-sign-in.service.js';

/**
 * "Sign in with Coinbase" in live mode, end to end through the hosted pages (with a form agent;
 * the browser test drives it in Chromium): a real OAuth 2 server on 127.0.0.1 behaving as
 * Coinbase's (test/support/fake-coinbase-oauth.ts), and the local fake Coinbase taking its tokens.
 */
describe.each(engines())('Sign in with Coinbase on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  let coinbase: FakeCoinbase;
  let oauth: FakeCoinbaseOAuth;
  const log = captureStream();
  const { consented, session, refresh, call } = liveExchangeSteps(
    () => t,
    () => client,
  );

  beforeAll(async () => {
    coinbase = await startFakeCoinbase();
    oauth = await startFakeCoinbaseOAuth(coinbase);
    t = await startTestApp(engine, {
      config: { LOG_LEVEL: 'trace', OAUTH_COINBASE_CLIENT_ID: OAUTH_CLIENT_ID, OAUTH_COINBASE_CLIENT_SECRET: OAUTH_CLIENT_SECRET },
      logStream: log.stream,
      seams: {
        exchangeOverrides: { coinbase: pointExchangeAt('coinbase', coinbase.url) },
        oauthServerOverrides: { coinbase: oauth.server },
      },
    });
    client = await t.newClient();
  });
  afterAll(async () => {
    await t?.close();
    await oauth?.close();
    await coinbase?.close();
  });

  /** Clicks "Sign in with Coinbase"; returns the authorization URL and where the server sends the browser back. */
  async function signIn(path: string, agent: Awaited<ReturnType<typeof consented>>['agent']) {
    const start = await agent.post(`${path}/providers/coinbase/oauth`);
    expect(start.statusCode, start.body).toBe(303);
    const authorize = new URL(start.headers.location as string);
    const back = await fetch(authorize, { redirect: 'manual' });
    expect(back.status).toBe(302);
    const callback = new URL(back.headers.get('location') as string);
    return { authorize, callback: `${callback.pathname}${callback.search}` };
  }

  it('signs in at Coinbase (PKCE, state), connects the account and refreshes it with the token', async () => {
    const signedIn = coinbase.addAccount({
      wallets: [{ uuid: '8bfc20d7-f7c6-4422-bf07-8243ca4169fe', currency: 'BTC', available: '0.50000000', hold: '0', transactions: [] }],
    });
    oauth.signInAs(signedIn);
    const { session: created, path, agent } = await consented();
    const page = await agent.get(`${path}/providers/coinbase`);
    expect(page.body).toContain('Sign in with Coinbase</button>');
    // The button's form is redirected on to Coinbase: the page's CSP must allow that origin.
    expect(page.headers['content-security-policy']).toContain(`form-action 'self' ${oauth.issuer}`);

    const { authorize, callback } = await signIn(path, agent);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: OAUTH_CLIENT_ID,
      redirect_uri: `${t.ctx.config.connectBaseUrl}/oauth/callback`,
      scope: 'wallet:accounts:read wallet:transactions:read wallet:addresses:read wallet:user:read',
      code_challenge_method: 'S256',
    });
    expect(authorize.searchParams.get('state')).toMatch(/^[\w-]{43}$/);
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    // The return carries no cookie of ours (an in-app webview may not keep one): a fresh agent.
    const back = await t.app.inject({ method: 'GET', url: callback });
    expect(back.statusCode, back.body).toBe(303);
    expect(back.headers.location).toBe(path);
    // The code was traded with the PKCE verifier (the server checked it against the challenge).
    expect(oauth.tokenRequests.at(-1)).toMatchObject({
      grant_type: 'authorization_code',
      code_verifier: expect.stringMatching(/^[\w-]{43}$/),
    });
    // A second return with the same state connects nothing more.
    const replay = await t.app.inject({ method: 'GET', url: callback });
    expect(replay.statusCode).toBe(410);
    expect(replay.body).toContain('This sign-in can’t be used');

    expect((await agent.post(`${path}/finish`)).statusCode).toBe(200);
    const [accountId] = (await session(created.id)).accounts as [string];
    const account = await refresh(accountId, ['balances']);
    expect(account).toMatchObject({ display_name: 'Coinbase (signed in)', status: 'active', balance_refresh: { status: 'succeeded' } });
    const balances = (await call('GET', `/v1/connect/accounts/${accountId}/balances`)).json().data;
    expect(balances).toEqual([expect.objectContaining({ asset: 'BTC', total: '0.5', available: '0.5' })]);

    // An hour on, the access token is renewed first; the rotated refresh token is stored, so the
    // next renewal (which the server would refuse with the old one) works too.
    for (let round = 0; round < 2; round++) {
      t.clock.advance(3600);
      const before = oauth.tokenRequests.length;
      expect(await refresh(accountId, ['balances'])).toMatchObject({ status: 'active', balance_refresh: { status: 'succeeded' } });
      expect(oauth.tokenRequests.slice(before)).toEqual([expect.objectContaining({ grant_type: 'refresh_token' })]);
    }

    // Nothing of the grant is readable in the logs or the database.
    const tokens = oauth.tokenRequests
      .flatMap((body) => [body.code, body.code_verifier, body.refresh_token])
      .filter((v): v is string => typeof v === 'string');
    const dump = [...(await snapshotDatabase(t.ctx.db, [])).values()].join('\n');
    const logs = log.lines.join('\n');
    for (const secret of [
      ...tokens,
      ...oauth.liveRefreshTokens.keys(),
      OAUTH_CLIENT_SECRET,
      authorize.searchParams.get('state') as string,
    ]) {
      expect(dump.includes(secret), 'database').toBe(false);
      expect(logs.includes(secret), 'logs').toBe(false);
    }

    // Disconnecting revokes the grant at Coinbase.
    const live = [...oauth.liveRefreshTokens.entries()].find(([, key]) => key === signedIn.key)?.[0];
    expect((await call('POST', `/v1/connect/accounts/${accountId}/disconnect`)).statusCode).toBe(200);
    expect(oauth.revoked).toContain(live);
  });

  it('marks the account requires_reauth when Coinbase ended the grant', async () => {
    const signedIn = coinbase.addAccount({ wallets: [] });
    oauth.signInAs(signedIn);
    const { session: created, path, agent } = await consented();
    const { callback } = await signIn(path, agent);
    expect((await t.app.inject({ method: 'GET', url: callback })).statusCode).toBe(303);
    expect((await agent.post(`${path}/finish`)).statusCode).toBe(200);
    const [accountId] = (await session(created.id)).accounts as [string];
    for (const [token, key] of oauth.liveRefreshTokens) if (key === signedIn.key) oauth.liveRefreshTokens.delete(token);
    t.clock.advance(3600);
    expect(await refresh(accountId, ['balances'])).toMatchObject({
      status: 'requires_reauth',
      balance_refresh: {
        status: 'failed',
        error: { code: 'reauthentication_required', message: 'The sign-in with Coinbase ended: the account holder must connect again.' },
      },
    });
  });

  it('says so when the person declines at Coinbase, and refuses a return older than ten minutes', async () => {
    oauth.signInAs(coinbase.addAccount({ wallets: [] }));
    const { path, agent } = await consented();
    oauth.declineNext();
    const declined = await t.app.inject({ method: 'GET', url: (await signIn(path, agent)).callback });
    expect(declined.statusCode).toBe(422);
    expect(declined.body).toContain('You did not allow access at Coinbase. Sign in again and choose Allow, or use an API key.');
    expect(declined.body).toContain('Sign in with Coinbase</button>');

    const { callback } = await signIn(path, agent);
    t.clock.advance(OAUTH_ATTEMPT_TTL_SECONDS + 1);
    const late = await t.app.inject({ method: 'GET', url: callback });
    expect(late.statusCode).toBe(410);
    const unknown = await t.app.inject({ method: 'GET', url: '/connect/oauth/callback?state=made-up&code=x' });
    expect(unknown.statusCode).toBe(410);
  });
});
