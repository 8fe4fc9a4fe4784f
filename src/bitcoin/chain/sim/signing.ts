/** Coin selection and signing of the simulated chain's ordinary (signed) transactions. */
import { Transaction } from '@scure/btc-signer';
import type { SimUtxo } from './chain-state.js';
import type { SimAddressType, SimKey } from './sim-keys.js';
import { describeRawTx, type BuiltTx, type OutputSpec } from './transactions.js';

/** Virtual size of one input of each type, for fee estimates. */
export const INPUT_VBYTES: Record<SimAddressType, number> = { p2wpkh: 68, 'p2sh-p2wpkh': 91, p2pkh: 148, p2tr: 58 };

const ZERO_AUX = new Uint8Array(32);

/**
 * Takes `candidates` in order until they cover `amount` plus the fee (at `feeRate` sat/vB, for the
 * outputs given and one change output). Throws when they cannot.
 */
export function selectCoins(
  candidates: readonly SimUtxo[],
  amount: bigint,
  outputs: readonly OutputSpec[],
  inputVbytes: number,
  feeRate: bigint,
): { inputs: SimUtxo[]; fee: bigint } {
  const outputVbytes = outputs.reduce((n, o) => n + 9 + o.script.length, 0) + 9 + 34;
  const inputs: SimUtxo[] = [];
  let total = 0n;
  for (const utxo of candidates) {
    inputs.push(utxo);
    total += utxo.value;
    const fee = feeRate * BigInt(11 + outputVbytes + inputs.length * inputVbytes);
    if (total >= amount + fee) return { inputs, fee };
  }
  throw new Error(`insufficient funds: ${total} sat available, ${amount} sat plus fee needed`);
}

/**
 * Builds and signs a transaction spending `inputs` (all locked to `key`) to `outputs`.
 * `previousRaw` supplies the full previous transaction that legacy (P2PKH) signing needs.
 */
export function signTransaction(
  key: SimKey,
  inputs: readonly SimUtxo[],
  outputs: readonly OutputSpec[],
  previousRaw: (txid: string) => Uint8Array,
): BuiltTx {
  const tx = new Transaction({ allowUnknownOutputs: true });
  for (const utxo of inputs) {
    const base = { txid: utxo.txid, index: utxo.vout };
    if (key.type === 'p2pkh') {
      tx.addInput({ ...base, nonWitnessUtxo: previousRaw(utxo.txid) });
    } else {
      const witnessUtxo = { script: utxo.scriptPubKey, amount: utxo.value };
      if (key.type === 'p2tr') tx.addInput({ ...base, witnessUtxo, tapInternalKey: key.publicKey.subarray(1) });
      else if (key.type === 'p2sh-p2wpkh') tx.addInput({ ...base, witnessUtxo, redeemScript: key.redeemScript as Uint8Array });
      else tx.addInput({ ...base, witnessUtxo });
    }
  }
  for (const output of outputs) tx.addOutput(output);
  // Zero auxiliary randomness keeps Schnorr signatures (hence txids) deterministic; ECDSA is RFC 6979.
  tx.sign(key.privateKey, undefined, ZERO_AUX);
  tx.finalize();
  return describeRawTx(tx.extract());
}
