import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { eventually } from '../../../test/support/eventually.js';
import { rawConnection, rawExchange } from '../../../test/support/raw-http.js';
import { captureStream, startTestApp, type TestApp } from '../../../test/support/test-app.js';

const BOUNDARY = 'ownproof-test-boundary';
const PART_HEAD = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="statement"; filename="statement.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;

/** A POST to the public statement upload as raw bytes, framed correctly: only the multipart body is broken. */
function upload(contentType: string, body: string): string {
  return `POST /verify/statement HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/**
 * What a stranger can send the public document check (`/verify`) that no browser would: a broken
 * upload, too many requests. Each is a clear 4xx page, logged without a stack trace.
 */
describe.each(engines())('the public document check refusing what it cannot take, on %s', (engine) => {
  let t: TestApp;
  let port: number;
  const log = captureStream();
  /** The log lines written for one request. */
  const linesOf = (requestId: string | undefined) =>
    log.lines.filter((line) => JSON.parse(line).request_id === requestId).map((line) => JSON.parse(line));

  beforeAll(async () => {
    t = await startTestApp(engine, { config: { LOG_LEVEL: 'info' }, logStream: log.stream });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t?.close());

  it.each([
    ['a body cut off inside the file', `multipart/form-data; boundary=${BOUNDARY}`, `${PART_HEAD}%PDF-1.7 half a fi`],
    [
      'a body cut off inside the part headers',
      `multipart/form-data; boundary=${BOUNDARY}`,
      `--${BOUNDARY}\r\nContent-Disposition: form-da`,
    ],
    ['no boundary parameter', 'multipart/form-data', `${PART_HEAD}%PDF-1.7\r\n--${BOUNDARY}--\r\n`],
    // The file part is whole; the body ends at its delimiter, without the closing `--`.
    ['no closing boundary', `multipart/form-data; boundary=${BOUNDARY}`, `${PART_HEAD}%PDF-1.7\r\n--${BOUNDARY}`],
    ['no multipart at all', `multipart/form-data; boundary=${BOUNDARY}`, 'hello'],
  ])('answers an upload with %s with a 400 page, logged as upload_malformed without a stack', async (_what, contentType, body) => {
    const { responses } = await rawExchange(port, upload(contentType, body));
    const res = responses[0];
    expect(res?.status, res?.body).toBe(400);
    expect(res?.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res?.body).toContain('<h1>Something was wrong with that request</h1>');
    expect(res?.body).toContain('The upload is not a complete multipart/form-data body');
    const lines = linesOf(res?.headers['request-id']);
    expect(lines.map((line) => [line.level, line.code ?? line.status])).toEqual([
      [30, 'upload_malformed'],
      [30, 400],
    ]);
    expect(JSON.stringify(lines)).not.toContain('"stack"');
  });

  it('logs an upload whose sender hangs up before its declared length as upload_malformed, without a stack', async () => {
    const body = `${PART_HEAD}%PDF-1.7 the rest never comes`;
    const head = `POST /verify/statement HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${body.length + 1000}\r\n\r\n`;
    const before = log.lines.length;
    let incoming: IncomingMessage | undefined;
    const capture = (request: IncomingMessage) => (incoming = request);
    t.app.server.prependListener('request', capture);
    const socket = await rawConnection(port, head + body);
    // Hangs up while the upload is read (a hang-up before is body_incomplete: incomplete-body.test.ts).
    await eventually(() => incoming?.readableFlowing === true);
    t.app.server.removeListener('request', capture);
    socket.end();
    const lines = await eventually(() => {
      const written = log.lines.slice(before).map((line) => JSON.parse(line));
      return written.some((line) => line.msg === 'request') && written;
    });
    expect(lines.map((line) => [line.level, line.code ?? line.status])).toEqual([
      [30, 'upload_malformed'],
      [30, 400],
    ]);
    expect(JSON.stringify(lines)).not.toContain('"stack"');
    socket.destroy();
  });

  it('answers a client over the per-address limit with a 429 page and Retry-After, logged without a stack', async () => {
    const from = { remoteAddress: '203.0.113.9' };
    let res = await t.app.inject({ method: 'GET', url: '/verify', ...from });
    for (let sent = 1; res.statusCode === 200 && sent <= 60; sent++) res = await t.app.inject({ method: 'GET', url: '/verify', ...from });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'/);
    expect(res.body).toContain('<h1>Too many requests</h1>');
    expect(res.body).toContain(`Wait ${res.headers['retry-after'] as string} second`);
    const lines = linesOf(res.headers['request-id'] as string);
    expect(lines.map((line) => [line.level, line.code ?? line.status])).toEqual([
      [30, 'rate_limit_exceeded'],
      [30, 429],
    ]);
    expect(JSON.stringify(lines)).not.toContain('"stack"');
    // Another address is not affected.
    expect((await t.app.inject({ method: 'GET', url: '/verify', remoteAddress: '203.0.113.10' })).statusCode).toBe(200);
  });
});
