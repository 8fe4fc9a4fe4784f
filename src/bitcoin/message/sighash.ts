import { sha256, sha256d, taggedHasher } from './hashes.js';
import { ByteWriter, type Transaction } from './transaction.js';

/** The output an input spends: what sighashes commit to besides the spending transaction. */
export interface Prevout {
  script: Uint8Array;
  value: bigint;
}

export const SIGHASH_DEFAULT = 0x00;
export const SIGHASH_ALL = 0x01;

const tapSighash = taggedHasher('TapSighash');

// Every BIP-322 to_sign has this one output, and simple ones this one input sequence: their
// hashes are constants of the format.
const SHA_SINGLE_ZERO_SEQUENCE = sha256(new Uint8Array(4));
const SHA_BIP322_OUTPUT = sha256(Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 1, 0x6a));

/**
 * Per-transaction sighash midstates (BIP-143 and BIP-341 both hash every input's outpoint,
 * sequence and every output once per transaction, not once per input).
 */
export class SighashCache {
  private shaPrevouts?: Uint8Array;
  private shaSequences?: Uint8Array;
  private shaOutputs?: Uint8Array;
  private shaAmounts?: Uint8Array;
  private shaScriptPubKeys?: Uint8Array;

  constructor(
    readonly tx: Transaction,
    readonly prevouts: readonly Prevout[],
  ) {}

  prevoutsHash(): Uint8Array {
    if (this.shaPrevouts) return this.shaPrevouts;
    const w = new ByteWriter(36 * this.tx.inputs.length);
    for (const input of this.tx.inputs) w.bytes(input.txid).u32(input.vout);
    return (this.shaPrevouts = sha256(w.finish()));
  }

  sequencesHash(): Uint8Array {
    if (this.shaSequences) return this.shaSequences;
    if (this.tx.inputs.length === 1 && this.tx.inputs[0]!.sequence === 0) return (this.shaSequences = SHA_SINGLE_ZERO_SEQUENCE);
    const w = new ByteWriter(4 * this.tx.inputs.length);
    for (const input of this.tx.inputs) w.u32(input.sequence);
    return (this.shaSequences = sha256(w.finish()));
  }

  outputsHash(): Uint8Array {
    if (this.shaOutputs) return this.shaOutputs;
    const only = this.tx.outputs.length === 1 ? this.tx.outputs[0]! : undefined;
    if (only && only.value === 0n && only.script.length === 1 && only.script[0] === 0x6a) return (this.shaOutputs = SHA_BIP322_OUTPUT);
    const w = new ByteWriter();
    for (const output of this.tx.outputs) w.u64(output.value).varBytes(output.script);
    return (this.shaOutputs = sha256(w.finish()));
  }

  amountsHash(): Uint8Array {
    if (this.shaAmounts) return this.shaAmounts;
    const w = new ByteWriter(8 * this.prevouts.length);
    for (const p of this.prevouts) w.u64(p.value);
    return (this.shaAmounts = sha256(w.finish()));
  }

  scriptPubKeysHash(): Uint8Array {
    if (this.shaScriptPubKeys) return this.shaScriptPubKeys;
    const w = new ByteWriter();
    for (const p of this.prevouts) w.varBytes(p.script);
    return (this.shaScriptPubKeys = sha256(w.finish()));
  }
}

/**
 * Original (pre-segwit) SIGHASH_ALL digest: the transaction with every scriptSig emptied except
 * the signed input's, which carries `scriptCode`. BIP-322 forbids OP_CODESEPARATOR and
 * FindAndDelete, so the caller passes the script unmodified after checking for both.
 */
export function legacySighashAll(tx: Transaction, inputIndex: number, scriptCode: Uint8Array): Uint8Array {
  const w = new ByteWriter(128 + scriptCode.length + 41 * tx.inputs.length);
  w.u32(tx.version).compactSize(tx.inputs.length);
  tx.inputs.forEach((input, i) => {
    w.bytes(input.txid).u32(input.vout);
    w.varBytes(i === inputIndex ? scriptCode : new Uint8Array(0));
    w.u32(input.sequence);
  });
  w.compactSize(tx.outputs.length);
  for (const output of tx.outputs) w.u64(output.value).varBytes(output.script);
  w.u32(tx.lockTime).u32(SIGHASH_ALL);
  return sha256d(w.finish());
}

/** BIP-143 SIGHASH_ALL digest for a segwit v0 input. */
export function segwitV0SighashAll(cache: SighashCache, inputIndex: number, scriptCode: Uint8Array, amount: bigint): Uint8Array {
  const { tx } = cache;
  const input = tx.inputs[inputIndex]!;
  const w = new ByteWriter(160 + scriptCode.length);
  w.u32(tx.version);
  w.bytes(sha256(cache.prevoutsHash()));
  w.bytes(sha256(cache.sequencesHash()));
  w.bytes(input.txid).u32(input.vout);
  w.varBytes(scriptCode);
  w.u64(amount);
  w.u32(input.sequence);
  w.bytes(sha256(cache.outputsHash()));
  w.u32(tx.lockTime).u32(SIGHASH_ALL);
  return sha256d(w.finish());
}

/**
 * BIP-341 signature message digest for SIGHASH_DEFAULT or SIGHASH_ALL (the only types BIP-322
 * allows), key path when `leafHash` is undefined, BIP-342 script path otherwise. Annexes are
 * refused before we get here, so none is committed to.
 */
export function taprootSighash(cache: SighashCache, inputIndex: number, hashType: number, leafHash?: Uint8Array): Uint8Array {
  const { tx } = cache;
  const w = new ByteWriter(leafHash ? 212 : 175);
  w.u8(0x00); // epoch
  w.u8(hashType);
  w.u32(tx.version).u32(tx.lockTime);
  w.bytes(cache.prevoutsHash());
  w.bytes(cache.amountsHash());
  w.bytes(cache.scriptPubKeysHash());
  w.bytes(cache.sequencesHash());
  w.bytes(cache.outputsHash());
  w.u8(leafHash ? 2 : 0); // spend_type = ext_flag * 2 + annex_present
  w.u32(inputIndex);
  if (leafHash) {
    w.bytes(leafHash);
    w.u8(0x00); // key_version
    w.u32(0xffffffff); // codesep_pos: no OP_CODESEPARATOR executed
  }
  return tapSighash(w.finish());
}
