import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ResolvedAddress } from '../../src/platform/webhooks/network.js';

/** A request a TestReceiver got. */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers to its n-th request (0-based); `stall` never answers. */
export type ReceiverReply = { status: number; headers?: Record<string, string> } | { stall: true };

/** Where a TestReceiver listens: a fixed port (0: any free one), and HTTPS with this key and certificate. */
export interface ReceiverOptions {
  port?: number;
  tls?: { key: string; cert: string };
}

/**
 * A real HTTP (or HTTPS) server on 127.0.0.1 that records webhook requests (tests only). `reply`
 * decides each answer and can be changed while it runs.
 */
export class TestReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly stalled = new Set<ServerResponse>();
  private waiters: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    private readonly scheme: 'http' | 'https',
    public reply: (index: number, request: ReceivedWebhook) => ReceiverReply,
  ) {}

  static async start(
    reply: (index: number, request: ReceivedWebhook) => ReceiverReply = () => ({ status: 200 }),
    { port = 0, tls }: ReceiverOptions = {},
  ): Promise<TestReceiver> {
    const server = tls ? createTlsServer(tls) : createServer();
    const receiver = new TestReceiver(server, tls ? 'https' : 'http', reply);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        const index = receiver.received.push(request) - 1;
        const answer = receiver.reply(index, request);
        for (const wake of receiver.waiters.splice(0)) wake();
        if ('stall' in answer) {
          receiver.stalled.add(res);
          return;
        }
        res.writeHead(answer.status, answer.headers).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `${this.scheme}://127.0.0.1:${this.port}/hook`;
  }

  /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`receiver got ${this.received.length} of ${count} requests`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 100));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.received;
  }

  async close(): Promise<void> {
    for (const res of this.stalled) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * A resolver answering from a table (tests only): a name maps to addresses, or to a function
 * called at each lookup (to change the answer between checks, as DNS rebinding does).
 */
export function fakeResolver(table: Record<string, string[] | (() => string[])>) {
  return async (hostname: string): Promise<ResolvedAddress[]> => {
    const entry = table[hostname];
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const addresses = typeof entry === 'function' ? entry() : entry;
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}
