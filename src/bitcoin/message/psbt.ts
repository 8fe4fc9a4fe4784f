import { hex } from '@scure/base';
import { ByteReader, DecodeError, readTransaction, type Decoded, type Transaction, type TxOutput } from './transaction.js';

/** What a proof-of-funds verifier needs from one PSBT input (BIP-174 fields). */
export interface PsbtInput {
  nonWitnessUtxo?: Transaction;
  witnessUtxo?: TxOutput;
  finalScriptSig?: Uint8Array;
  finalScriptWitness?: Uint8Array[];
  /** Key types of any other fields present (a finalized PSBT has none but proprietary ones). */
  otherFields: number[];
}

export interface Psbt {
  unsignedTx: Transaction;
  inputs: PsbtInput[];
}

const MAGIC = [0x70, 0x73, 0x62, 0x74, 0xff];

/**
 * Reads a BIP-174 (version 0) PSBT, keeping only the fields a proof of funds is verified with.
 * Duplicate keys, a missing unsigned transaction, a non-empty scriptSig in it, and trailing
 * bytes are errors; unknown fields are skipped as BIP-174 requires.
 */
export function decodePsbt(bytes: Uint8Array): Decoded<Psbt> {
  try {
    const r = new ByteReader(bytes);
    for (const m of MAGIC) if (r.u8() !== m) return { ok: false, reason: 'the proof of funds is not a PSBT (bad magic bytes)' };
    let unsignedTx: Transaction | undefined;
    readMap(r, (type, key, value) => {
      if (type === 0x00) {
        if (key.length !== 1) throw new DecodeError('malformed unsigned-transaction key');
        const vr = new ByteReader(value);
        unsignedTx = readTransaction(vr);
        if (vr.remaining !== 0) throw new DecodeError('bytes after the unsigned transaction');
      } else if (type === 0xfb) {
        const vr = new ByteReader(value);
        const version = vr.u32();
        if (version !== 0) throw new DecodeError(`PSBT version ${version} is not supported (only version 0)`);
      }
    });
    if (unsignedTx === undefined) return { ok: false, reason: 'the PSBT has no unsigned transaction' };
    const tx: Transaction = unsignedTx;
    for (const input of tx.inputs) {
      if (input.scriptSig.length > 0 || input.witness.length > 0) throw new DecodeError('the unsigned transaction carries signatures');
    }
    const inputs: PsbtInput[] = tx.inputs.map(() => {
      const input: PsbtInput = { otherFields: [] };
      readMap(r, (type, key, value) => {
        if (key.length !== 1 && type <= 0x08) throw new DecodeError(`malformed key for input field 0x${type.toString(16)}`);
        const vr = new ByteReader(value);
        switch (type) {
          case 0x00:
            input.nonWitnessUtxo = readTransaction(vr);
            break;
          case 0x01:
            input.witnessUtxo = { value: vr.u64(), script: vr.varBytes() };
            break;
          case 0x07:
            input.finalScriptSig = vr.take(vr.remaining);
            break;
          case 0x08: {
            const n = vr.count(1);
            const items: Uint8Array[] = [];
            for (let i = 0; i < n; i++) items.push(vr.varBytes());
            input.finalScriptWitness = items;
            break;
          }
          case 0xfc:
            return;
          default:
            input.otherFields.push(type);
            return;
        }
        if (vr.remaining !== 0) throw new DecodeError(`bytes after input field 0x${type.toString(16)}`);
      });
      return input;
    });
    for (let i = 0; i < tx.outputs.length; i++) readMap(r, () => undefined);
    if (r.remaining !== 0) return { ok: false, reason: `${r.remaining} unexpected bytes after the PSBT` };
    return { ok: true, value: { unsignedTx: tx, inputs } };
  } catch (e) {
    if (e instanceof DecodeError) return { ok: false, reason: `malformed PSBT: ${e.message}` };
    throw e;
  }
}

function readMap(r: ByteReader, onEntry: (type: number, key: Uint8Array, value: Uint8Array) => void): void {
  const seen = new Set<string>();
  for (;;) {
    const keyLen = r.compactSize();
    if (keyLen === 0) return;
    const key = r.take(keyLen);
    const value = r.varBytes();
    const id = hex.encode(key);
    if (seen.has(id)) throw new DecodeError(`duplicate key ${id}`);
    seen.add(id);
    onEntry(key[0]!, key, value);
  }
}
