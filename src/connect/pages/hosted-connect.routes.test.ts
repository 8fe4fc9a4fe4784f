import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWallet } from '../../bitcoin/message/fixtures/signers.js';
import { withDescriptorChecksum } from '../../bitcoin/keys/index.js';
import { sandboxWallet } from '../../bitcoin/sandbox/sandbox-wallet.js';
import { sessionAccountRows } from '../account.repository.js';
import { EXTRA_EXCHANGES } from '../../../test/support/fake-providers.js';
import { engines } from '../../../test/support/database.js';
import { FormAgent } from '../../../test/support/form-agent.js';
import { createHostedSession, fetchSession } from '../../../test/support/browser-session.js';
import { captureStream, startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';

const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

describe.each(engines())('hosted connect pages on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;

  beforeAll(async () => {
    t = await startTestApp(engine);
    client = await t.newClient('Acme <Budget> & Co');
  });
  afterAll(() => t.close());

  /** A session and an agent that has accepted the disclaimer (the provider list is next). */
  async function consented(options: { returnUrl?: string; permissions?: string[] } = {}) {
    const { session, path } = await createHostedSession(t, client, options);
    const agent = new FormAgent(t.app, 'connect');
    await agent.get(path);
    const res = await agent.post(`${path}/consent`);
    expect(res.statusCode).toBe(303);
    return { session, path, agent };
  }

  async function connectSandbox(agent: FormAgent, path: string, username = 'user_good') {
    const res = await agent.post(`${path}/providers/sandbox`, { username, password: 'pass_good' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(path);
  }

  async function accountsOf(sessionId: string) {
    const res = await t.call(client.testKey, { method: 'GET', url: `/v1/connect/accounts?session=${sessionId}` });
    return res.json().data as { id: string; status: string; display_name: string }[];
  }

  describe('the disclaimer', () => {
    it('names the client and shows exactly the requested permissions with their meanings', async () => {
      const { path } = await createHostedSession(t, client, { permissions: ['balances', 'addresses'] });
      const res = await t.app.inject({ method: 'GET', url: path });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('<h1>Acme &lt;Budget&gt; &amp; Co wants to connect to your accounts</h1>');
      expect(res.body).toContain(
        'View current financial standings: available and current funds and overall value across currencies or assets.',
      );
      expect(res.body).toContain('View the account’s cryptocurrency addresses, where applicable to the account type.');
      expect(res.body).not.toContain('Retrieve transaction history.');
      expect(res.body).toMatch(/<form method="post" action="[^"]+\/consent">\s*<input type="hidden" name="_csrf" value="[^"]+">/);
      expect(res.body).toMatch(/<form method="post" action="[^"]+\/exit">\s*<input type="hidden" name="_csrf" value="[^"]+">/);
      expect(res.body).not.toContain('<Budget>');
    });

    it('is a complete document: language, viewport, no referrer, our stylesheet, no script', async () => {
      const { path } = await createHostedSession(t, client);
      const res = await t.app.inject({ method: 'GET', url: path });
      expect(res.body).toMatch(/^<!doctype html>\n<html lang="en">/);
      expect(res.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(res.body).toContain('<meta name="referrer" content="no-referrer">');
      expect(res.body).toMatch(/<link rel="stylesheet" href="\/connect\/assets\/web\.[0-9a-f]{12}\.css">/);
      expect(res.body).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
    });

    it('sends the page security headers and a CSRF cookie scoped to the pages', async () => {
      const { path } = await createHostedSession(t, client);
      const res = await t.app.inject({ method: 'GET', url: path });
      expect(res.headers['content-security-policy']).toBe(PAGE_CSP);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
      expect(res.headers['strict-transport-security']).toMatch(/^max-age=/);
      const cookie = String(res.headers['set-cookie']);
      expect(cookie).toMatch(/^ownproof_connect_csrf=[^;]+; Path=\/connect; HttpOnly; SameSite=Lax$/);
    });

    it('lets the return URL origin into form-action, so the redirect after a form is allowed', async () => {
      const { path } = await createHostedSession(t, client, { returnUrl: 'https://client.example:8443/done?x=1' });
      const res = await t.app.inject({ method: 'GET', url: path });
      expect(res.headers['content-security-policy']).toContain("form-action 'self' https://client.example:8443;");
      const custom = await createHostedSession(t, client, { returnUrl: 'myapp://done' });
      expect((await t.app.inject({ method: 'GET', url: custom.path })).headers['content-security-policy']).toBe(PAGE_CSP);
    });
  });

  describe('links that do not lead to an open session', () => {
    it('answers 404 with one and the same page for malformed, unknown and other-mode secrets', async () => {
      const urls = [
        '/connect/nonsense',
        `/connect/cs_test_${'A'.repeat(32)}`,
        `/connect/cs_live_${'b'.repeat(32)}`,
        `/connect/cs_test_${'A'.repeat(31)}%3C`,
        // Longer than Fastify's router takes by default, and not valid percent-encoding: both used
        // to be refused by the router with a JSON error of its own.
        `/connect/cs_test_${'A'.repeat(300)}`,
        `/connect/cs_test_${'A'.repeat(30)}%E0%A4%A`,
      ];
      const bodies = new Set<string>();
      for (const url of urls) {
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(404);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.headers['content-security-policy']).toBe(PAGE_CSP);
        expect(res.headers['set-cookie']).toBeUndefined();
        bodies.add(res.body);
      }
      expect(bodies.size).toBe(1);
      expect([...bodies][0]).toContain('This link isn’t valid');
    });

    it('renders the HTML 404 page for unknown paths under the prefix, while the API keeps its JSON 404', async () => {
      for (const url of ['/connect', '/connect/', '/connect/a/b/c', `/connect/cs_test_${'A'.repeat(32)}/nope`]) {
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(404);
        expect(res.body, url).toContain('This link isn’t valid');
      }
      const api = await t.app.inject({ method: 'GET', url: '/v1/nope' });
      expect(api.statusCode).toBe(404);
      expect(api.json().error.code).toBe('route_not_found');
    });

    it('tells whoever opens the link again after Done that they are done, naming nobody and nothing shared', async () => {
      const completed = await consented({ returnUrl: 'https://client.example/done' });
      await connectSandbox(completed.agent, completed.path);
      expect((await completed.agent.post(`${completed.path}/finish`)).statusCode).toBe(303);
      // The link again (the back button, a reload, a bookmark), and Done pressed a second time.
      for (const res of [
        await t.app.inject({ method: 'GET', url: completed.path }),
        await completed.agent.post(`${completed.path}/finish`),
      ]) {
        expect(res.statusCode).toBe(200);
        expect(res.headers.location).toBeUndefined();
        expect(res.body).toContain('<h1>You’re done</h1>');
        expect(res.body).toContain('You can close this tab, or go back to the app or website that sent you here.');
        expect(res.body).not.toContain('expired');
        // Only the session's status: no client name, no account, no return URL.
        expect(res.body).not.toMatch(/Acme|Sandbox Exchange|client\.example/);
      }
    });

    it('answers 410 with one page, naming nobody, for cancelled and expired sessions', async () => {
      const cancelled = await consented();
      expect((await cancelled.agent.post(`${cancelled.path}/exit`)).statusCode).toBe(200);
      const expired = await consented();
      t.clock.advance(t.ctx.config.sessionTtlSeconds + 1);

      const bodies = new Set<string>();
      for (const { path } of [cancelled, expired]) {
        const res = await t.app.inject({ method: 'GET', url: path });
        expect(res.statusCode).toBe(410);
        expect(res.body).not.toContain('Acme');
        bodies.add(res.body);
      }
      expect(bodies.size).toBe(1);
      expect([...bodies][0]).toContain('This link has expired');
    });

    it('answers 410 to a form posted to a session that has ended, and changes nothing', async () => {
      const { session, path, agent } = await consented({ returnUrl: 'https://client.example/done' });
      expect((await agent.post(`${path}/exit`)).statusCode).toBe(303);
      for (const action of ['consent', 'finish', 'exit', 'providers/sandbox']) {
        const res = await agent.post(`${path}/${action}`, { username: 'user_good', password: 'pass_good' });
        expect(res.statusCode, action).toBe(410);
        expect(res.headers.location, action).toBeUndefined();
      }
      expect(await accountsOf(session.id)).toEqual([]);
    });
  });

  describe('CSRF protection', () => {
    it.each([
      ['no token', { token: null }],
      ['a wrong token', { token: 'x-y' }],
      ['no cookie', { csrfCookie: null }],
      ['another browser’s cookie', { csrfCookie: 'AAAAAAAAAAAAAAAAAAAAAAAA' }],
    ])('refuses a form with %s: 403 page, nothing changes', async (_label, options) => {
      const { session, path } = await createHostedSession(t, client, { returnUrl: 'https://client.example/done' });
      const agent = new FormAgent(t.app, 'connect');
      await agent.get(path);
      for (const action of ['consent', 'exit']) {
        const res = await agent.post(`${path}/${action}`, {}, options);
        expect(res.statusCode, action).toBe(403);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.body).toContain('Your request couldn’t be verified');
        expect(res.headers.location).toBeUndefined();
      }
      expect((await fetchSession(t, client.testKey, session.id)).status).toBe('open');
      // Still on the disclaimer: the consent was not recorded.
      expect((await agent.get(path)).body).toContain('wants to connect to your accounts');
    });

    it('refuses a credential form without a token and connects nothing', async () => {
      const { session, path, agent } = await consented();
      const res = await agent.post(`${path}/providers/sandbox`, { username: 'user_good', password: 'pass_good' }, { token: null });
      expect(res.statusCode).toBe(403);
      expect(await accountsOf(session.id)).toEqual([]);
    });
  });

  describe('the steps', () => {
    it('records consent and moves on to the provider list, which is also the start page until something is connected', async () => {
      const { session, path, agent } = await consented();
      const providers = await agent.get(`${path}/providers`);
      expect(providers.statusCode).toBe(200);
      expect(providers.body).toContain('Where are your assets held?');
      expect(providers.body).toContain(`href="${path}/providers/sandbox"`);
      expect(providers.body).toContain('Sandbox Exchange');
      expect(providers.body).toContain(`href="${path}/providers/bitcoin"`);
      expect(providers.body).toContain('Bitcoin wallet (self-custody)');
      // Two providers: no search box.
      expect(providers.body).not.toContain('name="q"');
      expect((await agent.get(path)).body).toContain('Where are your assets held?');
      expect((await fetchSession(t, client.testKey, session.id)).status).toBe('open');
    });

    it('sends a browser that skipped the disclaimer back to it', async () => {
      const { path } = await createHostedSession(t, client);
      const agent = new FormAgent(t.app, 'connect');
      await agent.get(path);
      for (const url of [`${path}/providers`, `${path}/providers/sandbox`]) {
        const res = await agent.get(url);
        expect(res.statusCode, url).toBe(303);
        expect(res.headers.location).toBe(path);
      }
      for (const action of ['providers/sandbox', 'finish']) {
        const res = await agent.post(`${path}/${action}`, { username: 'user_good', password: 'pass_good' });
        expect(res.statusCode, action).toBe(303);
        expect(res.headers.location).toBe(path);
      }
    });

    it('builds the credential form from the provider’s fields and shows its instructions', async () => {
      const { path, agent } = await consented();
      const res = await agent.get(`${path}/providers/sandbox`);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<label for="field-username">Username</label>');
      expect(res.body).toMatch(/<input id="field-username" name="username" type="text" value="" autocomplete="username"/);
      expect(res.body).toMatch(/<input id="field-password" name="password" type="password" value="" autocomplete="current-password"/);
      expect(res.body).toContain('Sign in with username user_good and password pass_good.');
    });

    it('shows a failed login at the top, keeps the username and never echoes the password', async () => {
      const { session, path, agent } = await consented();
      const res = await agent.post(`${path}/providers/sandbox`, { username: 'user_bad', password: 'secret-pw-123' });
      expect(res.statusCode).toBe(422);
      expect(res.body).toMatch(/<div class="error-summary" role="alert"[^>]*>[\s\S]*The username or password is incorrect\./);
      expect(res.body).toContain('<title>Error: Connect Sandbox Exchange · ownproof</title>');
      expect(res.body).toContain('value="user_bad"');
      expect(res.body).not.toContain('secret-pw-123');
      expect(res.body).toMatch(/name="_csrf" value="[^"]+"/);
      expect(await accountsOf(session.id)).toEqual([]);
    });

    it('links a field error to its field with aria-describedby and aria-invalid', async () => {
      const { path, agent } = await consented();
      const res = await agent.post(`${path}/providers/sandbox`, { username: '  ', password: 'x' });
      expect(res.statusCode).toBe(422);
      expect(res.body).toContain('<a href="#field-username">Enter your username.</a>');
      expect(res.body).toContain(
        '<span class="error-message" id="field-username-error"><span class="visually-hidden">Error:</span> Enter your username.</span>',
      );
      expect(res.body).toMatch(/<input id="field-username" name="username" aria-describedby="field-username-error" aria-invalid="true"/);
    });

    it('answers 503 with the provider’s message when the provider is down', async () => {
      const { path, agent } = await consented();
      const res = await agent.post(`${path}/providers/sandbox`, { username: 'user_outage', password: 'x' });
      expect(res.statusCode).toBe(503);
      expect(res.body).toContain('Sandbox Exchange is not responding right now (simulated outage). Please try again later.');
      expect(res.body).toContain('value="user_outage"');
    });

    it('never writes a rejected wallet value back into the page (it may be a seed phrase)', async () => {
      const { path, agent } = await consented();
      const phrase = 'abandon ability able about above absent absorb abstract absurd abuse access accident';
      const res = await agent.post(`${path}/providers/bitcoin`, { wallet: phrase });
      expect(res.statusCode).toBe(422);
      expect(res.body).toContain('This looks like a private key or seed phrase.');
      expect(res.body).not.toContain('absorb abstract');
      expect(res.body).toMatch(
        /<textarea id="field-wallet" name="wallet" aria-describedby="field-wallet-hint field-wallet-error" aria-invalid="true"[^>]*><\/textarea>/,
      );
    });

    it('names a mainnet wallet in test mode by what was typed: an address is not called a descriptor', async () => {
      const { path, agent } = await consented();
      // BIP-32's first test vector: a mainnet extended public key.
      const xpub = 'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8';
      const cases = [
        [makeWallet('p2wpkh', 'mainnet').address, 'This is a mainnet address; test mode needs a test-network one.'],
        [xpub, 'This is a mainnet extended public key; test mode needs a test-network one.'],
        [withDescriptorChecksum(`wpkh(${xpub}/<0;1>/*)`) as string, 'This is a mainnet descriptor; test mode needs a test-network one.'],
      ] as const;
      for (const [wallet, message] of cases) {
        const res = await agent.post(`${path}/providers/bitcoin`, { wallet });
        expect(res.statusCode, wallet).toBe(422);
        expect(res.body, wallet).toContain(message);
      }
    });

    it('connects the sandbox wallet by descriptor and lists it with the accounts so far', async () => {
      const { session, path, agent } = await consented();
      const res = await agent.post(`${path}/providers/bitcoin`, { wallet: sandboxWallet().descriptor });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(path);
      await connectSandbox(agent, path, 'user_multi');
      const page = await agent.get(path);
      expect(page.body).toContain('You’ve connected 3 accounts');
      expect(page.body).toContain('Bitcoin wallet (native segwit)');
      expect(page.body).toContain('Sandbox Exchange — Savings');
      expect(page.body).toContain(`action="${path}/finish"`);
      expect(page.body).toContain(`href="${path}/providers"`);
      // Not handed over yet: the API shows a session's accounts once it is completed.
      expect(await accountsOf(session.id)).toEqual([]);
      expect((await fetchSession(t, client.testKey, session.id)).accounts).toEqual([]);
      expect((await agent.post(`${path}/finish`)).statusCode).toBe(200);
      const accounts = await accountsOf(session.id);
      expect(accounts.map((a) => a.display_name).sort()).toEqual([
        'Bitcoin wallet (native segwit)',
        'Sandbox Exchange — Savings',
        'Sandbox Exchange — Spot',
      ]);
      expect((await fetchSession(t, client.testKey, session.id)).accounts.sort()).toEqual(accounts.map((a) => a.id).sort());
    });

    it('shows a friendly 404 inside the flow for a provider this mode does not offer', async () => {
      const { path, agent } = await consented();
      for (const res of [await agent.get(`${path}/providers/kraken`), await agent.post(`${path}/providers/kraken`, { api_key: 'x' })]) {
        expect(res.statusCode).toBe(404);
        expect(res.body).toContain('This provider isn’t available');
        expect(res.body).toContain(`href="${path}/providers"`);
      }
    });
  });

  describe('finishing and leaving', () => {
    it('completes with Done and, without a return_url, says the tab can be closed', async () => {
      const { session, path, agent } = await consented();
      await connectSandbox(agent, path);
      const res = await agent.post(`${path}/finish`);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('You’re all set');
      expect(res.body).toContain('1 account shared with Acme &lt;Budget&gt; &amp; Co.');
      expect(res.body).toContain('You can close this tab now.');
      const done = await fetchSession(t, client.testKey, session.id);
      expect(done.status).toBe('completed');
      expect(done.accounts).toHaveLength(1);
      expect(done.account_ids).toEqual(done.accounts);
    });

    it('redirects Done to the return_url with exactly session_id and status added', async () => {
      const { session, path, agent } = await consented({ returnUrl: 'https://client.example/done?ref=a%20b' });
      await connectSandbox(agent, path);
      const res = await agent.post(`${path}/finish`);
      expect(res.statusCode).toBe(303);
      const location = new URL(String(res.headers.location));
      expect(`${location.origin}${location.pathname}`).toBe('https://client.example/done');
      expect([...location.searchParams]).toEqual([
        ['ref', 'a b'],
        ['session_id', session.id],
        ['status', 'completed'],
      ]);
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('does not complete a session with nothing connected: back to the provider list', async () => {
      const { session, path, agent } = await consented({ returnUrl: 'https://client.example/done' });
      const res = await agent.post(`${path}/finish`);
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(path);
      expect((await fetchSession(t, client.testKey, session.id)).status).toBe('open');
    });

    it('abandons on Cancel and redirects with status=abandoned', async () => {
      const { session, path } = await createHostedSession(t, client, { returnUrl: 'https://client.example/back' });
      const agent = new FormAgent(t.app, 'connect');
      await agent.get(path);
      const res = await agent.post(`${path}/exit`);
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(`https://client.example/back?session_id=${session.id}&status=abandoned`);
      expect((await fetchSession(t, client.testKey, session.id)).status).toBe('abandoned');
    });

    it('abandons on Cancel after connecting: the accounts are disconnected and nothing is shared', async () => {
      const { session, path, agent } = await consented();
      await connectSandbox(agent, path);
      const res = await agent.post(`${path}/exit`);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('Connection cancelled');
      expect(res.body).toContain('You can close this tab now.');
      const abandoned = await fetchSession(t, client.testKey, session.id);
      expect(abandoned.status).toBe('abandoned');
      expect(abandoned.accounts).toEqual([]);
      // The API never shows accounts of an abandoned session; underneath they are disconnected.
      expect(await accountsOf(session.id)).toEqual([]);
      expect((await sessionAccountRows(t.ctx.db, session.id)).map((a) => a.status)).toEqual(['disconnected']);
    });

    it('offers a link, not a redirect, to an app-scheme return_url', async () => {
      const { session, path, agent } = await consented({ returnUrl: 'myapp://connect/done' });
      await connectSandbox(agent, path);
      const res = await agent.post(`${path}/finish`);
      expect(res.statusCode).toBe(200);
      expect(res.headers.location).toBeUndefined();
      expect(res.body).toContain(
        `<a class="button" href="myapp://connect/done?session_id=${session.id}&amp;status=completed">Return to Acme &lt;Budget&gt; &amp; Co</a>`,
      );
    });

    it('shows the expired page once the session timed out, and the API says abandoned', async () => {
      const { session, path } = await createHostedSession(t, client);
      const agent = new FormAgent(t.app, 'connect');
      await agent.get(path);
      t.clock.advance(3601);
      const res = await agent.post(`${path}/consent`);
      expect(res.statusCode).toBe(410);
      expect((await agent.get(path)).statusCode).toBe(410);
      expect((await fetchSession(t, client.testKey, session.id)).status).toBe('abandoned');
    });
  });

  describe('requests the pages do not accept', () => {
    it('answers a JSON body with the HTML 415 page, while the API still refuses form bodies', async () => {
      const { path } = await createHostedSession(t, client);
      const res = await t.app.inject({
        method: 'POST',
        url: `${path}/consent`,
        headers: { 'content-type': 'application/json' },
        payload: '{"_csrf":"x"}',
      });
      expect(res.statusCode).toBe(415);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      const api = await t.app.inject({
        method: 'POST',
        url: '/v1/connect/account_holders',
        headers: { authorization: `Bearer ${client.testKey}`, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'email=a%40example.com',
      });
      expect(api.statusCode).toBe(415);
    });

    it('keeps the pages out of the OpenAPI document', async () => {
      const spec = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
      expect(Object.keys(spec.paths).filter((p) => p.startsWith('/connect'))).toEqual([]);
    });

    it('serves the stylesheet with a long cache lifetime, and nothing else under assets', async () => {
      const { path } = await createHostedSession(t, client);
      const href = /<link rel="stylesheet" href="([^"]+)">/.exec((await t.app.inject({ method: 'GET', url: path })).body)?.[1] as string;
      const css = await t.app.inject({ method: 'GET', url: href });
      expect(css.statusCode).toBe(200);
      expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
      expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect((await t.app.inject({ method: 'GET', url: '/connect/assets/other.css' })).statusCode).toBe(404);
    });
  });
});

describe('hosted connect pages with a long provider list', () => {
  let t: TestApp;
  let client: TestClient;
  const extra = EXTRA_EXCHANGES;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { seams: { extraProviders: { test: extra } } });
    client = await t.newClient();
  });
  afterAll(() => t.close());

  async function providerPage(query?: string) {
    const { path } = await createHostedSession(t, client);
    const agent = new FormAgent(t.app, 'connect');
    await agent.get(path);
    await agent.post(`${path}/consent`);
    return { path, res: await agent.get(`${path}/providers${query === undefined ? '' : `?q=${encodeURIComponent(query)}`}`) };
  }

  it('offers a search box (a GET form) above six providers', async () => {
    const { path, res } = await providerPage();
    expect(res.body).toContain(`<form class="search" method="get" action="${path}/providers" role="search">`);
    expect(res.body).toContain('<label for="provider-search">Search providers</label>');
    expect(res.body.match(/class="provider-link"/g)).toHaveLength(8);
  });

  it('filters by name and description, ignoring case and accents', async () => {
    const { res } = await providerPage('BÎT');
    const names = [...res.body.matchAll(/<span class="provider-name">([^<]+)<\/span>/g)].map((m) => m[1]);
    expect(names).toEqual(['Bitcoin wallet (self-custody)', 'Bitstamp', 'Bitfinex', 'Bitpanda']);
    expect(res.body).toContain('4 providers match “BÎT”.');
    expect((await providerPage('self custody watch')).res.body).toContain('1 provider matches');
  });

  it('says when nothing matches, and escapes the query', async () => {
    const { path, res } = await providerPage('<img src=x>');
    expect(res.body).toContain('No provider matches “&lt;img src=x&gt;”.');
    expect(res.body).toContain('value="&lt;img src=x&gt;"');
    expect(res.body).not.toContain('<img src=x>');
    expect(res.body).toContain(`<a href="${path}/providers">Show all providers</a>`);
  });
});

