import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollApiKey } from '../../clients/client.service.js';
import { engines } from '../../../test/support/database.js';
import { eventually } from '../../../test/support/eventually.js';
import { rawConnection, rawExchange, type RawResponse } from '../../../test/support/raw-http.js';
import { captureStream, startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';

describe.each(engines())('HTTP platform on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  const list = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/v1/connect/account_holders', headers });

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

    // Other JSON-based types carry other semantics (a merge patch deletes with null, JSON:API wraps
    // the object in `data`): taking them as our plain JSON would apply a request the client did not mean.
    it.each(['application/merge-patch+json', 'application/vnd.api+json', 'application/json-patch+json'])(
      'answers 415 for %s, a JSON type that is not application/json',
      async (type) => {
        const res = await post(JSON.stringify({ email: 'suffix@example.com' }), type);
        expect(res.statusCode).toBe(415);
        expect(res.json().error.code).toBe('unsupported_media_type');
      },
    );

    it.each(['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset="UTF-8"'])('accepts %s', async (type) => {
      const res = await post(JSON.stringify({ email: 'charset@example.com' }), type);
      expect(res.statusCode).toBe(200);
    });

    it('answers 415 for JSON declared in a charset other than UTF-8, instead of misreading it', async () => {
      const res = await post(
        Buffer.from('{"email":"latin@example.com","name":"Zo\xeb"}', 'latin1'),
        'application/json; charset=iso-8859-1',
      );
      expect(res.statusCode).toBe(415);
      expect(res.json().error.code).toBe('unsupported_media_type');
    });

    it('answers 400 invalid_json for a body that is not UTF-8, instead of storing mangled text', async () => {
      const res = await post(Buffer.from('{"email":"latin@example.com","name":"Zo\xeb"}', 'latin1'), 'application/json');
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_json');
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

    // The router refuses these before any route or hook of ours runs.
    it.each(['/v1/connect/account_holders/ah_%E0%A4%A', '/v1/connect/account_holders/%E0', '/v1/%zz'])(
      'answers %s, a path that is not valid percent-encoding, with the JSON 404 and the usual headers',
      async (url) => {
        const res = await t.call(client.testKey, { method: 'GET', url });
        expect(res.statusCode).toBe(404);
        expect(res.json().error).toMatchObject({
          type: 'invalid_request_error',
          code: 'route_not_found',
          request_id: res.headers['request-id'],
        });
        expect(res.headers['request-id']).toMatch(/^req_/);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      },
    );
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
      await t.app.inject({
        method: 'GET',
        url: `/v1/connect/account_holders?starting_after=${key}`,
        headers: { authorization: `Bearer ${key}` },
      });
      expect(log.lines.length).toBeGreaterThan(0);
      expect(log.lines.join('\n')).not.toContain(key);
    } finally {
      await t.close();
    }
  });
});

/**
 * Requests Node's HTTP parser refuses never reach Fastify: they are answered on the raw socket.
 * `inject` cannot send broken framing, so these go over a real connection.
 */
