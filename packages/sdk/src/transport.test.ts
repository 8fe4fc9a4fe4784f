import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Ownproof } from './client.js';
import { OwnproofApiError, OwnproofConnectionError } from './errors.js';
import { pollUntil } from './poll.js';

/**
 * The SDK's HTTP behaviour against a real HTTP server on loopback that answers what each test
 * scripts (a stand-in for the failures a real server or a proxy produces): retries, idempotency
 * keys, errors, pagination and polling pace. The journey against the real service is in
 * `test/sdk-journey.test.ts`.
 */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}
type Answer = (req: Seen, res: ServerResponse, n: number) => void;

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function scripted(answer: Answer): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        at: Date.now(),
      };
      seen.push(entry);
      answer(entry, res, seen.length);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server?.address() as AddressInfo).port}`, seen };
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const error = (code: string, type = 'invalid_request_error', param?: string) => ({
  error: { type, code, message: `${code} happened`, request_id: 'req_123', ...(param ? { param } : {}) },
});
const holder = { id: 'ah_1', object: 'account_holder' };

describe('the SDK over HTTP', () => {
  it('sends the API key and one Idempotency-Key for every attempt of a POST, retrying a 503 and a 429 after Retry-After', async () => {
    const { url, seen } = await scripted((_req, res, n) => {
      if (n === 1) return json(res, 503, error('service_unavailable', 'api_error'));
      if (n === 2) return json(res, 429, error('rate_limit_exceeded', 'rate_limit_error'), { 'retry-after': '1' });
      json(res, 200, holder);
    });
    const ownproof = new Ownproof({ apiKey: 'sk_test_abc', baseUrl: url, maxRetries: 3 });
    const created = await ownproof.connect.accountHolders.create({ email: 'ada@example.com' });
    expect(created).toEqual(holder);
    expect(seen).toHaveLength(3);
    expect(seen.map((s) => s.headers.authorization)).toEqual(Array(3).fill('Bearer sk_test_abc'));
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ email: 'ada@example.com' });
    // Retry-After: 1 was honoured.
    expect((seen[2]?.at ?? 0) - (seen[1]?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('uses the Idempotency-Key given, and sends none on a GET', async () => {
    const { url, seen } = await scripted((_req, res) => json(res, 200, holder));
    const ownproof = new Ownproof({ apiKey: 'sk_test_abc', baseUrl: `${url}/` });
    await ownproof.connect.accountHolders.create({ email: 'ada@example.com' }, { idempotencyKey: 'order-42' });
    await ownproof.connect.accountHolders.retrieve('ah_1');
    expect(seen.map((s) => [s.method, s.url, s.headers['idempotency-key']])).toEqual([
      ['POST', '/v1/connect/account_holders', 'order-42'],
      ['GET', '/v1/connect/account_holders/ah_1', undefined],
    ]);
  });

  it('throws a typed error with code, param, status and request id, without retrying a 400', async () => {
    const { url, seen } = await scripted((_req, res) => json(res, 400, error('parameter_invalid', 'invalid_request_error', 'email')));
    const ownproof = new Ownproof({ apiKey: 'sk_test_abc', baseUrl: url });
    const failure = await ownproof.connect.accountHolders.create({ email: 'nope' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OwnproofApiError);
    expect(failure).toMatchObject({
      status: 400,
      code: 'parameter_invalid',
      param: 'email',
      requestId: 'req_123',
      type: 'invalid_request_error',
    });
    expect(seen).toHaveLength(1);
  });

  it('gives up after maxRetries 5xx answers with the last error, and reports a proxy answer that is not ours', async () => {
    const { url, seen } = await scripted((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<h1>Bad gateway</h1>');
    });
    const ownproof = new Ownproof({ apiKey: 'sk_test_abc', baseUrl: url, maxRetries: 1 });
    const failure = await ownproof.connect.sessions.retrieve('sess_1').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OwnproofApiError);
    expect(failure).toMatchObject({ status: 502, code: 'api_error' });
    expect(seen).toHaveLength(2);
  });

  it('retries a connection the server drops, and says so when every attempt fails', async () => {
    const { url, seen } = await scripted((req, res, n) => {
      if (n < 3) return req && res.socket?.destroy();
      json(res, 200, holder);
    });
    const ownproof = new Ownproof({ apiKey: 'sk_test_abc', baseUrl: url, maxRetries: 2 });
    await expect(ownproof.connect.accountHolders.retrieve('ah_1')).resolves.toEqual(holder);
    expect(seen).toHaveLength(3);

    const closed = new Ownproof({ apiKey: 'sk_test_abc', baseUrl: 'http://127.0.0.1:1', maxRetries: 1 });
    const failure = await closed.connect.accountHolders.retrieve('ah_1').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OwnproofConnectionError);
    expect((failure as Error).message).toContain('2 attempts');
  });

  it('does not wait out a Retry-After longer than it was told to, and throws it to the caller', async () => {
    const { url, seen } = await scripted((_req, res) =>
      json(res, 429, error('rate_limit_exceeded', 'rate_limit_error'), { 'retry-after': '3600' }),
    );
    const ownproof = new Ownproof({ apiKey: 'sk_test_abc', baseUrl: url, maxRetries: 3 });
    await expect(ownproof.connect.accountHolders.retrieve('ah_1')).rejects.toMatchObject({ status: 429, retryAfter: 3600 });
    expect(seen).toHaveLength(1);
  });

  it('iterates every object of a list across pages, moving starting_after, and stops when told', async () => {
    const all = Array.from({ length: 7 }, (_, i) => ({ id: `ah_${i}` }));
    const { url, seen } = await scripted((req, res) => {
      const query = new URL(req.url, 'http://x').searchParams;
      const after = query.get('starting_after');
      const start = after ? all.findIndex((h) => h.id === after) + 1 : 0;
      const limit = Number(query.get('limit') ?? 10);
      json(res, 200, {
        object: 'list',
        url: '/v1/connect/account_holders',
        data: all.slice(start, start + limit),
        has_more: start + limit < all.length,
      });
    });
    const ownproof = new Ownproof({ apiKey: 'sk_test_abc', baseUrl: url });
    const first = await ownproof.connect.accountHolders.list({ limit: 3 });
    expect(first.data.map((h) => h.id)).toEqual(['ah_0', 'ah_1', 'ah_2']);
    const ids: string[] = [];
    for await (const h of ownproof.connect.accountHolders.list({ limit: 3 })) ids.push(h.id);
    expect(ids).toEqual(all.map((h) => h.id));
    expect(seen.slice(1).map((s) => s.url)).toEqual([
      '/v1/connect/account_holders?limit=3',
      '/v1/connect/account_holders?limit=3&starting_after=ah_2',
      '/v1/connect/account_holders?limit=3&starting_after=ah_5',
    ]);
    const early: string[] = [];
    for await (const h of ownproof.connect.accountHolders.list({ limit: 3 })) {
      early.push(h.id);
      if (early.length === 2) break;
    }
    expect(seen).toHaveLength(5);
  });

  it('polls a session at most twice a second, through 429s and 503s, until it ends', async () => {
    const { url, seen } = await scripted((_req, res, n) => {
      if (n === 2) return json(res, 503, error('service_unavailable', 'api_error'));
      if (n === 3) return json(res, 429, error('rate_limit_exceeded', 'rate_limit_error'), { 'retry-after': '1' });
      json(res, 200, { id: 'sess_1', object: 'session', status: n < 6 ? 'open' : 'completed' });
    });
    // When each request leaves the SDK (the server's arrival times could bunch up on a loaded machine).
    const sent: number[] = [];
    const timed: typeof fetch = (input, init) => {
      sent.push(performance.now());
      return fetch(input, init);
    };
    const ownproof = new Ownproof({ apiKey: 'sk_test_abc', baseUrl: url, fetch: timed });
    const session = await ownproof.connect.sessions.poll('sess_1', { intervalMs: 100 });
    expect(session.status).toBe('completed');
    expect(seen).toHaveLength(6);
    expect(sent).toHaveLength(6);
    const gaps = sent.slice(1).map((at, i) => at - (sent[i] ?? 0));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(499);
    // The 429's Retry-After (1 s) stretched the wait after it.
    expect(gaps[2]).toBeGreaterThanOrEqual(999);
  });

  it('stops polling on an error that waiting does not cure, and at its deadline', async () => {
    const { url } = await scripted((_req, res) => json(res, 404, error('resource_missing', 'invalid_request_error', 'id')));
    const ownproof = new Ownproof({ apiKey: 'sk_test_abc', baseUrl: url });
    await expect(ownproof.connect.sessions.poll('sess_nope')).rejects.toMatchObject({ code: 'resource_missing' });
    await expect(
      pollUntil(
        async () => 'open',
        (s) => s === 'done',
        { intervalMs: 500, timeoutMs: 1_200 },
      ),
    ).rejects.toBeInstanceOf(OwnproofConnectionError);
  });

  it("leaves no listener behind on the caller's signal between reads, however long it polls", async () => {
    const controller = new AbortController();
    const listeners: number[] = [];
    let reads = 0;
    await pollUntil(
      async () => {
        listeners.push(getEventListeners(controller.signal, 'abort').length);
        return ++reads;
      },
      (n) => n === 5,
      { intervalMs: 500, signal: controller.signal },
    );
    expect(listeners).toEqual([0, 0, 0, 0, 0]);
  });
});
