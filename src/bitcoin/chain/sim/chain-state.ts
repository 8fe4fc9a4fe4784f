/**
 * In-memory state of the simulated chain: blocks, transactions, the mempool, the UTXO set and a
 * per-address index, plus the read queries the chain source and the Esplora server need.
 * Mutations go through `acceptToMempool` and `connectBlock`, which keep every index consistent.
 */
import { hex } from '@scure/base';
import { addressFromScript } from '../../address.js';
import type { NetworkName } from '../../network.js';
import { heightAtTimeFromEffectiveTimes } from '../block-time.js';
import type { AddressActivity, AddressStats, BlockSummary, ChainTx, TxInput, TxOutput, TxStatus, Utxo } from '../chain-source.js';
import type { BuiltTx } from './transactions.js';

/** A transaction of the simulated chain, with what Esplora reports beyond {@link ChainTx}. */
export interface SimTx extends ChainTx {
  raw: Uint8Array;
  wtxid: string;
  vsize: number;
  scriptSigs: string[];
  witnesses: string[][];
}

/** A block of the simulated chain. */
export interface SimBlock extends BlockSummary {
  version: number;
  merkleRoot: string;
  bits: number;
  nonce: number;
  size: number;
  weight: number;
  header: Uint8Array;
  txids: string[];
  /** Running maximum of the timestamps up to this block (the balance-at-time rule). */
  effectiveTime: number;
}

/** An unspent output. */
export interface SimUtxo {
  txid: string;
  vout: number;
  value: bigint;
  scriptPubKey: Uint8Array;
  address: string | undefined;
  /** Height of the coinbase that created it, for the maturity rule. */
  coinbaseHeight?: number;
}

interface AddressIndex {
  /** Confirmed txids, oldest first. */
  confirmed: string[];
  /** Position of each confirmed txid in `confirmed`, for cursor-based paging. */
  position: Map<string, number>;
  /** Unconfirmed txids in acceptance order. */
  mempool: Set<string>;
}

const outpointKey = (txid: string, vout: number): string => `${txid}:${vout}`;

function emptyActivity(): AddressActivity {
  return { txCount: 0, fundedCount: 0, fundedSum: 0n, spentCount: 0, spentSum: 0n };
}

function freezeTx<T extends ChainTx>(tx: T): T {
  tx.inputs.forEach((i) => Object.freeze(i));
  tx.outputs.forEach((o) => Object.freeze(o));
  Object.freeze(tx.inputs);
  Object.freeze(tx.outputs);
  Object.freeze(tx.status);
  return Object.freeze(tx);
}

/** Blocks, transactions and indexes of one simulated chain. */
export class ChainState {
  readonly blocks: SimBlock[] = [];
  private readonly effectiveTimes: number[] = [];
  private readonly blockByHash = new Map<string, SimBlock>();
  private readonly txs = new Map<string, SimTx>();
  private readonly mempoolOrder: string[] = [];
  private readonly byAddress = new Map<string, AddressIndex>();
  private readonly utxos = new Map<string, SimUtxo>();
  private readonly utxosByAddress = new Map<string, Set<string>>();
  private readonly spentBy = new Map<string, string>();

  constructor(readonly network: NetworkName) {}

  get tip(): SimBlock | undefined {
    return this.blocks[this.blocks.length - 1];
  }

  get mempool(): readonly string[] {
    return this.mempoolOrder;
  }

  private index(address: string): AddressIndex {
    let entry = this.byAddress.get(address);
    if (!entry) {
      entry = { confirmed: [], position: new Map(), mempool: new Set() };
      this.byAddress.set(address, entry);
    }
    return entry;
  }

  private addressesOf(tx: ChainTx): Set<string> {
    const out = new Set<string>();
    for (const o of tx.outputs) if (o.address) out.add(o.address);
    for (const i of tx.inputs) if (i.prevout?.address) out.add(i.prevout.address);
    return out;
  }

  private addUtxos(tx: SimTx, coinbaseHeight?: number): void {
    for (const out of tx.outputs) {
      const key = outpointKey(tx.txid, out.vout);
      const utxo: SimUtxo = {
        txid: tx.txid,
        vout: out.vout,
        value: out.value,
        scriptPubKey: hex.decode(out.scriptPubKey),
        address: out.address,
        ...(coinbaseHeight !== undefined ? { coinbaseHeight } : {}),
      };
      this.utxos.set(key, utxo);
      if (out.address) {
        let set = this.utxosByAddress.get(out.address);
        if (!set) {
          set = new Set();
          this.utxosByAddress.set(out.address, set);
        }
        set.add(key);
      }
    }
  }

