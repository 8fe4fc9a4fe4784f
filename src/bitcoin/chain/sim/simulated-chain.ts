/**
 * A deterministic simulated Bitcoin chain for test mode and tests. It builds real transactions
 * and blocks under regtest rules (genuine txids from real serialization, ECDSA/Schnorr signatures
 * by keys it holds, merkle roots, witness commitments, proof of work) with timestamps the caller
 * chooses, and answers through {@link ChainSource}. The same seed and the same sequence of calls
 * always give the same txids and block hashes.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { parseAddress } from '../../address.js';
import type { NetworkName } from '../../network.js';
import type { Utxo } from '../chain-source.js';
import { COINBASE_MATURITY } from './blocks.js';
import { ChainState, type SimBlock, type SimTx, type SimUtxo } from './chain-state.js';
import { connectGenesis, mineNextBlock } from './mining.js';
import { SimulatedChainSource } from './sim-chain-source.js';
import { INPUT_VBYTES, selectCoins, signTransaction } from './signing.js';
import { keyAddresses, type SimAddressType, type SimKey } from './sim-keys.js';
import { POOL_SCRIPT_PUBKEY, buildPoolSpend, type BuiltTx, type OutputSpec } from './transactions.js';

/** Settings of a simulated chain; all optional. */
export interface SimulatedChainOptions {
  /** Everything derives from it: the faucet key, keys from `newAddress`, hence every txid. Default "ownproof-sim". */
  seed?: string;
  /** Address encoding. Default regtest; testnet/signet give tb1/m/n/2 addresses on the same regtest-rules chain. */
  network?: NetworkName;
  /** Time of the first block after the premine; premined blocks lie before it. Default 2024-01-01T00:00:00Z. */
  startTime?: number;
  /** Seconds between blocks when no time is given. Default 600. */
  blockInterval?: number;
  /** Blocks mined at construction so the faucet owns mature coinbases. Default 200 (≥ 101). */
  premineBlocks?: number;
  /** Fee rate of the transactions it builds, in sat/vB. Default 2. */
  feeRate?: bigint;
}

/** When a built transaction confirms. */
export interface TxTiming {
  /** Timestamp of the block that confirms it. Default: previous block's time + blockInterval. */
  time?: number;
  /** Leave it unconfirmed in the mempool instead of mining a block. */
  mempool?: boolean;
}

/** Options of {@link SimulatedChain.spend}. */
export interface SpendOptions extends TxTiming {
  /** Where the change goes. Default: back to the sending address. */
  changeAddress?: string;
}

const DUST = 330n;
const POOL_SPEND_VBYTES = 130;

function deriveSecret(seed: string, label: string): Uint8Array {
  for (let counter = 0; ; counter++) {
    const candidate = sha256(new TextEncoder().encode(`${seed}/${label}/${counter}`));
    if (secp256k1.utils.isValidSecretKey(candidate)) return candidate;
  }
}

/** A simulated chain with a builder API; it is itself a {@link ChainSource}. */
export class SimulatedChain extends SimulatedChainSource {
  readonly faucetAddress: string;
  readonly startTime: number;
  readonly blockInterval: number;
  private readonly seed: string;
  private readonly feeRate: bigint;
  private readonly faucet: SimKey;
  private readonly keysByScript = new Map<string, SimKey>();
  private nextKeyIndex = 0;

  constructor(opts: SimulatedChainOptions = {}) {
    super(new ChainState(opts.network ?? 'regtest'));
    this.seed = opts.seed ?? 'ownproof-sim';
    this.startTime = opts.startTime ?? 1_704_067_200;
    this.blockInterval = opts.blockInterval ?? 600;
    this.feeRate = opts.feeRate ?? 2n;
    const premine = opts.premineBlocks ?? 200;
    if (!Number.isInteger(premine) || premine < COINBASE_MATURITY + 1)
      throw new RangeError(`premineBlocks must be ≥ ${COINBASE_MATURITY + 1}`);
    this.faucet = keyAddresses(deriveSecret(this.seed, 'faucet'), this.network).p2wpkh;
    this.faucetAddress = this.faucet.address;
    this.keysByScript.set(hex.encode(this.faucet.scriptPubKey), this.faucet);
    connectGenesis(this.state);
    for (let h = 1; h <= premine; h++) this.mineBlock(this.startTime - (premine - h + 1) * this.blockInterval, 0);
  }

  /** Height of the best block. */
  get height(): number {
    return (this.state.tip as SimBlock).height;
  }

  /** A block of the chain, with header bytes and txids. */
  block(height: number): SimBlock | undefined {
    return this.state.blocks[height];
  }

