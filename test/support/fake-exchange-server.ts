import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/** One request as a fake exchange received it. */
export interface FakeRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  /** The query string exactly as sent, without the `?` (signatures cover these bytes). */
  rawQuery: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as sent (signatures cover these bytes). */
  body: string;
  /** When it arrived (performance.now(), ms). */
  at: number;
}

export interface FakeResponse {
  status: number;
  /** Sent as JSON, unless `text`. */
  body: unknown;
  headers?: Record<string, string>;
  /** Send `body` (a string) as plain text: some exchanges answer errors without JSON. */
  text?: boolean;
}

export interface FakeExchangeServer {
  /** `http(s)://127.0.0.1:<port>`: an IP literal, so no test resolves a name. */
  url: string;
  /** Every request received, in order. */
  requests: FakeRequest[];
  /**
   * Answers the next request `matching` with `response` instead (once): a failure part way through
   * a walk, say. The exchange's own checks are skipped for it.
   */
  failNext(matching: (request: FakeRequest) => boolean, response: FakeResponse): void;
  close(): Promise<void>;
}

/**
 * An HTTP server on a free loopback port that answers every request with `handle`, as JSON. The
 * exchange-specific fakes (fake-kraken.ts, …) are handlers over it. With `tls` it speaks HTTPS
 * (for exchanges whose signatures name the host without the scheme, as ccxt writes it for https).
 */
export async function startFakeExchangeServer(
  handle: (request: FakeRequest) => FakeResponse,
  options: { tls?: { key: string; cert: string } } = {},
): Promise<FakeExchangeServer> {
  const requests: FakeRequest[] = [];
  const failures: { matching: (request: FakeRequest) => boolean; response: FakeResponse }[] = [];
  const listener = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://fake');
      const request: FakeRequest = {
        method: incoming.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        rawQuery: url.search.slice(1),
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      requests.push(request);
      let response: FakeResponse;
      const failure = failures.findIndex((f) => f.matching(request));
      try {
        response = failure >= 0 ? (failures.splice(failure, 1)[0] as (typeof failures)[number]).response : handle(request);
      } catch (error) {
        response = { status: 500, body: { fake_error: String(error) } };
      }
      outgoing.writeHead(response.status, { 'content-type': response.text ? 'text/plain' : 'application/json', ...response.headers });
      outgoing.end(response.text ? String(response.body) : JSON.stringify(response.body));
    });
  };
  const server: Server = options.tls ? createTlsServer(options.tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    failNext(matching, response) {
      failures.push({ matching, response });
    },
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * A fake exchange for the tests of a file or describe block: started before them (`start`), and
 * after them `check` (what must hold over all of them), then closed. `fake` is set once the tests
 * run. Hooks registered after this one run inside it (after hooks run in reverse order).
 */
export function fakeForTests<F extends FakeExchangeServer>(start: () => Promise<F>, check?: (fake: F) => void): { fake: F } {
  const held = {} as { fake: F };
  beforeAll(async () => {
    held.fake = await start();
  });
  afterAll(async () => {
    try {
      if (held.fake) check?.(held.fake);
    } finally {
      await held.fake?.close();
    }
  });
  return held;
}
