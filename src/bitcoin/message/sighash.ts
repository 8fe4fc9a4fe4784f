import { sha256, sha256d, taggedHasher } from '../hashes.js';
import { ByteWriter, Scratch, type Transaction } from './transaction.js';

/** The output an input spends: what sighashes commit to besides the spending transaction. */
export interface Prevout {
  script: Uint8Array;
  value: bigint;
}

export const SIGHASH_DEFAULT = 0x00;
export const SIGHASH_ALL = 0x01;

const tapSighash = taggedHasher('TapSighash');

/*
 * Every BIP-322 to_sign has the single output (value 0, script OP_RETURN), and every simple one the
 * single input sequence 0, so their hashes are constants of the format: BIP-341 commits to their
 * SHA-256, BIP-143 to their SHA256d. Computed once here; fast-paths.test.ts recomputes them from
 * the serialization.
 */
/** Serialized BIP-322 to_sign output: value 0 (8 bytes), script length 1, OP_RETURN. */
export const BIP322_OUTPUT = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 1, 0x6a);
/** Serialized nSequence 0 of a single input. */
export const ZERO_SEQUENCE = new Uint8Array(4);
const SHA_SINGLE_ZERO_SEQUENCE = sha256(ZERO_SEQUENCE);
const SHA_BIP322_OUTPUT = sha256(BIP322_OUTPUT);
export const HASH_SINGLE_ZERO_SEQUENCE = sha256(SHA_SINGLE_ZERO_SEQUENCE);
export const HASH_BIP322_OUTPUT = sha256(SHA_BIP322_OUTPUT);

function isBip322Output(outputs: Transaction['outputs']): boolean {
  const only = outputs.length === 1 ? outputs[0]! : undefined;
  return only !== undefined && only.value === 0n && only.script.length === 1 && only.script[0] === 0x6a;
}

function isSingleZeroSequence(inputs: Transaction['inputs']): boolean {
  return inputs.length === 1 && inputs[0]!.sequence === 0;
}

/**
 * Per-transaction sighash midstates (BIP-143 and BIP-341 both hash every input's outpoint,
 * sequence and every output once per transaction, not once per input). BIP-341 commits to the
 * single SHA-256 of each, BIP-143 to the double one; both are kept.
 */
export class SighashCache {
  private shaPrevouts?: Uint8Array;
  private shaSequences?: Uint8Array;
  private shaOutputs?: Uint8Array;
  private shaAmounts?: Uint8Array;
  private shaScriptPubKeys?: Uint8Array;
  private hashPrevouts?: Uint8Array;
  private hashSequence?: Uint8Array;
  private hashOutputs?: Uint8Array;

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
    if (isSingleZeroSequence(this.tx.inputs)) return (this.shaSequences = SHA_SINGLE_ZERO_SEQUENCE);
    const w = new ByteWriter(4 * this.tx.inputs.length);
    for (const input of this.tx.inputs) w.u32(input.sequence);
    return (this.shaSequences = sha256(w.finish()));
  }

  outputsHash(): Uint8Array {
    if (this.shaOutputs) return this.shaOutputs;
    if (isBip322Output(this.tx.outputs)) return (this.shaOutputs = SHA_BIP322_OUTPUT);
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

  /** BIP-143 hashPrevouts: SHA256d of every outpoint. */
  bip143Prevouts(): Uint8Array {
    return (this.hashPrevouts ??= sha256(this.prevoutsHash()));
  }

  /** BIP-143 hashSequence: SHA256d of every nSequence (a constant for simple to_sign). */
  bip143Sequence(): Uint8Array {
    if (this.hashSequence) return this.hashSequence;
    if (isSingleZeroSequence(this.tx.inputs)) return (this.hashSequence = HASH_SINGLE_ZERO_SEQUENCE);
    return (this.hashSequence = sha256(this.sequencesHash()));
  }

  /** BIP-143 hashOutputs: SHA256d of every output (a constant for any BIP-322 to_sign). */
  bip143Outputs(): Uint8Array {
    if (this.hashOutputs) return this.hashOutputs;
    if (isBip322Output(this.tx.outputs)) return (this.hashOutputs = HASH_BIP322_OUTPUT);
    return (this.hashOutputs = sha256(this.outputsHash()));
  }
}

/** The sighash preimages below are hashed as soon as they are written: one scratch serves all. */
const preimageScratch = new Scratch(1024);

/**
 * Original (pre-segwit) SIGHASH_ALL digest: the transaction with every scriptSig emptied except
 * the signed input's, which carries `scriptCode`. BIP-322 forbids OP_CODESEPARATOR and
 * FindAndDelete, so the caller passes the script unmodified after checking for both.
 */
export function legacySighashAll(tx: Transaction, inputIndex: number, scriptCode: Uint8Array): Uint8Array {
  const w = preimageScratch.writer(128 + scriptCode.length + 41 * tx.inputs.length);
  w.u32(tx.version).compactSize(tx.inputs.length);
  for (let i = 0; i < tx.inputs.length; i++) {
    const input = tx.inputs[i]!;
    w.bytes(input.txid).u32(input.vout);
    if (i === inputIndex) w.varBytes(scriptCode);
    else w.u8(0); // an emptied scriptSig
    w.u32(input.sequence);
  }
  w.compactSize(tx.outputs.length);
  for (const output of tx.outputs) w.u64(output.value).varBytes(output.script);
  w.u32(tx.lockTime).u32(SIGHASH_ALL);
  return sha256d(w.finish());
}

/** BIP-143 SIGHASH_ALL digest for a segwit v0 input. */
export function segwitV0SighashAll(cache: SighashCache, inputIndex: number, scriptCode: Uint8Array, amount: bigint): Uint8Array {
  const { tx } = cache;
  const input = tx.inputs[inputIndex]!;
  // Computed before the preimage is written: they may serialize (elsewhere) themselves.
  const hashPrevouts = cache.bip143Prevouts();
  const hashSequence = cache.bip143Sequence();
  const hashOutputs = cache.bip143Outputs();
  const w = preimageScratch.writer(4 + 32 + 32 + 36 + 3 + scriptCode.length + 8 + 4 + 32 + 4 + 4);
  w.u32(tx.version);
  w.bytes(hashPrevouts);
  w.bytes(hashSequence);
  w.bytes(input.txid).u32(input.vout);
  w.varBytes(scriptCode);
  w.u64(amount);
  w.u32(input.sequence);
  w.bytes(hashOutputs);
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
  const shaPrevouts = cache.prevoutsHash();
  const shaAmounts = cache.amountsHash();
  const shaScriptPubKeys = cache.scriptPubKeysHash();
  const shaSequences = cache.sequencesHash();
  const shaOutputs = cache.outputsHash();
  const w = preimageScratch.writer(leafHash ? 212 : 175);
  w.u8(0x00); // epoch
  w.u8(hashType);
  w.u32(tx.version).u32(tx.lockTime);
  w.bytes(shaPrevouts);
  w.bytes(shaAmounts);
  w.bytes(shaScriptPubKeys);
  w.bytes(shaSequences);
  w.bytes(shaOutputs);
  w.u8(leafHash ? 2 : 0); // spend_type = ext_flag * 2 + annex_present
  w.u32(inputIndex);
  if (leafHash) {
    w.bytes(leafHash);
    w.u8(0x00); // key_version
    w.u32(0xffffffff); // codesep_pos: no OP_CODESEPARATOR executed
  }
  return tapSighash(w.finish());
}
