/**
 * An Esplora-compatible HTTP server over a {@link SimulatedChain}, on 127.0.0.1 and a random port:
 * lets the Esplora client (and the sandbox) be exercised over real HTTP. It can inject faults
 * (status codes with Retry-After, slow answers) and logs every request path, for retry and cache
 * tests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hex } from '@scure/base';
import type { SimBlock } from '../sim/chain-state.js';
import type { SimulatedChain } from '../sim/simulated-chain.js';
import { chainTx } from '../sim/sim-chain-source.js';
import { renderEsploraAddress, renderEsploraBlock, renderEsploraTx, renderEsploraUtxos } from './json.js';

/** A failure the server answers with instead of the real response. */
export interface InjectedFault {
  /** HTTP status to answer (e.g. 429, 500, 503). Omit with `delayMs` to only slow the real answer down. */
  status?: number;
  /** How many matching requests it applies to. Default 1. */
  times?: number;
  /** Value of the Retry-After header, if any. */
  retryAfter?: string;
  /** Which paths it applies to: a prefix, or a regular expression. Default: every path. */
  match?: string | RegExp;
  /** Wait this long before answering. */
  delayMs?: number;
}

/** A running server. */
export interface EsploraServer {
  /** Base URL, e.g. `http://127.0.0.1:41235`, to give the client. */
  readonly url: string;
  readonly port: number;
  /** Paths requested so far (query strings included), in order. */
  readonly requests: readonly string[];
  /** Number of logged requests whose path equals or starts with `match`, or matches it. */
  requestCount(match?: string | RegExp): number;
  clearRequests(): void;
  injectFault(fault: InjectedFault): void;
  close(): Promise<void>;
}

/** Options of {@link startEsploraServer}. */
export interface EsploraServerOptions {
  /** Default 0: a free port chosen by the OS. */
  port?: number;
  /** Confirmed transactions per `/txs/chain` page. Default 25, as electrs. */
  pageSize?: number;
}

const MEMPOOL_LIMIT = 50;

type Reply = { status: number; body: string | Uint8Array; type: string };

const text = (body: string, status = 200): Reply => ({ status, body, type: 'text/plain' });
const json = (value: unknown): Reply => ({ status: 200, body: JSON.stringify(value), type: 'application/json' });
const binary = (body: Uint8Array): Reply => ({ status: 200, body, type: 'application/octet-stream' });

function matches(path: string, match: string | RegExp | undefined): boolean {
  if (match === undefined) return true;
  return typeof match === 'string' ? path === match || path.startsWith(match) : match.test(path);
}

function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24);
}

