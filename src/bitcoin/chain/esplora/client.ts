/**
 * {@link ChainSource} over an Esplora HTTP API (Blockstream's electrs, mempool.space, or a
 * self-hosted instance; also the simulated chain's server). Confirmed transactions and blocks are
 * cached in bounded LRUs; address histories are paged through `/txs/chain/:last_seen_txid`.
 */
import type { NetworkName } from '../../network.js';
import { computeBalance } from '../balance.js';
import { DEFAULT_TIME_LOOKBACK, findHeightAtTime } from '../block-time.js';
import {
  ChainSourceError,
  type AddressStats,
  type Balance,
  type BalanceAt,
  type BalanceOptions,
  type BlockSummary,
  type ChainSource,
  type ChainTip,
  type ChainTx,
  type HistoryOptions,
  type Utxo,
} from '../chain-source.js';
import { LruCache } from '../lru-cache.js';
import { EsploraHttp, type EsploraHttpOptions } from './http.js';
import {
  parseEsploraAddress,
  parseEsploraBlock,
  parseEsploraTx,
  parseEsploraTxList,
  parseEsploraUtxos,
  parseHashBody,
  parseJsonBody,
} from './json.js';

/** Configuration of the client; only `baseUrl` and `network` are required. */
export interface EsploraClientOptions extends EsploraHttpOptions {
  /** API root, e.g. `https://blockstream.info/api` or `http://127.0.0.1:3002`. */
  baseUrl: string;
  /** Network the server serves; addresses are passed through as given. */
  network: NetworkName;
  /** Transactions per `/txs/chain` page; electrs and mempool.space use 25. */
  pageSize?: number;
  /** Bounds of the caches. Defaults: 10 000 transactions, 5 000 blocks. */
  cacheSize?: { transactions?: number; blocks?: number };
  /** Blocks at least this deep are cached by height (shallower ones could still be reorganised). Default 6. */
  reorgSafetyDepth?: number;
  /** See {@link DEFAULT_TIME_LOOKBACK}. */
  timeLookback?: number;
}

const TXID = /^[0-9a-f]{64}$/;
const ADDRESS = /^[a-zA-Z0-9]{14,100}$/;

function checkAddress(address: string): void {
  if (typeof address !== 'string' || !ADDRESS.test(address)) {
    throw new ChainSourceError('invalid_request', `not an address: ${JSON.stringify(String(address).slice(0, 100))}`);
  }
}

/** An Esplora-backed chain source. */
export class EsploraChainSource implements ChainSource {
  readonly network: NetworkName;
  private readonly http: EsploraHttp;
  private readonly pageSize: number;
  private readonly reorgSafetyDepth: number;
  private readonly timeLookback: number;
  private readonly txCache: LruCache<string, ChainTx>;
  private readonly blockByHash: LruCache<string, BlockSummary>;
  private readonly blockByHeight: LruCache<number, BlockSummary>;
  private knownTipHeight = -1;

  constructor(opts: EsploraClientOptions) {
    this.network = opts.network;
    this.http = new EsploraHttp(opts.baseUrl, opts);
    this.pageSize = opts.pageSize ?? 25;
    this.reorgSafetyDepth = opts.reorgSafetyDepth ?? 6;
    this.timeLookback = opts.timeLookback ?? DEFAULT_TIME_LOOKBACK;
    this.txCache = new LruCache(opts.cacheSize?.transactions ?? 10_000);
    this.blockByHash = new LruCache(opts.cacheSize?.blocks ?? 5_000);
    this.blockByHeight = new LruCache(opts.cacheSize?.blocks ?? 5_000);
  }

  private async getJson(path: string, what: string, signal?: AbortSignal): Promise<unknown> {
    const body = await this.http.get(path, signal ? { signal } : {});
    return parseJsonBody(body as string, what);
  }

  private rememberTx(tx: ChainTx): ChainTx {
    if (tx.status.confirmed) this.txCache.set(tx.txid, tx);
    return tx;
  }

  private rememberBlock(block: BlockSummary): BlockSummary {
    this.blockByHash.set(block.hash, block);
    if (this.knownTipHeight >= 0 && this.knownTipHeight - block.height + 1 > this.reorgSafetyDepth) {
      this.blockByHeight.set(block.height, block);
    }
    return block;
  }

  async getTip(): Promise<ChainTip> {
    // By hash rather than by height: height → hash could race a new block, hash → block cannot.
    const hash = parseHashBody((await this.http.get('/blocks/tip/hash')) as string, 'tip hash');
    const block = this.blockByHash.get(hash) ?? parseEsploraBlock(await this.getJson(`/block/${hash}`, 'block'));
    if (block.hash !== hash) throw new ChainSourceError('bad_response', `asked for block ${hash}, got ${block.hash}`);
    this.knownTipHeight = Math.max(this.knownTipHeight, block.height);
    return this.rememberBlock(block);
  }