describe('requests that are not valid HTTP', () => {
  let t: TestApp;
  let port: number;
  const log = captureStream();

  beforeAll(async () => {
    t = await startTestApp('sqlite', { config: { LOG_LEVEL: 'trace' }, logStream: log.stream });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  /** Our error shape, with the headers every API response carries, on a connection we close. */
  function expectApiError(res: RawResponse | undefined, status: number, code: string) {
    expect(res?.status).toBe(status);
    const body = JSON.parse(res?.body ?? '') as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code, request_id: res?.headers['request-id'] });
    expect(res?.headers['request-id']).toMatch(/^req_[0-9A-Za-z]{22}$/);
    expect(res?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res?.headers.connection).toBe('close');
    expect(res?.headers['x-content-type-options']).toBe('nosniff');
    expect(res?.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res?.headers['strict-transport-security']).toBeDefined();
    expect(res?.headers['referrer-policy']).toBe('no-referrer');
  }

  const post = (headers: string, body = '') => `POST /v1/connect/account_holders HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n${body}`;

  it.each([
    // The bytes after the declared length are read as the next request, which is not one.
    [
      'a Content-Length shorter than the body',
      post('Content-Type: application/json\r\nContent-Length: 2\r\n', '{}{"email":"a@example.com"}'),
    ],
    ['a header name with a space', 'GET /v1/connect/account_holders HTTP/1.1\r\nHost: localhost\r\nBad Header: 1\r\n\r\n'],
    ['Content-Length and Transfer-Encoding together', post('Content-Length: 5\r\nTransfer-Encoding: chunked\r\n', '0\r\n\r\n')],
    ['a Content-Length that is not a number', post('Content-Type: application/json\r\nContent-Length: abc\r\n', '{}')],
  ])('answers 400 request_malformed in our error shape for %s, and closes the connection', async (_label, bytes) => {
    const { responses, closedByServer } = await rawExchange(port, bytes);
    expect(responses.length).toBeGreaterThan(0);
    // Anything answered before the broken part is our error shape too.
    for (const res of responses) expect(JSON.parse(res.body).error.request_id).toBe(res.headers['request-id']);
    expectApiError(responses.at(-1), 400, 'request_malformed');
    expect(closedByServer).toBe(true);
  });

  it('sends the answer to a request that ran before refusing the bytes after its Content-Length', async () => {
    const client = await t.newClient();
    const body = '{"email":"first@example.com"}';
    const { responses } = await rawExchange(
      port,
      post(
        `Authorization: Bearer ${client.testKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`,
        `${body}{"name":"rest"}`,
      ),
    );
    // The account holder was created: the client must learn it, not only that the rest was refused.
    expect(responses.map((res) => res.status)).toEqual([200, 400]);
    expect(JSON.parse(responses[0]?.body ?? '')).toMatchObject({ object: 'account_holder', email: 'first@example.com' });
    expectApiError(responses[1], 400, 'request_malformed');
  });

  it.each([
    ['headers', `GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Filler: ${'a'.repeat(17 * 1024)}\r\n\r\n`],
    ['a URL', `GET /v1/connect/account_holders/${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: localhost\r\n\r\n`],
  ])('answers 431 headers_too_large in our error shape for %s over 16 KiB', async (_label, bytes) => {
    const { responses, closedByServer } = await rawExchange(port, bytes);
    expect(responses).toHaveLength(1);
    expectApiError(responses[0], 431, 'headers_too_large');
    expect(closedByServer).toBe(true);
  });

  it('logs a refused request as one line with its request id, without a stack or the bytes sent', async () => {
    const key = `sk_test_${'Q'.repeat(32)}`;
    log.lines.length = 0;
    const { responses } = await rawExchange(
      port,
      `GET /v1/connect/account_holders HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nBad Header: 1\r\n\r\n`,
    );
    const entries = log.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      level: 30,
      request_id: responses[0]?.headers['request-id'],
      status: 400,
      code: 'request_malformed',
    });
    expect(log.lines.join('\n')).not.toMatch(/stack|Bad Header|QQQQ/);
  });

  it('lets a client that resets the connection mid-request go without a log line', async () => {
    log.lines.length = 0;
    // Reset at once, Node reads the end of the stream (HPE_INVALID_EOF_STATE); a moment later, ECONNRESET.
    for (const pauseMs of [0, 50]) {
      const socket = await rawConnection(port, 'POST /v1/connect/account_holders HTTP/1.1\r\nHost: localhost\r\nContent-Le');
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      socket.resetAndDestroy();
      await eventually(() => new Promise<boolean>((resolve) => t.app.server.getConnections((_error, count) => resolve(count === 0))));
    }
    expect(log.lines).toEqual([]);
    const { responses } = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(responses[0]?.status).toBe(200);
  });

  it('writes its answer quietly into a connection the client has already reset (EPIPE, ECONNRESET)', async () => {
    log.lines.length = 0;
    for (let i = 0; i < 5; i++) {
      const socket = await rawConnection(port, 'GET /healthz HTTP/1.1\r\nBad Header: 1\r\n\r\n');
      socket.resetAndDestroy();
    }
    await eventually(() => new Promise<boolean>((resolve) => t.app.server.getConnections((_error, count) => resolve(count === 0))));
    const entries = log.lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(entries.every((entry) => entry.level === 30 && entry.msg === 'request rejected')).toBe(true);
    expect(log.lines.join('\n')).not.toContain('stack');
  });

  it('answers 408 request_timeout in our error shape to a client that stalls before the end of its headers', async () => {
    const slow = await startTestApp('sqlite');
    try {
      // Node checks for stalled requests on a timer (30 s by default); both are shortened here.
      Object.assign(slow.app.server, { headersTimeout: 200, connectionsCheckingInterval: 50 });
      await slow.app.listen({ host: '127.0.0.1', port: 0 });
      const { responses, closedByServer } = await rawExchange(
        (slow.app.server.address() as AddressInfo).port,
        'GET /healthz HTTP/1.1\r\nHost: localhost\r\n',
      );
      expect(responses).toHaveLength(1);
      expectApiError(responses[0], 408, 'request_timeout');
      expect(closedByServer).toBe(true);
    } finally {
      await slow.close();
    }
  });
});