function route(sim: SimulatedChain, path: string, pageSize: number): Reply {
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  const [head, a, b, c, d] = parts;
  const tip = sim.block(sim.height) as SimBlock;
  const renderTx = (txid: string): unknown => {
    const tx = sim.transaction(txid);
    return tx ? renderEsploraTx(chainTx(tx), tx) : undefined;
  };
  switch (head) {
    case 'blocks': {
      if (a === 'tip' && b === 'height' && parts.length === 3) return text(String(tip.height));
      if (a === 'tip' && b === 'hash' && parts.length === 3) return text(tip.hash);
      if (parts.length > 2) break;
      const start = a === undefined ? tip.height : Number(a);
      if (!Number.isSafeInteger(start) || start < 0) return text('Invalid height', 400);
      const blocks: unknown[] = [];
      for (let h = Math.min(start, tip.height); h >= 0 && blocks.length < 10; h--)
        blocks.push(renderEsploraBlock(sim.block(h) as SimBlock));
      return json(blocks);
    }
    case 'block-height': {
      const block = a !== undefined && /^[0-9]+$/.test(a) ? sim.block(Number(a)) : undefined;
      return block && parts.length === 2 ? text(block.hash) : text('Block not found', 404);
    }
    case 'block': {
      const block = a ? sim.blockByHash(a) : undefined;
      if (!block) return text('Block not found', 404);
      if (parts.length === 2) return json(renderEsploraBlock(block));
      if (parts.length !== 3) break;
      if (b === 'header') return text(hex.encode(block.header));
      if (b === 'txids') return json(block.txids);
      if (b === 'status') {
        const next = sim.block(block.height + 1);
        return json({ in_best_chain: true, height: block.height, next_best: next ? next.hash : null });
      }
      if (b === 'raw') {
        const raws = block.txids.map((t) => sim.transaction(t)?.raw as Uint8Array);
        const parts2 = [block.header, compactSize(raws.length), ...raws];
        const out = new Uint8Array(parts2.reduce((n, p) => n + p.length, 0));
        let offset = 0;
        for (const p of parts2) {
          out.set(p, offset);
          offset += p.length;
        }
        return binary(out);
      }
      break;
    }
    case 'tx': {
      const tx = a ? sim.transaction(a) : undefined;
      if (!tx) return text('Transaction not found', 404);
      if (parts.length === 2) return json(renderTx(tx.txid));
      if (parts.length !== 3) break;
      if (b === 'hex') return text(hex.encode(tx.raw));
      if (b === 'raw') return binary(tx.raw);
      if (b === 'status') return json((renderTx(tx.txid) as { status: unknown }).status);
      if (b === 'outspends') {
        return json(
          tx.outputs.map((o) => {
            const spender = sim.spender(tx.txid, o.vout);
            if (!spender) return { spent: false };
            const spendingTx = sim.transaction(spender);
            const vin = spendingTx?.inputs.findIndex((i) => i.txid === tx.txid && i.vout === o.vout) ?? -1;
            return { spent: true, txid: spender, vin, status: (renderTx(spender) as { status: unknown }).status };
          }),
        );
      }
      break;
    }
    case 'address': {
      if (!a || !sim.isAddress(a)) return text('Invalid Bitcoin address', 400);
      if (parts.length === 2) return json(renderEsploraAddress(sim.addressStatsOf(a)));
      if (b === 'utxo' && parts.length === 3) {
        return json(renderEsploraUtxos(sim.utxoListOf(a)));
      }
      if (b !== 'txs') break;
      const mempool = (): unknown[] =>
        sim
          .mempoolHistory(a)
          .slice(0, MEMPOOL_LIMIT)
          .map((t) => renderTx(t.txid));
      if (parts.length === 3) {
        const chain = sim.chainHistoryPage(a, pageSize) ?? [];
        return json([...mempool(), ...chain.map((t) => renderTx(t.txid))]);
      }
      if (c === 'mempool' && parts.length === 4) return json(mempool());
      if (c === 'chain' && parts.length <= 5) {
        const page = sim.chainHistoryPage(a, pageSize, d);
        if (!page) return text('last_seen_txid is not in the history of this address', 400);
        return json(page.map((t) => renderTx(t.txid)));
      }
      break;
    }
  }
  return text('Not found', 404);
}

/** Starts an Esplora-compatible server over `sim` on 127.0.0.1. */
export async function startEsploraServer(sim: SimulatedChain, opts: EsploraServerOptions = {}): Promise<EsploraServer> {
  const pageSize = opts.pageSize ?? 25;
  const requests: string[] = [];
  const faults: Array<InjectedFault & { remaining: number }> = [];
  const timers = new Set<NodeJS.Timeout>();

  const respond = (res: ServerResponse, reply: Reply, headers: Record<string, string> = {}): void => {
    const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : Buffer.from(reply.body);
    res.writeHead(reply.status, { 'content-type': reply.type, 'content-length': String(body.length), ...headers });
    res.end(body);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const path = req.url ?? '/';
    requests.push(path);
    if (req.method !== 'GET') {
      respond(res, text('Method not allowed', 405));
      return;
    }
    const fault = faults.find((f) => f.remaining > 0 && matches(path, f.match));
    if (fault) fault.remaining--;
    const answer = (): void => {
      if (fault?.status !== undefined) {
        respond(res, text(`injected ${fault.status}`, fault.status), fault.retryAfter ? { 'retry-after': fault.retryAfter } : {});
        return;
      }
      let reply: Reply;
      try {
        reply = route(sim, path.split('?')[0] as string, pageSize);
      } catch (err) {
        reply = text(`internal error: ${(err as Error).message}`, 500);
      }
      respond(res, reply);
    };
    if (fault?.delayMs) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) answer();
      }, fault.delayMs);
      timers.add(timer);
    } else {
      answer();
    }
  };

  const server: Server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    requestCount: (match) => requests.filter((p) => matches(p, match)).length,
    clearRequests: () => {
      requests.length = 0;
    },
    injectFault: (fault) => {
      faults.push({ ...fault, remaining: fault.times ?? 1 });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
