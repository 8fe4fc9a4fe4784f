import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { eventually } from '../../../test/support/eventually.js';
import { rawConnection } from '../../../test/support/raw-http.js';
import { captureStream, startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { service } from '../../main/modules.js';

/**
 * A route whose onRequest hook holds the request until its client has gone: what an awaited hook
 * (authentication, a rate limit kept in PostgreSQL) does when the hang-up arrives during it.
 */
const heldUntilClosed: FastifyPluginAsync = async (api) => {
  api.post(
    '/test/held',
    {
      schema: { body: Type.Object({}) },
      onRequest: (request, _reply, done) => {
        if (request.raw.destroyed) done();
        else request.raw.once('close', () => done());
      },
    },
    async () => ({ object: 'held' }),
  );
};

/**
 * A client that stops sending a request body (it closes the connection before the declared
 * length): 400 `body_incomplete`, logged at info like any refused request, without a stack, and
 * never left waiting, whenever the hang-up arrives.
 */
describe.each(engines())('a request body the client stops sending, on %s', (engine) => {
  let t: TestApp;
  let held: FastifyInstance;
  let client: TestClient;
  const log = captureStream();
  const ports: number[] = [];

  beforeAll(async () => {
    t = await startTestApp(engine, { config: { LOG_LEVEL: 'info' }, logStream: log.stream });
    held = await service.buildApp(t.ctx, { logger: { stream: log.stream }, apiPlugins: [heldUntilClosed] });
    for (const app of [t.app, held]) {
      await app.listen({ host: '127.0.0.1', port: 0 });
      ports.push((app.server.address() as AddressInfo).port);
    }
    client = await t.newClient();
  });
  afterAll(async () => {
    await held?.close();
    await t?.close();
  });

  /** Sends a POST whose body stops half way; the socket stays open until `hangUp` is called. */
  async function startPost(port: number, path: string) {
    const body = '{"email":"half';
    const head =
      `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${client.testKey}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length + 100}\r\n\r\n`;
    return rawConnection(port, head + body);
  }

  /**
   * Waits for the access line of the one request to `path` logged since line `from`, and checks
   * that request was refused as body_incomplete at info, without a stack, and no longer counts
   * as in flight.
   */
  async function expectRefusedAsIncomplete(from: number, path: string) {
    const access = await eventually(() =>
      log.lines
        .slice(from)
        .map((line) => JSON.parse(line) as Record<string, unknown> & { req?: { url?: string } })
        .find((line) => line.msg === 'request' && line.req?.url === path),
    );
    const lines = log.lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.request_id === access.request_id);
    expect(lines.map((line) => [line.level, line.code ?? line.status])).toEqual([
      [30, 'body_incomplete'],
      [30, 400],
    ]);
    expect(JSON.stringify(lines)).not.toContain('"stack"');
    const inFlight = async () =>
      (await t.ctx.metrics.registry.getSingleMetric('ownproof_http_requests_in_flight')?.get())?.values[0]?.value;
    expect(await eventually(async () => (await inFlight()) === 0)).toBe(true);
  }

  it('refuses a body broken off while it is read with body_incomplete, logged at info without a stack', async () => {
    let incoming: IncomingMessage | undefined;
    const capture = (request: IncomingMessage) => (incoming = request);
    t.app.server.prependListener('request', capture);
    const before = log.lines.length;
    const socket = await startPost(ports[0]!, '/v1/connect/account_holders');
    try {
      // The body reader has started once the request stream flows.
      await eventually(() => incoming?.readableFlowing === true);
      socket.end();
      await expectRefusedAsIncomplete(before, '/v1/connect/account_holders');
    } finally {
      t.app.server.removeListener('request', capture);
      socket.destroy();
    }
  });

  it('refuses a body whose client hung up before it was read with body_incomplete instead of waiting for ever', async () => {
    const before = log.lines.length;
    const socket = await startPost(ports[1]!, '/v1/test/held');
    socket.end();
    try {
      await expectRefusedAsIncomplete(before, '/v1/test/held');
    } finally {
      socket.destroy();
    }
  });
});