  /** A block by hash. */
  blockByHash(hash: string): SimBlock | undefined {
    return this.state.blockByHashOrUndefined(hash);
  }

  /** A transaction, with its raw serialization and witness data. */
  transaction(txid: string): SimTx | undefined {
    return this.state.transaction(txid);
  }

  /** Txids waiting in the mempool, in the order they will be mined. */
  get mempoolTxids(): readonly string[] {
    return this.state.mempool;
  }

  /** Confirmed history page of an address, newest first (what `/address/:a/txs/chain` serves). */
  chainHistoryPage(address: string, pageSize: number, lastSeen?: string): SimTx[] | undefined {
    return this.state.chainHistoryPage(address, pageSize, lastSeen);
  }

  /** Unconfirmed transactions of an address, newest first. */
  mempoolHistory(address: string): SimTx[] {
    return this.state.mempoolHistory(address);
  }

  /** Whether `address` is a valid address of this chain's network. */
  isAddress(address: string): boolean {
    return parseAddress(address, { networks: [this.network] }).ok;
  }

  /** Esplora `/address/:a` counters (no validation; the server checks first). */
  addressStatsOf(address: string): ReturnType<ChainState['addressStats']> {
    return this.state.addressStats(address);
  }

  /** Unspent outputs of an address (no validation; the server checks first). */
  utxoListOf(address: string): Utxo[] {
    return this.state.utxoList(address);
  }

  /** Spender of an outpoint, if spent. */
  spender(txid: string, vout: number): string | undefined {
    return this.state.spender(txid, vout);
  }

  /** Registers a private key so the chain can spend from its four single-key addresses; returns them. */
  registerKey(privateKey: Uint8Array): Record<SimAddressType, string> {
    const keys = keyAddresses(privateKey, this.network);
    const out = {} as Record<SimAddressType, string>;
    for (const key of Object.values(keys)) {
      this.keysByScript.set(hex.encode(key.scriptPubKey), key);
      out[key.type] = key.address;
    }
    return out;
  }

  /** A fresh address whose key the chain holds (derived from the seed, so deterministic). */
  newAddress(type: SimAddressType = 'p2wpkh'): string {
    const secret = deriveSecret(this.seed, `key/${this.nextKeyIndex++}`);
    return this.registerKey(secret)[type];
  }

  private scriptOf(address: string): Uint8Array {
    const parsed = parseAddress(address, { networks: [this.network] });
    if (!parsed.ok) throw new Error(`not a ${this.network} address: ${address} (${parsed.error.reason})`);
    return parsed.address.scriptPubKey;
  }

  private checkAmount(sats: bigint): void {
    if (typeof sats !== 'bigint' || sats <= 0n) throw new RangeError(`amount must be a positive bigint of satoshis, got ${String(sats)}`);
  }

  /**
   * The timestamp for a block mined at `now` (Unix seconds): `now`, but never earlier than the
   * tip's time, and above the median time past as consensus requires — so a block made today is
   * dated today, after a history built with fixed, earlier times.
   */
  blockTimeAt(now: number): number {
    const tip = this.state.tip as SimBlock;
    return Math.max(now, tip.time, tip.medianTime + 1);
  }

  private defaultTime(): number {
    const tip = this.state.tip as SimBlock;
    return tip.effectiveTime + this.blockInterval;
  }

  private mineBlock(time: number, maxTxs: number): SimBlock {
    return mineNextBlock(this.state, this.faucet.scriptPubKey, time, maxTxs);
  }

  /**
   * Mines `count` blocks (default 1); the first takes the whole mempool (up to the block weight
   * limit) and is stamped `time`, the next ones follow at `blockInterval`. Throws RangeError when
   * `time` is not above the median time past, as Bitcoin requires. Returns the last block.
   */
  mine(opts: { time?: number; count?: number } = {}): SimBlock {
    const count = opts.count ?? 1;
    if (!Number.isInteger(count) || count < 1) throw new RangeError(`count must be a positive integer, got ${count}`);
    let block = this.mineBlock(opts.time ?? this.defaultTime(), Number.MAX_SAFE_INTEGER);
    for (let i = 1; i < count; i++) block = this.mineBlock(block.time + this.blockInterval, Number.MAX_SAFE_INTEGER);
    return block;
  }

  private settle(txid: string, timing: TxTiming): string {
    if (!timing.mempool) this.mine(timing.time === undefined ? {} : { time: timing.time });
    return txid;
  }

  private spendable(utxo: SimUtxo): boolean {
    return utxo.coinbaseHeight === undefined || this.height + 1 - utxo.coinbaseHeight >= COINBASE_MATURITY;
  }

