import { hex } from '@scure/base';
import { addressFromScript, type ParsedAddress } from '../address.js';
import type { NetworkName } from '../network.js';
import { bytesEqual, hash160, sha256, sha256d, taggedHasher } from '../hashes.js';
import type { PsbtInput } from './psbt.js';
import { decodePsbt } from './psbt.js';
import { encodePush, OP } from './script.js';
import { SighashCache, type Prevout } from './sighash.js';
import { verifyInput, type Outcome } from './spend.js';
import { decodeWitnessStack, Scratch, txid, txidToHex, type Transaction } from './transaction.js';

/** An output a proof of funds shows control of. It must still be looked up on chain. */
export interface ProvenOutput {
  txid: string;
  vout: number;
  value_sat: number;
  script_pubkey: string;
  address: string | null;
}

/** A BIP-322 verdict with what the signature commits to besides the message. */
export type Bip322Outcome = Outcome & {
  /** nLockTime and the first input's nSequence, when either is set: "valid at time T and age S". */
  time_lock?: { lock_time: number; sequence: number };
  proven_outputs?: ProvenOutput[];
};

const messageTag = taggedHasher('BIP0322-signed-message');
const OP_RETURN_SCRIPT = Uint8Array.of(OP.RETURN);
const ZERO_HASH = new Uint8Array(32);
const EMPTY = new Uint8Array(0);
const MAX_MONEY = 21_000_000n * 100_000_000n;
/** Legacy sighashes are quadratic in the input count; this bounds the work one proof can ask for. */
export const MAX_PROOF_INPUTS = 500;

/** BIP-322 message hash: the BIP-340 tagged hash of the exact message bytes. */
export function bip322MessageHash(message: Uint8Array): Uint8Array {
  return messageTag(message);
}

/** The virtual `to_spend` transaction of BIP-322 for a message hash and challenge script. */
export function buildToSpend(messageHash: Uint8Array, challenge: Uint8Array): Transaction {
  const scriptSig = new Uint8Array(34);
  scriptSig[0] = OP.OP_0;
  scriptSig[1] = 32;
  scriptSig.set(messageHash, 2);
  return {
    version: 0,
    inputs: [{ txid: ZERO_HASH, vout: 0xffffffff, scriptSig, sequence: 0, witness: [] }],
    outputs: [{ value: 0n, script: challenge }],
    lockTime: 0,
  };
}

/*
 * to_spend's serialization is fixed by BIP-322 except for the message hash and the challenge
 * script: version 0, one input spending 0000…:0xFFFFFFFF with scriptSig OP_0 PUSH32 <hash> and
 * sequence 0, one output of value 0 paying the challenge, nLockTime 0. Its txid is computed on
 * those bytes directly rather than through a Transaction object; fast-paths.test.ts checks it
 * against txid(buildToSpend(...)).
 */
const TO_SPEND_HEAD = Uint8Array.of(
  ...[0, 0, 0, 0], // version 0
  1, // one input
  ...ZERO_HASH, // txid 000…0
  ...[0xff, 0xff, 0xff, 0xff], // vout 0xFFFFFFFF
  34, // scriptSig length
  OP.OP_0,
  32, // PUSH32 (the message hash follows)
);
const TO_SPEND_MIDDLE = Uint8Array.of(
  ...[0, 0, 0, 0], // sequence 0
  1, // one output
  ...[0, 0, 0, 0, 0, 0, 0, 0], // value 0
);

const toSpendScratch = new Scratch(256);

/** txid (internal byte order) of BIP-322's `to_spend` for a message hash and challenge script. */
export function toSpendTxid(messageHash: Uint8Array, challenge: Uint8Array): Uint8Array {
  const w = toSpendScratch.writer(TO_SPEND_HEAD.length + 32 + TO_SPEND_MIDDLE.length + 3 + challenge.length + 4);
  w.bytes(TO_SPEND_HEAD).bytes(messageHash).bytes(TO_SPEND_MIDDLE).varBytes(challenge).u32(0);
  return sha256d(w.finish());
}

const invalid = (reason: string): Bip322Outcome => ({ result: 'invalid', reason });

/**
 * Infers the P2SH redeem script a simple signature implies: BIP-322 simple signatures carry
 * only the witness, and wallets (bip322-js, UniSat, Xverse) emit them for P2SH-P2WPKH. The
 * P2SH-P2WSH candidate is only hashed when the P2SH-P2WPKH one does not match.
 */
function inferRedeemScript(address: ParsedAddress, witness: readonly Uint8Array[]): Uint8Array | undefined {
  const last = witness[witness.length - 1];
  if (last === undefined) return undefined;
  const p2wpkh = concat(OP.OP_0, 20, hash160(last));
  if (bytesEqual(hash160(p2wpkh), address.program)) return p2wpkh;
  const p2wsh = concat(OP.OP_0, 32, sha256(last));
  if (bytesEqual(hash160(p2wsh), address.program)) return p2wsh;
  return undefined;
}