  async getBlock(height: number): Promise<BlockSummary | undefined> {
    if (!Number.isSafeInteger(height) || height < 0) throw new ChainSourceError('invalid_request', `not a block height: ${height}`);
    const cached = this.blockByHeight.get(height);
    if (cached) return cached;
    const hashBody = await this.http.get(`/block-height/${height}`, { allowNotFound: true });
    if (hashBody === undefined) return undefined;
    const hash = parseHashBody(hashBody, 'block hash');
    const byHash = this.blockByHash.get(hash);
    if (byHash) return byHash;
    const block = parseEsploraBlock(await this.getJson(`/block/${hash}`, 'block'));
    if (block.hash !== hash || block.height !== height)
      throw new ChainSourceError('bad_response', `block ${hash} does not match height ${height}`);
    return this.rememberBlock(block);
  }

  /** Up to 10 blocks at and below `height` (Esplora's `/blocks/:start_height`), caching each. */
  private async blocksDown(height: number): Promise<BlockSummary[]> {
    const list = await this.getJson(`/blocks/${height}`, 'block list');
    if (!Array.isArray(list)) throw new ChainSourceError('bad_response', 'block list is not an array');
    return list.map((b) => this.rememberBlock(parseEsploraBlock(b)));
  }

  async getHeightAtTime(time: number): Promise<number> {
    if (!Number.isFinite(time)) throw new ChainSourceError('invalid_request', `not a time: ${time}`);
    const tip = await this.getTip();
    const seen = new Map<number, BlockSummary>();
    const reader = {
      tipHeight: tip.height,
      blockTimes: async (height: number) => {
        let block = seen.get(height) ?? this.blockByHeight.get(height);
        if (!block) {
          for (const b of await this.blocksDown(height)) seen.set(b.height, b);
          block = seen.get(height);
          if (!block) throw new ChainSourceError('bad_response', `/blocks/${height} did not include block ${height}`);
        }
        return { time: block.time, medianTime: block.medianTime };
      },
    };
    return findHeightAtTime(reader, time, this.timeLookback);
  }

  async getTransaction(txid: string): Promise<ChainTx | undefined> {
    if (typeof txid !== 'string' || !TXID.test(txid))
      throw new ChainSourceError('invalid_request', `not a txid: ${String(txid).slice(0, 80)}`);
    const cached = this.txCache.get(txid);
    if (cached) return cached;
    const body = await this.http.get(`/tx/${txid}`, { allowNotFound: true });
    if (body === undefined) return undefined;
    const tx = parseEsploraTx(parseJsonBody(body, 'transaction'));
    if (tx.txid !== txid) throw new ChainSourceError('bad_response', `asked for ${txid}, got ${tx.txid}`);
    return this.rememberTx(tx);
  }

  async getAddressStats(addresses: readonly string[]): Promise<Map<string, AddressStats>> {
    addresses.forEach(checkAddress);
    const unique = [...new Set(addresses)];
    const stats = await Promise.all(
      unique.map(async (a) => parseEsploraAddress(await this.getJson(`/address/${encodeURIComponent(a)}`, 'address'), a)),
    );
    return new Map(stats.map((s) => [s.address, s]));
  }

  async *streamAddressHistory(address: string, opts: HistoryOptions = {}): AsyncIterable<ChainTx> {
    checkAddress(address);
    const base = `/address/${encodeURIComponent(address)}/txs`;
    const signal = opts.signal;
    if (opts.includeMempool !== false) {
      for (const tx of parseEsploraTxList(await this.getJson(`${base}/mempool`, 'mempool transactions', signal), 'mempool transactions')) {
        yield tx;
      }
    }
    let lastSeen: string | undefined;
    const seen = new Set<string>();
    for (;;) {
      const path = lastSeen ? `${base}/chain/${lastSeen}` : `${base}/chain`;
      const page = parseEsploraTxList(await this.getJson(path, 'transaction page', signal), 'transaction page');
      for (const tx of page) {
        // A server that ignores the cursor would otherwise page forever.
        if (seen.has(tx.txid)) throw new ChainSourceError('bad_response', `${path} repeated transaction ${tx.txid}`);
        seen.add(tx.txid);
        yield this.rememberTx(tx);
      }
      const last = page[page.length - 1];
      if (!last || page.length < this.pageSize) return;
      lastSeen = last.txid;
    }
  }

  async getAddressHistory(addresses: readonly string[], opts: HistoryOptions = {}): Promise<Map<string, ChainTx[]>> {
    addresses.forEach(checkAddress);
    const unique = [...new Set(addresses)];
    const lists = await Promise.all(
      unique.map(async (a) => {
        const txs: ChainTx[] = [];
        for await (const tx of this.streamAddressHistory(a, opts)) txs.push(tx);
        return txs;
      }),
    );
    return new Map(unique.map((a, i) => [a, lists[i] as ChainTx[]]));
  }

  async getUtxos(addresses: readonly string[]): Promise<Map<string, Utxo[]>> {
    addresses.forEach(checkAddress);
    const unique = [...new Set(addresses)];
    const lists = await Promise.all(
      unique.map(async (a) => parseEsploraUtxos(await this.getJson(`/address/${encodeURIComponent(a)}/utxo`, 'utxo list'), a)),
    );
    return new Map(unique.map((a, i) => [a, lists[i] as Utxo[]]));
  }

  async getBalance(addresses: readonly string[], at: BalanceAt, opts?: BalanceOptions): Promise<Balance> {
    addresses.forEach(checkAddress);
    return computeBalance(this, addresses, at, opts);
  }
}
