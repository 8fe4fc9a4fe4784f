/**
 * The interface every source of Bitcoin chain data implements (the Esplora HTTP client, the
 * simulated chain), and the plain data types it returns. Amounts are bigint satoshis; hashes and
 * scripts are lowercase hex; times are Unix seconds.
 */
import type { NetworkName } from '../network.js';

/** Where a transaction stands: in a block, or still in the mempool. */
export type TxStatus = { confirmed: true; blockHeight: number; blockHash: string; blockTime: number } | { confirmed: false };

/** A transaction output. */
export interface TxOutput {
  vout: number;
  value: bigint;
  scriptPubKey: string;
  /** Undefined for scripts without an address (OP_RETURN, bare multisig, ...). */
  address?: string;
}

/** A transaction input, with the output it spends when known. */
export interface TxInput {
  txid: string;
  vout: number;
  sequence: number;
  isCoinbase: boolean;
  /** The spent output; absent for coinbase inputs. */
  prevout?: { value: bigint; scriptPubKey: string; address?: string };
}

/** A transaction as the chain sources report it. */
export interface ChainTx {
  txid: string;
  version: number;
  locktime: number;
  /** Serialized size in bytes, witness included. */
  size: number;
  weight: number;
  /** Inputs minus outputs; 0 for coinbase transactions. */
  fee: bigint;
  inputs: TxInput[];
  outputs: TxOutput[];
  status: TxStatus;
}

/** An unspent output of an address. */
export interface Utxo {
  txid: string;
  vout: number;
  value: bigint;
  address: string;
  status: TxStatus;
}

/** Header facts about one block of the active chain. */
export interface BlockSummary {
  height: number;
  hash: string;
  /** The header timestamp, which may be lower than its predecessor's. */
  time: number;
  /** Median of the timestamps of this block and the 10 before it (BIP-113); never decreases. */
  medianTime: number;
  previousHash: string | null;
  txCount: number;
}

/** The best block. */
export type ChainTip = BlockSummary;

/** Counters of an address, over confirmed or over mempool transactions. */
export interface AddressActivity {
  txCount: number;
  fundedCount: number;
  fundedSum: bigint;
  spentCount: number;
  spentSum: bigint;
}

/** Activity of an address, as Esplora's `/address/:addr` reports it. */
export interface AddressStats {
  address: string;
  chain: AddressActivity;
  mempool: AddressActivity;
}

/** The moment a balance is asked for: after a given block, or as of a Unix time (see README.md). */
export type BalanceAt = { height: number } | { time: number };

/** Knobs of a balance query. */
export interface BalanceOptions {
  /**
   * Confirmations (counted at the current tip) a transaction needs before it counts.
   * Default {@link DEFAULT_MIN_CONFIRMATIONS}.
   */
  minConfirmations?: number;
}

/** Net amounts of one address (or of all of them). */
export interface BalanceAmounts {
  /** Net value of transactions up to the cutoff block that have enough confirmations. */
  confirmed: bigint;
  /** Net value of transactions up to the cutoff block still short of `minConfirmations`; not in `confirmed`. */
  pending: bigint;
}

/** Result of a balance query. */
export interface Balance extends BalanceAmounts {
  at: BalanceAt;
  /** Last block included: the rule of README.md applied to `at`; -1 when no block qualifies. */
  cutoffHeight: number;
  tipHeight: number;
  minConfirmations: number;
  /** True when every block up to the cutoff has `minConfirmations`, so the figure can no longer change. */
  final: boolean;
  byAddress: Map<string, BalanceAmounts>;
}

/** Options of the history queries. */
export interface HistoryOptions {
  /** Also return unconfirmed transactions (first). Default true. */
  includeMempool?: boolean;
  signal?: AbortSignal;
}

/**
 * Confirmations a transaction needs before it counts towards a statement's balance, by default.
 * Six blocks is the depth the Bitcoin ecosystem has long treated as final: reorganisations of one
 * block happen a few times a year, deeper ones have not occurred on mainnet in a decade.
 */
export const DEFAULT_MIN_CONFIRMATIONS = 6;

/**
 * A read-only view of a Bitcoin chain. Batched methods take many addresses per call; histories of
 * busy addresses can be consumed incrementally with {@link ChainSource.streamAddressHistory}.
 *
 * Order of histories: unconfirmed transactions first, then confirmed ones from the newest block
 * to the oldest (Esplora's order). Methods reject with {@link ChainSourceError} when the source
 * cannot answer.
 */
export interface ChainSource {
  readonly network: NetworkName;
  getTip(): Promise<ChainTip>;
  /** The block at a height of the active chain, or undefined above the tip. */
  getBlock(height: number): Promise<BlockSummary | undefined>;
  /** The cutoff height for a Unix time under the balance-at-time rule; -1 if even the genesis block is later. */
  getHeightAtTime(time: number): Promise<number>;
  getTransaction(txid: string): Promise<ChainTx | undefined>;
  getAddressStats(addresses: readonly string[]): Promise<Map<string, AddressStats>>;
  getAddressHistory(addresses: readonly string[], opts?: HistoryOptions): Promise<Map<string, ChainTx[]>>;
  streamAddressHistory(address: string, opts?: HistoryOptions): AsyncIterable<ChainTx>;
  getUtxos(addresses: readonly string[]): Promise<Map<string, Utxo[]>>;
  getBalance(addresses: readonly string[], at: BalanceAt, opts?: BalanceOptions): Promise<Balance>;
}

/** Why a chain source could not answer. */
export type ChainSourceErrorCode = 'timeout' | 'network' | 'http_status' | 'bad_response' | 'invalid_request' | 'aborted';

/** The one error type chain sources reject with. */
export class ChainSourceError extends Error {
  constructor(
    readonly code: ChainSourceErrorCode,
    message: string,
    readonly details: { url?: string; status?: number; attempts?: number; cause?: unknown } = {},
  ) {
    super(message);
    this.name = 'ChainSourceError';
  }
}