function concat(version: number, length: number, program: Uint8Array): Uint8Array {
  const out = new Uint8Array(2 + program.length);
  out[0] = version;
  out[1] = length;
  out.set(program, 2);
  return out;
}

/** Verifies a BIP-322 simple signature (the encoded witness stack). */
export function verifySimple(address: ParsedAddress, message: Uint8Array, signature: Uint8Array): Bip322Outcome {
  const decoded = decodeWitnessStack(signature);
  if (!decoded.ok) return invalid(`not a BIP-322 simple signature: ${decoded.reason}`);
  const witness = decoded.value;
  if (witness.length === 0) return invalid('the signature is an empty witness stack');
  let scriptSig: Uint8Array = EMPTY;
  if (address.type === 'p2pkh') {
    return invalid('a P2PKH address cannot sign with BIP-322 simple (it has no witness); use the full or legacy format');
  }
  if (address.type === 'p2sh') {
    const redeem = inferRedeemScript(address, witness);
    if (redeem === undefined)
      return invalid('the simple signature does not match this P2SH address (only P2SH-wrapped segwit can use the simple format)');
    scriptSig = encodePush(redeem);
  }
  const toSign: Transaction = {
    version: 0,
    inputs: [{ txid: toSpendTxid(bip322MessageHash(message), address.scriptPubKey), vout: 0, scriptSig, sequence: 0, witness }],
    outputs: [{ value: 0n, script: OP_RETURN_SCRIPT }],
    lockTime: 0,
  };
  return verifyInput(new SighashCache(toSign, [{ script: address.scriptPubKey, value: 0n }]), 0);
}

/**
 * The structural checks BIP-322 puts on a full `to_sign`: it spends `to_spend` (which binds
 * message and address) and has a single empty OP_RETURN output.
 */
function checkToSign(tx: Transaction, address: ParsedAddress, message: Uint8Array): Bip322Outcome | undefined {
  const first = tx.inputs[0];
  if (first === undefined) return invalid('to_sign has no inputs');
  const toSpendId = toSpendTxid(bip322MessageHash(message), address.scriptPubKey);
  if (!bytesEqual(first.txid, toSpendId) || first.vout !== 0) {
    return invalid('the signature is for a different message or address (to_sign does not spend this to_spend)');
  }
  const out = tx.outputs[0];
  if (tx.outputs.length !== 1 || out === undefined || out.value !== 0n || !bytesEqual(out.script, OP_RETURN_SCRIPT)) {
    return invalid('to_sign must have exactly one output: zero value, script OP_RETURN');
  }
  if (tx.version !== 0 && tx.version !== 2) {
    return { result: 'inconclusive', reason: `to_sign version ${tx.version} is reserved for upgrades (BIP-322 allows 0 or 2)` };
  }
  return undefined;
}

function withTimeLock(outcome: Bip322Outcome, tx: Transaction): Bip322Outcome {
  const sequence = tx.inputs[0]!.sequence;
  if (outcome.result !== 'valid' || (tx.lockTime === 0 && sequence === 0)) return outcome;
  return { ...outcome, time_lock: { lock_time: tx.lockTime, sequence } };
}

/** Verifies a BIP-322 full signature: a complete signed `to_sign` transaction. */
export function verifyFull(address: ParsedAddress, message: Uint8Array, tx: Transaction): Bip322Outcome {
  const structural = checkToSign(tx, address, message);
  if (structural) return structural;
  if (tx.inputs.length > 1) {
    return {
      result: 'inconclusive',
      reason: 'to_sign has additional inputs (a proof of funds) whose outputs are unknown; send it as a "pof" PSBT',
    };
  }
  const outcome = verifyInput(new SighashCache(tx, [{ script: address.scriptPubKey, value: 0n }]), 0);
  return withTimeLock(outcome, tx);
}

/**
 * The output an input spends, from its own UTXO fields or, failing that, from another input's
 * non-witness UTXO with the same txid (generators include a shared parent transaction once).
 * Non-witness UTXOs are only trusted after their txid is checked: `parentId` is the txid of the
 * input's own non-witness UTXO, if it has one.
 */
function prevoutOf(
  input: PsbtInput,
  parentId: string | undefined,
  parents: ReadonlyMap<string, Transaction>,
  outpointTxid: string,
  vout: number,
): Prevout | string {
  const parent = parents.get(outpointTxid);
  if (parentId !== undefined && parentId !== outpointTxid) {
    return 'its non-witness UTXO transaction does not match the outpoint';
  }
  if (parent !== undefined) {
    const out = parent.outputs[vout];
    if (out === undefined) return 'its non-witness UTXO transaction has no such output';
    if (input.witnessUtxo !== undefined && (input.witnessUtxo.value !== out.value || !bytesEqual(input.witnessUtxo.script, out.script))) {
      return 'its witness UTXO contradicts its non-witness UTXO';
    }
    return out;
  }
  if (input.witnessUtxo !== undefined) return input.witnessUtxo;
  return 'it carries no UTXO (witness or non-witness)';
}