  private toSimTx(built: BuiltTx, inputs: TxInput[], fee: bigint, status: TxStatus): SimTx {
    const outputs: TxOutput[] = built.decoded.outputs.map((o, vout) => {
      const address = addressFromScript(o.script, this.network);
      return { vout, value: o.amount, scriptPubKey: hex.encode(o.script), ...(address ? { address } : {}) };
    });
    return freezeTx({
      txid: built.txid,
      version: built.decoded.version,
      locktime: built.decoded.lockTime,
      size: built.size,
      weight: built.weight,
      fee,
      inputs,
      outputs,
      status,
      raw: built.raw,
      wtxid: built.wtxid,
      vsize: built.vsize,
      scriptSigs: built.decoded.inputs.map((i) => hex.encode(i.finalScriptSig)),
      witnesses: built.decoded.inputs.map((_, n) => (built.decoded.witnesses?.[n] ?? []).map((w) => hex.encode(w))),
    });
  }

  /** The unspent output at an outpoint. */
  utxo(txid: string, vout: number): SimUtxo | undefined {
    return this.utxos.get(outpointKey(txid, vout));
  }

  /** Unspent outputs of an address, in creation order. */
  utxosOf(address: string): SimUtxo[] {
    const keys = this.utxosByAddress.get(address);
    return keys ? [...keys].map((k) => this.utxos.get(k) as SimUtxo) : [];
  }

  /**
   * Adds a non-coinbase transaction to the mempool. Throws when it spends an output that does not
   * exist or is already spent, or creates more value than it spends: the builder never does.
   */
  acceptToMempool(built: BuiltTx): SimTx {
    if (this.txs.has(built.txid)) throw new Error(`transaction ${built.txid} already exists`);
    const inputs: TxInput[] = [];
    let inValue = 0n;
    for (const input of built.decoded.inputs) {
      const txid = hex.encode(input.txid);
      const utxo = this.utxos.get(outpointKey(txid, input.index));
      if (!utxo) throw new Error(`input ${txid}:${input.index} is not an unspent output`);
      inValue += utxo.value;
      inputs.push({
        txid,
        vout: input.index,
        sequence: input.sequence,
        isCoinbase: false,
        prevout: { value: utxo.value, scriptPubKey: hex.encode(utxo.scriptPubKey), ...(utxo.address ? { address: utxo.address } : {}) },
      });
    }
    const outValue = built.decoded.outputs.reduce((sum, o) => sum + o.amount, 0n);
    if (outValue > inValue) throw new Error(`transaction ${built.txid} spends ${inValue} sat but creates ${outValue}`);
    const tx = this.toSimTx(built, inputs, inValue - outValue, { confirmed: false });
    for (const input of inputs) {
      const key = outpointKey(input.txid, input.vout);
      const utxo = this.utxos.get(key) as SimUtxo;
      this.utxos.delete(key);
      if (utxo.address) this.utxosByAddress.get(utxo.address)?.delete(key);
      this.spentBy.set(key, tx.txid);
    }
    this.addUtxos(tx);
    this.txs.set(tx.txid, tx);
    this.mempoolOrder.push(tx.txid);
    for (const address of this.addressesOf(tx)) this.index(address).mempool.add(tx.txid);
    return tx;
  }