  private signAndAccept(key: SimKey, inputs: SimUtxo[], outputs: OutputSpec[]): BuiltTx {
    const built = signTransaction(key, inputs, outputs, (txid) => (this.state.transaction(txid) as SimTx).raw);
    this.state.acceptToMempool(built);
    return built;
  }

  private faucetPayment(outputs: OutputSpec[], amount: bigint): BuiltTx {
    const utxos = this.state.utxosOf(this.faucetAddress).filter((u) => this.spendable(u));
    // Recent change first keeps the faucet's transactions a short chain; mature coinbases after, oldest first.
    const change = utxos.filter((u) => u.coinbaseHeight === undefined).reverse();
    const coinbases = utxos.filter((u) => u.coinbaseHeight !== undefined);
    const { inputs, fee } = selectCoins([...change, ...coinbases], amount, outputs, INPUT_VBYTES.p2wpkh, this.feeRate);
    const rest = inputs.reduce((n, u) => n + u.value, 0n) - amount - fee;
    const all = rest >= DUST ? [...outputs, { script: this.faucet.scriptPubKey, amount: rest }] : outputs;
    return this.signAndAccept(this.faucet, inputs, all);
  }

  /**
   * Pays `sats` from the chain's faucet to `address` and, unless `mempool` is set, mines a block
   * (at `time`) confirming it. Returns the txid. Throws for an address of another network or a
   * non-positive amount.
   */
  fund(address: string, sats: bigint, opts: TxTiming = {}): string {
    this.checkAmount(sats);
    const built = this.faucetPayment([{ script: this.scriptOf(address), amount: sats }], sats);
    return this.settle(built.txid, opts);
  }

  /**
   * Sends `sats` from `from` (an address whose key the chain holds: see `newAddress` and
   * `registerKey`) to `to`, with change to `opts.changeAddress` or back to `from`, signed with
   * that key; mines a block unless `mempool` is set. Returns the txid.
   */
  spend(from: string, to: string, sats: bigint, opts: SpendOptions = {}): string {
    this.checkAmount(sats);
    const fromScript = this.scriptOf(from);
    const key = this.keysByScript.get(hex.encode(fromScript));
    if (!key) throw new Error(`the simulated chain holds no key for ${from}`);
    const outputs: OutputSpec[] = [{ script: this.scriptOf(to), amount: sats }];
    const changeScript = opts.changeAddress ? this.scriptOf(opts.changeAddress) : fromScript;
    const { inputs, fee } = selectCoins(this.state.utxosOf(from), sats, outputs, INPUT_VBYTES[key.type], this.feeRate);
    const rest = inputs.reduce((n, u) => n + u.value, 0n) - sats - fee;
    const all = rest >= DUST ? [...outputs, { script: changeScript, amount: rest }] : outputs;
    return this.settle(this.signAndAccept(key, inputs, all).txid, opts);
  }

  /**
   * Gives `address` `count` separate incoming transactions of `sats` each, quickly: the faucet
   * funds one P2WSH(OP_TRUE) output, then a chain of spends of that anyone-can-spend output pays
   * the address. They are valid under consensus rules and need no signature, so thousands take
   * well under a second. Mined `perBlock` (default 500) per block from `time` on. Returns the txids.
   */
  fundMany(address: string, count: number, sats: bigint, opts: { time?: number; perBlock?: number } = {}): string[] {
    this.checkAmount(sats);
    if (!Number.isInteger(count) || count < 1) throw new RangeError(`count must be a positive integer, got ${count}`);
    const perBlock = opts.perBlock ?? 500;
    const script = this.scriptOf(address);
    const feePerTx = this.feeRate * BigInt(POOL_SPEND_VBYTES);
    const total = BigInt(count) * (sats + feePerTx);
    const pool = this.faucetPayment([{ script: POOL_SCRIPT_PUBKEY, amount: total }], total);
    let previous = { txid: pool.txid, vout: 0, value: total };
    const txids: string[] = [];
    for (let i = 0; i < count; i++) {
      const rest = previous.value - sats - feePerTx;
      const outputs: OutputSpec[] = [{ script, amount: sats }];
      if (rest > 0n) outputs.push({ script: POOL_SCRIPT_PUBKEY, amount: rest });
      const built = buildPoolSpend(previous, outputs);
      this.state.acceptToMempool(built);
      txids.push(built.txid);
      previous = { txid: built.txid, vout: 1, value: rest };
    }
    let time = opts.time ?? this.defaultTime();
    while (this.state.mempool.length > 0) {
      this.mineBlock(time, perBlock);
      time += this.blockInterval;
    }
    return txids;
  }
}
