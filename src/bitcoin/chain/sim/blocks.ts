/**
 * Block assembly for the simulated chain: merkle roots, the BIP-141 witness commitment, header
 * serialization and a real proof of work at regtest difficulty (bits 0x207fffff, so about one
 * nonce in two qualifies).
 */
import { hex } from '@scure/base';
import { sha256d } from '../../hashes.js';
import { describeRawTx, displayHex, internalBytes, type BuiltTx } from './transactions.js';

/** Regtest's proof-of-work limit in compact form. */
export const REGTEST_BITS = 0x207fffff;

/** Regtest's subsidy halves every 150 blocks (Bitcoin Core's chainparams). */
export const REGTEST_HALVING_INTERVAL = 150;

/** A coinbase output can be spent in a block at least this many blocks above its own. */
export const COINBASE_MATURITY = 100;

/** Block subsidy at a height under regtest rules. */
export function blockSubsidy(height: number): bigint {
  const halvings = Math.floor(height / REGTEST_HALVING_INTERVAL);
  return halvings >= 64 ? 0n : (50n * 100_000_000n) >> BigInt(halvings);
}

/** Bitcoin's merkle root over internal-order hashes (the last one doubled on odd levels). */
export function merkleRoot(hashes: readonly Uint8Array[]): Uint8Array {
  if (hashes.length === 0) throw new Error('a merkle tree needs at least one leaf');
  let level = [...hashes];
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i] as Uint8Array;
      const right = level[i + 1] ?? left;
      const pair = new Uint8Array(64);
      pair.set(left);
      pair.set(right, 32);
      next.push(sha256d(pair));
    }
    level = next;
  }
  return level[0] as Uint8Array;
}

/** BIP-141 commitment: SHA256d(witness merkle root ‖ 32 zero bytes), the coinbase's wtxid counting as zero. */
export function witnessCommitment(wtxidsWithoutCoinbase: readonly string[]): Uint8Array {
  const root = merkleRoot([new Uint8Array(32), ...wtxidsWithoutCoinbase.map(internalBytes)]);
  const data = new Uint8Array(64);
  data.set(root);
  return sha256d(data);
}

/** Header fields, hashes in display order. */
export interface HeaderFields {
  version: number;
  previousHash: string;
  merkleRoot: string;
  time: number;
  bits: number;
  nonce: number;
}

/** The 80-byte block header. */
export function serializeHeader(fields: HeaderFields): Uint8Array {
  const header = new Uint8Array(80);
  const view = new DataView(header.buffer);
  view.setInt32(0, fields.version, true);
  header.set(internalBytes(fields.previousHash), 4);
  header.set(internalBytes(fields.merkleRoot), 36);
  view.setUint32(68, fields.time, true);
  view.setUint32(72, fields.bits, true);
  view.setUint32(76, fields.nonce, true);
  return header;
}

function targetFromBits(bits: number): bigint {
  const exponent = bits >>> 24;
  const mantissa = BigInt(bits & 0x007fffff);
  return exponent <= 3 ? mantissa >> BigInt(8 * (3 - exponent)) : mantissa << BigInt(8 * (exponent - 3));
}

/** Whether a header's hash meets the target its bits encode. */
export function meetsTarget(header: Uint8Array, bits: number): boolean {
  const hash = sha256d(header);
  return BigInt(`0x${hex.encode(Uint8Array.from(hash).reverse())}`) <= targetFromBits(bits);
}

/** Finds the first nonce from 0 that satisfies the proof of work. */
export function mineHeader(fields: Omit<HeaderFields, 'nonce'>): { header: Uint8Array; hash: string; nonce: number } {
  for (let nonce = 0; nonce <= 0xffffffff; nonce++) {
    const header = serializeHeader({ ...fields, nonce });
    if (meetsTarget(header, fields.bits)) return { header, hash: displayHex(sha256d(header)), nonce };
  }
  throw new Error('no nonce satisfies the target');
}

/** Regtest's genesis block, rebuilt from its published fields (Bitcoin Core's chainparams). */
export function regtestGenesis(): { coinbase: BuiltTx; header: Uint8Array; hash: string; fields: HeaderFields } {
  const coinbase = describeRawTx(
    hex.decode(
      '01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000',
    ),
  );
  const fields: HeaderFields = {
    version: 1,
    previousHash: '00'.repeat(32),
    merkleRoot: coinbase.txid,
    time: 1296688602,
    bits: REGTEST_BITS,
    nonce: 2,
  };
  const header = serializeHeader(fields);
  return { coinbase, header, hash: displayHex(sha256d(header)), fields };
}