  /**
   * Appends a block whose coinbase is `coinbase` and whose other transactions are the first
   * `count` of the mempool. The genesis coinbase is never spendable (as in Bitcoin Core), so its
   * output is kept out of the UTXO set.
   */
  connectBlock(block: Omit<SimBlock, 'effectiveTime' | 'txids' | 'txCount'>, coinbase: BuiltTx, count: number): SimBlock {
    const included = this.mempoolOrder.splice(0, count);
    const previousEffective = this.effectiveTimes[this.effectiveTimes.length - 1] ?? 0;
    const simBlock: SimBlock = {
      ...block,
      txids: [coinbase.txid, ...included],
      txCount: included.length + 1,
      effectiveTime: Math.max(previousEffective, block.time),
    };
    const status: TxStatus = { confirmed: true, blockHeight: block.height, blockHash: block.hash, blockTime: block.time };
    const coinbaseInput: TxInput = { txid: '00'.repeat(32), vout: 0xffffffff, sequence: 0xffffffff, isCoinbase: true };
    const coinbaseTx = this.toSimTx(coinbase, [coinbaseInput], 0n, status);
    this.txs.set(coinbaseTx.txid, coinbaseTx);
    if (block.height > 0) this.addUtxos(coinbaseTx, block.height);
    const confirmedTxs = [coinbaseTx];
    for (const txid of included) {
      const tx = freezeTx({ ...(this.txs.get(txid) as SimTx), status });
      this.txs.set(txid, tx);
      confirmedTxs.push(tx);
    }
    for (const tx of confirmedTxs) {
      for (const address of this.addressesOf(tx)) {
        const entry = this.index(address);
        entry.mempool.delete(tx.txid);
        entry.position.set(tx.txid, entry.confirmed.length);
        entry.confirmed.push(tx.txid);
      }
    }
    this.blocks.push(Object.freeze(simBlock));
    this.effectiveTimes.push(simBlock.effectiveTime);
    this.blockByHash.set(simBlock.hash, simBlock);
    return simBlock;
  }

  transaction(txid: string): SimTx | undefined {
    return this.txs.get(txid);
  }

  blockByHashOrUndefined(hash: string): SimBlock | undefined {
    return this.blockByHash.get(hash);
  }

  /** Exact balance-at-time cutoff (see block-time.ts). */
  heightAtTime(time: number): number {
    return heightAtTimeFromEffectiveTimes(this.effectiveTimes, time);
  }

  /** Unconfirmed transactions of an address, newest first. */
  mempoolHistory(address: string): SimTx[] {
    const entry = this.byAddress.get(address);
    return entry ? [...entry.mempool].reverse().map((t) => this.txs.get(t) as SimTx) : [];
  }

  /**
   * Up to `pageSize` confirmed transactions of an address, newest first, after `lastSeen` (a txid
   * of the address's history) when given; undefined when `lastSeen` is not in that history.
   */
  chainHistoryPage(address: string, pageSize: number, lastSeen?: string): SimTx[] | undefined {
    const entry = this.byAddress.get(address);
    if (!entry) return lastSeen ? undefined : [];
    let start = entry.confirmed.length - 1;
    if (lastSeen !== undefined) {
      const position = entry.position.get(lastSeen);
      if (position === undefined) return undefined;
      start = position - 1;
    }
    const page: SimTx[] = [];
    for (let i = start; i >= 0 && page.length < pageSize; i--) page.push(this.txs.get(entry.confirmed[i] as string) as SimTx);
    return page;
  }

  /** Number of confirmed transactions of an address. */
  confirmedCount(address: string): number {
    return this.byAddress.get(address)?.confirmed.length ?? 0;
  }

  /** Esplora-style counters of an address. */
  addressStats(address: string): AddressStats {
    const chain = emptyActivity();
    const mempool = emptyActivity();
    const entry = this.byAddress.get(address);
    const tally = (txid: string, into: AddressActivity): void => {
      const tx = this.txs.get(txid) as SimTx;
      into.txCount++;
      for (const o of tx.outputs) {
        if (o.address === address) {
          into.fundedCount++;
          into.fundedSum += o.value;
        }
      }
      for (const i of tx.inputs) {
        if (i.prevout?.address === address) {
          into.spentCount++;
          into.spentSum += i.prevout.value;
        }
      }
    };
    if (entry) {
      for (const txid of entry.confirmed) tally(txid, chain);
      for (const txid of entry.mempool) tally(txid, mempool);
    }
    return { address, chain, mempool };
  }

  /** Unspent outputs of an address, as the chain source reports them. */
  utxoList(address: string): Utxo[] {
    return this.utxosOf(address).map((u) => ({
      txid: u.txid,
      vout: u.vout,
      value: u.value,
      address,
      status: (this.txs.get(u.txid) as SimTx).status,
    }));
  }

  /** The txid spending an outpoint, if any. */
  spender(txid: string, vout: number): string | undefined {
    return this.spentBy.get(outpointKey(txid, vout));
  }
}