describe('hosted connect pages under other connect base URLs', () => {
  it('serves the pages at the root of a connect host of their own, with a Secure cookie', async () => {
    const t = await startTestApp('sqlite', { config: { CONNECT_BASE_URL: 'https://connect.example.com/' } });
    try {
      const client = await t.newClient();
      const { session, path } = await createHostedSession(t, client);
      expect(session.hosted_url).toBe(`https://connect.example.com/${session.client_secret}`);
      const res = await t.app.inject({ method: 'GET', url: path });
      expect(res.statusCode).toBe(200);
      expect(res.body).toMatch(/<link rel="stylesheet" href="\/assets\/web\.[0-9a-f]{12}\.css">/);
      expect(String(res.headers['set-cookie'])).toMatch(/^__Secure-ownproof_connect_csrf=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
      // A form sent back with that cookie and its token goes through.
      const agent = new FormAgent(t.app, 'connect');
      await agent.get(path);
      expect(agent.csrfCookieName).toBe('__Secure-ownproof_connect_csrf');
      expect((await agent.post(`${path}/consent`)).statusCode).toBe(303);
      expect((await t.app.inject({ method: 'GET', url: `/cs_test_${'A'.repeat(32)}` })).statusCode).toBe(404);
      // The API's own not-found answer is untouched.
      expect((await t.app.inject({ method: 'GET', url: '/v1/nope' })).json().error.code).toBe('route_not_found');
    } finally {
      await t.close();
    }
  });

  it('serves the pages under a nested path', async () => {
    const t = await startTestApp('sqlite', { config: { CONNECT_BASE_URL: 'https://example.com/flows/connect' } });
    try {
      const client = await t.newClient();
      const { path } = await createHostedSession(t, client);
      expect(path.startsWith('/flows/connect/cs_test_')).toBe(true);
      const res = await t.app.inject({ method: 'GET', url: path });
      expect(res.statusCode).toBe(200);
      expect(String(res.headers['set-cookie'])).toContain('Path=/flows/connect;');
      expect((await t.app.inject({ method: 'GET', url: '/flows/connect/x/y' })).body).toContain('This link isn’t valid');
    } finally {
      await t.close();
    }
  });
});

describe('hosted connect logging', () => {
  it('never writes the client secret into the log, whatever the outcome of the request', async () => {
    const log = captureStream();
    const t = await startTestApp('sqlite', { config: { LOG_LEVEL: 'trace' }, logStream: log.stream });
    try {
      const client = await t.newClient();
      const { session, path } = await createHostedSession(t, client, { returnUrl: 'https://client.example/done' });
      const agent = new FormAgent(t.app, 'connect');
      await agent.get(path);
      await agent.post(`${path}/consent`, {}, { token: null });
      await agent.post(`${path}/consent`);
      await agent.post(`${path}/providers/sandbox`, { username: 'user_bad', password: 'pass_good' });
      await agent.post(`${path}/providers/sandbox`, { username: 'user_good', password: 'pass_good' });
      await agent.get(`${path}/nope`);
      await agent.post(`${path}/finish`);
      await agent.get(path);
      const text = log.lines.join('\n');
      expect(text).toContain('cs_test_[redacted]');
      expect(text).not.toContain(session.client_secret);
      expect(text).not.toContain('pass_good');
    } finally {
      await t.close();
    }
  });
});
