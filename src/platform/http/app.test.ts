import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollApiKey } from '../../clients/client.service.js';
import { engines } from '../../../test/support/database.js';
import { captureStream, startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';

describe.each(engines())('HTTP platform on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  const list = (headers: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: '/v1/connect/account_holders', headers });

  beforeAll(async () => {
    t = await startTestApp(engine);
    client = await t.newClient();
  });
  afterAll(() => t.close());

  describe('authentication', () => {
    it.each([
      ['no Authorization header', {}, 'api_key_missing'],
      ['an empty Authorization header', { authorization: '' }, 'api_key_missing'],
      ['Basic instead of Bearer', { authorization: 'Basic dXNlcjpwYXNz' }, 'api_key_malformed'],
      ['Bearer without a key', { authorization: 'Bearer ' }, 'api_key_malformed'],
      ['a key of the wrong shape', { authorization: 'Bearer pk_test_123' }, 'api_key_malformed'],
      ['a well-formed key nobody issued', { authorization: `Bearer sk_test_${'A'.repeat(32)}` }, 'api_key_invalid'],
    ])('answers 401 %s for %s', async (_label, headers, code) => {
      const res = await list(headers);
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toMatchObject({ type: 'authentication_error', code });
      expect(res.json().error.message).not.toMatch(/sk_test_A/);
    });

    it('accepts the key with any capitalisation of "Bearer"', async () => {
      expect((await list({ authorization: `bearer ${client.testKey}` })).statusCode).toBe(200);
    });

    it('answers 401 api_key_revoked for a key rolled without grace, and accepts the new key', async () => {
      const tenant = await t.newClient('Roll');
      const rolled = await rollApiKey(t.ctx, { clientId: tenant.clientId, mode: 'test', graceSeconds: 0 });
      const old = await list({ authorization: `Bearer ${tenant.testKey}` });
      expect(old.statusCode).toBe(401);
      expect(old.json().error.code).toBe('api_key_revoked');
      expect((await list({ authorization: `Bearer ${rolled.key}` })).statusCode).toBe(200);
      // The live key was not rolled.
      expect((await list({ authorization: `Bearer ${tenant.liveKey}` })).statusCode).toBe(200);
    });

    it('keeps a rolled key working through its grace period, then refuses it', async () => {
      const tenant = await t.newClient('Grace');
      await rollApiKey(t.ctx, { clientId: tenant.clientId, mode: 'live', graceSeconds: 3600 });
      expect((await list({ authorization: `Bearer ${tenant.liveKey}` })).statusCode).toBe(200);
      t.clock.advance(3601);
      const res = await list({ authorization: `Bearer ${tenant.liveKey}` });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('api_key_revoked');
    });
  });

  describe('request errors', () => {
    const post = (payload: string | Buffer, contentType?: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/connect/account_holders',
        headers: { authorization: `Bearer ${client.testKey}`, ...(contentType ? { 'content-type': contentType } : {}) },
        payload,
      });

    it('answers 400 invalid_json for malformed JSON', async () => {
      const res = await post('{"email": ', 'application/json');
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
    });

    it('refuses a __proto__ key as invalid JSON rather than risk prototype pollution', async () => {
      const res = await post('{"email":"a@example.com","__proto__":{"admin":true}}', 'application/json');
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_json');
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])('answers 415 for %s', async (type) => {
      const res = await post('email=a%40example.com', type);
      expect(res.statusCode).toBe(415);
      expect(res.json().error.code).toBe('unsupported_media_type');
    });

    it('accepts application/json with a charset', async () => {
      const res = await post(JSON.stringify({ email: 'charset@example.com' }), 'application/json; charset=utf-8');
      expect(res.statusCode).toBe(200);
    });

    it('answers 413 for a body over 1 MiB and creates nothing', async () => {
      const res = await post(JSON.stringify({ email: 'big@example.com', name: 'x'.repeat(1024 * 1024) }), 'application/json');
      expect(res.statusCode).toBe(413);
      expect(res.json().error.code).toBe('body_too_large');
    });

    it('answers an unknown route with a JSON 404 and an unsupported method with 405', async () => {
      const unknown = await t.call(client.testKey, { method: 'GET', url: '/v1/nothing-here' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error).toMatchObject({ code: 'route_not_found' });
      expect(unknown.headers['content-type']).toMatch(/application\/json/);
      const wrongMethod = await t.call(client.testKey, { method: 'DELETE', url: '/v1/connect/account_holders/ah_123' });
      expect(wrongMethod.statusCode).toBe(405);
      expect(wrongMethod.headers.allow).toBe('GET, POST');
    });
  });

  describe('every response', () => {
    it('carries a Request-Id that matches the error body', async () => {
      const ok = await t.call(client.testKey, { method: 'GET', url: '/v1/connect/account_holders' });
      expect(ok.headers['request-id']).toMatch(/^req_[0-9A-Za-z]{22}$/);
      const bad = await t.call(undefined, { method: 'GET', url: '/v1/connect/account_holders' });
      expect(bad.json().error.request_id).toBe(bad.headers['request-id']);
      expect(bad.headers['request-id']).not.toBe(ok.headers['request-id']);
    });

    it('carries security headers, including on errors', async () => {
      for (const res of [
        await t.call(client.testKey, { method: 'GET', url: '/v1/connect/account_holders' }),
        await t.call(undefined, { method: 'GET', url: '/nope' }),
      ]) {
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
        expect(res.headers['strict-transport-security']).toBeDefined();
        expect(res.headers['referrer-policy']).toBe('no-referrer');
      }
    });
  });

  describe('health', () => {
    it('answers /healthz and /readyz without authentication', async () => {
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ok' });
    });
  });
});

describe('unexpected failures', () => {
  it('answers 500 api_error with no internals and logs the details under the request id', async () => {
    const log = captureStream();
    const t = await startTestApp('sqlite', { config: { LOG_LEVEL: 'info' }, logStream: log.stream });
    t.app.get('/v1/explode', async () => {
      throw new Error('database password is hunter2 at /srv/secret/path.ts:12');
    });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/v1/explode' });
      expect(res.statusCode).toBe(500);
      const body = res.json();
      expect(body.error).toMatchObject({ type: 'api_error', code: 'api_error' });
      expect(res.body).not.toMatch(/hunter2|secret|\.ts|at /);
      const logged = log.lines.map((l) => JSON.parse(l)).find((entry) => entry.err);
      expect(logged.request_id).toBe(body.error.request_id);
      expect(logged.err.message).toContain('hunter2');
      expect(logged.err.stack).toContain('app.test.ts');
    } finally {
      await t.close();
    }
  });

  it('never writes API keys or their Authorization header into the log', async () => {
    const log = captureStream();
    const t = await startTestApp('sqlite', { config: { LOG_LEVEL: 'trace' }, logStream: log.stream });
    const key = `sk_test_${'Z'.repeat(32)}`;
    try {
      await t.app.inject({ method: 'GET', url: `/v1/connect/account_holders?starting_after=${key}`, headers: { authorization: `Bearer ${key}` } });
      expect(log.lines.length).toBeGreaterThan(0);
      expect(log.lines.join('\n')).not.toContain(key);
    } finally {
      await t.close();
    }
  });
});
