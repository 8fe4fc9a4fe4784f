import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { captureStream, startTestApp, type TestApp } from '../../../test/support/test-app.js';

/**
 * What a stranger can send the public document check (`/verify`) that no browser would: too many
 * requests. Each is a clear 4xx page, logged without a stack trace.
 */
describe.each(engines())('the public document check refusing what it cannot take, on %s', (engine) => {
  let t: TestApp;
  const log = captureStream();
  /** The log lines written for one request. */
  const linesOf = (requestId: string | undefined) => log.lines.filter((line) => JSON.parse(line).request_id === requestId).map((line) => JSON.parse(line));

  beforeAll(async () => {
    t = await startTestApp(engine, { config: { LOG_LEVEL: 'info' }, logStream: log.stream });
  });
  afterAll(() => t?.close());

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