/**
 * Verifies a BIP-322 proof of funds: a finalized PSBT of `to_sign` whose extra inputs spend the
 * outputs being proven. Each input is verified against the UTXO the PSBT states; whether those
 * outputs exist unspent is for the caller to check on chain (they are returned as `proven_outputs`).
 */
export function verifyProofOfFunds(
  address: ParsedAddress,
  message: Uint8Array,
  signature: Uint8Array,
  network: NetworkName,
): Bip322Outcome {
  const decoded = decodePsbt(signature);
  if (!decoded.ok) return invalid(`not a BIP-322 proof of funds: ${decoded.reason}`);
  const { unsignedTx: tx, inputs } = decoded.value;
  if (tx.inputs.length > MAX_PROOF_INPUTS)
    return invalid(`the proof has ${tx.inputs.length} inputs, more than the ${MAX_PROOF_INPUTS} we verify`);
  for (let i = 0; i < tx.inputs.length; i++) {
    const input = inputs[i]!;
    if (input.finalScriptSig === undefined && input.finalScriptWitness === undefined) return invalid(`PSBT input ${i} is not finalized`);
    // BIP-322 asks for a finalized PSBT: only UTXO and final fields remain. Anything else is
    // either an unfinished PSBT or bytes that the proof does not vouch for.
    const extra = input.otherFields[0];
    if (extra !== undefined)
      return invalid(`PSBT input ${i} is not finalized: it still carries field type 0x${extra.toString(16).padStart(2, '0')}`);
    tx.inputs[i]!.scriptSig = input.finalScriptSig ?? EMPTY;
    tx.inputs[i]!.witness = input.finalScriptWitness ?? [];
  }
  const structural = checkToSign(tx, address, message);
  if (structural) return structural;

  // Each parent transaction is hashed once (they can be large), here.
  const parentIds: (string | undefined)[] = [];
  const parents = new Map<string, Transaction>();
  for (const { nonWitnessUtxo: parent } of inputs) {
    if (parent === undefined) {
      parentIds.push(undefined);
    } else {
      const id = hex.encode(txid(parent));
      parentIds.push(id);
      parents.set(id, parent);
    }
  }
  const prevouts: Prevout[] = [{ script: address.scriptPubKey, value: 0n }];
  const seen = new Set<string>();
  const proven: ProvenOutput[] = [];
  for (let i = 0; i < tx.inputs.length; i++) {
    const { txid: id, vout } = tx.inputs[i]!;
    const outpointTxid = hex.encode(id);
    const key = `${outpointTxid}:${vout}`;
    if (seen.has(key)) return invalid(`input ${i} spends the same output as an earlier input`);
    seen.add(key);
    const prevout = prevoutOf(inputs[i]!, parentIds[i], parents, outpointTxid, vout);
    if (i === 0) {
      // Input 0 spends our own to_spend; a PSBT that states something else for it is corrupt.
      const own = inputs[0]!;
      const stated = own.witnessUtxo !== undefined || own.nonWitnessUtxo !== undefined;
      if (stated && (typeof prevout === 'string' || prevout.value !== 0n || !bytesEqual(prevout.script, address.scriptPubKey))) {
        return invalid('PSBT input 0 states a UTXO other than the to_spend output of this message and address');
      }
      continue;
    }
    if (typeof prevout === 'string') return invalid(`PSBT input ${i} cannot be checked: ${prevout}`);
    if (prevout.value > MAX_MONEY) return invalid(`PSBT input ${i} claims more than 21 million BTC`);
    prevouts.push(prevout);
    proven.push({
      txid: txidToHex(id),
      vout,
      value_sat: Number(prevout.value),
      script_pubkey: hex.encode(prevout.script),
      address: addressFromScript(prevout.script, network) ?? null,
    });
  }
  const cache = new SighashCache(tx, prevouts);
  let inconclusive: Bip322Outcome | undefined;
  for (let i = 0; i < tx.inputs.length; i++) {
    const outcome = verifyInput(cache, i);
    if (outcome.result === 'invalid') return invalid(`input ${i}: ${outcome.reason}`);
    if (outcome.result === 'inconclusive') inconclusive ??= { result: 'inconclusive', reason: `input ${i}: ${outcome.reason}` };
  }
  if (inconclusive) return inconclusive;
  return { ...withTimeLock({ result: 'valid' }, tx), proven_outputs: proven };
}
