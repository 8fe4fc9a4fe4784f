/**
 * The read side of the simulated chain: a {@link ChainSource} over a {@link ChainState}. Answers
 * have exactly the shapes the Esplora client produces, so tests can compare the two.
 */
import { parseAddress } from '../../address.js';
import type { NetworkName } from '../../network.js';
import { computeBalance } from '../balance.js';
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
import type { ChainState, SimBlock, SimTx } from './chain-state.js';

/** The {@link BlockSummary} part of a simulated block. */
function blockSummary(block: SimBlock): BlockSummary {
  return {
    height: block.height,
    hash: block.hash,
    time: block.time,
    medianTime: block.medianTime,
    previousHash: block.previousHash,
    txCount: block.txCount,
  };
}

/** The {@link ChainTx} part of a simulated transaction. */
export function chainTx(tx: SimTx): ChainTx {
  return {
    txid: tx.txid,
    version: tx.version,
    locktime: tx.locktime,
    size: tx.size,
    weight: tx.weight,
    fee: tx.fee,
    inputs: tx.inputs,
    outputs: tx.outputs,
    status: tx.status,
  };
}

/** Read-only chain source over simulated state. */
export class SimulatedChainSource implements ChainSource {
  constructor(protected readonly state: ChainState) {}

  get network(): NetworkName {
    return this.state.network;
  }

  /** Throws ChainSourceError('invalid_request') for anything but an address of this chain's network, as Esplora answers 400. */
  protected checkAddress(address: string): void {
    const parsed = parseAddress(address, { networks: [this.state.network] });
    if (!parsed.ok)
      throw new ChainSourceError(
        'invalid_request',
        `invalid address ${JSON.stringify(String(address).slice(0, 100))}: ${parsed.error.reason}`,
      );
  }

  async getTip(): Promise<ChainTip> {
    const tip = this.state.tip;
    if (!tip) throw new ChainSourceError('bad_response', 'the simulated chain has no blocks');
    return blockSummary(tip);
  }

  async getBlock(height: number): Promise<BlockSummary | undefined> {
    if (!Number.isSafeInteger(height) || height < 0) throw new ChainSourceError('invalid_request', `not a block height: ${height}`);
    const block = this.state.blocks[height];
    return block ? blockSummary(block) : undefined;
  }

  async getHeightAtTime(time: number): Promise<number> {
    if (!Number.isFinite(time)) throw new ChainSourceError('invalid_request', `not a time: ${time}`);
    return this.state.heightAtTime(time);
  }

  async getTransaction(txid: string): Promise<ChainTx | undefined> {
    if (typeof txid !== 'string' || !/^[0-9a-f]{64}$/.test(txid))
      throw new ChainSourceError('invalid_request', `not a txid: ${String(txid).slice(0, 80)}`);
    const tx = this.state.transaction(txid);
    return tx ? chainTx(tx) : undefined;
  }

  async getAddressStats(addresses: readonly string[]): Promise<Map<string, AddressStats>> {
    addresses.forEach((a) => this.checkAddress(a));
    return new Map([...new Set(addresses)].map((a) => [a, this.state.addressStats(a)]));
  }

  async *streamAddressHistory(address: string, opts: HistoryOptions = {}): AsyncIterable<ChainTx> {
    this.checkAddress(address);
    if (opts.includeMempool !== false) {
      for (const tx of this.state.mempoolHistory(address)) yield chainTx(tx);
    }
    // Paging over a stable cursor keeps the stream consistent if blocks are mined while it runs.
    let lastSeen: string | undefined;
    for (;;) {
      opts.signal?.throwIfAborted();
      const page = this.state.chainHistoryPage(address, 500, lastSeen) ?? [];
      for (const tx of page) yield chainTx(tx);
      const last = page[page.length - 1];
      if (!last || page.length < 500) return;
      lastSeen = last.txid;
    }
  }

  async getAddressHistory(addresses: readonly string[], opts: HistoryOptions = {}): Promise<Map<string, ChainTx[]>> {
    addresses.forEach((a) => this.checkAddress(a));
    const result = new Map<string, ChainTx[]>();
    for (const address of new Set(addresses)) {
      const txs: ChainTx[] = [];
      for await (const tx of this.streamAddressHistory(address, opts)) txs.push(tx);
      result.set(address, txs);
    }
    return result;
  }

  async getUtxos(addresses: readonly string[]): Promise<Map<string, Utxo[]>> {
    addresses.forEach((a) => this.checkAddress(a));
    return new Map([...new Set(addresses)].map((a) => [a, this.state.utxoList(a)]));
  }

  async getBalance(addresses: readonly string[], at: BalanceAt, opts?: BalanceOptions): Promise<Balance> {
    addresses.forEach((a) => this.checkAddress(a));
    return computeBalance(this, addresses, at, opts);
  }
}
