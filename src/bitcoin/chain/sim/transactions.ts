/**
 * Raw transaction helpers for the simulated chain: ids and sizes of serialized transactions, and
 * the two kinds of transactions it builds without a signature (coinbases, and spends of its
 * anyone-can-spend bulk pool).
 */
import { sha256, sha256d } from '../../hashes.js';
import { hex } from '@scure/base';
import { RawTx, Script } from '@scure/btc-signer';

/** A serialized transaction with its identifiers and sizes. */
export interface BuiltTx {
  raw: Uint8Array;
  /** Display-order (reversed) hex, as explorers show it. */
  txid: string;
  wtxid: string;
  size: number;
  weight: number;
  vsize: number;
  decoded: ReturnType<typeof RawTx.decode>;
}

/** Hex of a hash in display order (byte-reversed), the way txids and block hashes are written. */
export function displayHex(internal: Uint8Array): string {
  return hex.encode(Uint8Array.from(internal).reverse());
}

/** Bytes of a display-order hex hash in internal order. */
export function internalBytes(display: string): Uint8Array {
  return hex.decode(display).reverse();
}

/** Identifiers and sizes of a serialized transaction. */
export function describeRawTx(raw: Uint8Array): BuiltTx {
  const decoded = RawTx.decode(raw);
  const stripped = decoded.segwitFlag ? RawTx.encode({ ...decoded, segwitFlag: false, witnesses: undefined }) : raw;
  const weight = stripped.length * 3 + raw.length;
  return {
    raw,
    txid: displayHex(sha256d(stripped)),
    wtxid: displayHex(sha256d(raw)),
    size: raw.length,
    weight,
    vsize: Math.ceil(weight / 4),
    decoded,
  };
}

/** A transaction output to create. */
export interface OutputSpec {
  script: Uint8Array;
  amount: bigint;
}

const NULL_TXID = new Uint8Array(32);
const COINBASE_TAG = new TextEncoder().encode('/ownproof-sim/');

/**
 * A coinbase transaction: BIP-34 height first in the scriptSig (the way Bitcoin Core encodes it),
 * and, when `witnessCommitment` is given, the BIP-141 commitment output plus the all-zero
 * witness reserved value.
 */
export function buildCoinbase(height: number, outputs: readonly OutputSpec[], witnessCommitment?: Uint8Array): BuiltTx {
  const scriptSig = Script.encode([height, COINBASE_TAG]);
  const allOutputs = [...outputs];
  if (witnessCommitment) {
    const script = new Uint8Array(38);
    script.set([0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed]);
    script.set(witnessCommitment, 6);
    allOutputs.push({ script, amount: 0n });
  }
  const raw = RawTx.encode({
    version: 2,
    segwitFlag: witnessCommitment !== undefined,
    inputs: [{ txid: NULL_TXID, index: 0xffffffff, finalScriptSig: scriptSig, sequence: 0xffffffff }],
    outputs: allOutputs,
    witnesses: witnessCommitment ? [[new Uint8Array(32)]] : undefined,
    lockTime: 0,
  });
  return describeRawTx(raw);
}

/** The witness script of the bulk pool: OP_TRUE. */
export const POOL_WITNESS_SCRIPT = Uint8Array.of(0x51);

/** P2WSH(OP_TRUE): spendable by anyone, without a signature, with a one-byte witness. */
export const POOL_SCRIPT_PUBKEY = (() => {
  const script = new Uint8Array(34);
  script.set([0x00, 0x20]);
  script.set(sha256(POOL_WITNESS_SCRIPT), 2);
  return script;
})();

/** A spend of one pool output; valid under consensus rules and needs no signature. */
export function buildPoolSpend(prev: { txid: string; vout: number }, outputs: readonly OutputSpec[]): BuiltTx {
  const raw = RawTx.encode({
    version: 2,
    segwitFlag: true,
    inputs: [{ txid: hex.decode(prev.txid), index: prev.vout, finalScriptSig: new Uint8Array(0), sequence: 0xfffffffd }],
    outputs: [...outputs],
    witnesses: [[POOL_WITNESS_SCRIPT]],
    lockTime: 0,
  });
  return describeRawTx(raw);
}
