/**
 * Esplora JSON ⇄ chain-source types. Parsing checks every field it uses, because the server is
 * outside our control: a malformed answer becomes ChainSourceError('bad_response'), never a
 * silently wrong amount. Rendering is what the simulated chain's server sends.
 */
import {
  ChainSourceError,
  type AddressActivity,
  type AddressStats,
  type BlockSummary,
  type ChainTx,
  type TxInput,
  type TxOutput,
  type TxStatus,
  type Utxo,
} from '../chain-source.js';

type JsonObject = Record<string, unknown>;

function bad(what: string): never {
  throw new ChainSourceError('bad_response', `unexpected Esplora response: ${what}`);
}

function object(value: unknown, what: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) bad(`${what} is not an object`);
  return value as JsonObject;
}

function array(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) bad(`${what} is not an array`);
  return value;
}

function integer(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) bad(`${what} is not a non-negative integer`);
  return value;
}

function satoshis(value: unknown, what: string): bigint {
  return BigInt(integer(value, what));
}

function hexString(value: unknown, what: string, bytes?: number): string {
  if (typeof value !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(value)) bad(`${what} is not hex`);
  if (bytes !== undefined && value.length !== bytes * 2) bad(`${what} is not ${bytes} bytes`);
  return value.toLowerCase();
}

function optionalString(value: unknown, what: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') bad(`${what} is not a string`);
  return value;
}

/** Parses a 32-byte hash body such as `/blocks/tip/hash` or `/block-height/:h`. */
export function parseHashBody(body: string, what: string): string {
  return hexString(body.trim(), what, 32);
}

/** Parses a JSON body, mapping syntax errors to ChainSourceError. */
export function parseJsonBody(body: string, what: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    bad(`${what} is not JSON`);
  }
}

export function parseEsploraStatus(value: unknown, what = 'status'): TxStatus {
  const s = object(value, what);
  if (s.confirmed === false) return { confirmed: false };
  if (s.confirmed !== true) bad(`${what}.confirmed is not a boolean`);
  return {
    confirmed: true,
    blockHeight: integer(s.block_height, `${what}.block_height`),
    blockHash: hexString(s.block_hash, `${what}.block_hash`, 32),
    blockTime: integer(s.block_time, `${what}.block_time`),
  };
}

function parseOutput(value: unknown, vout: number, what: string): TxOutput {
  const o = object(value, what);
  const address = optionalString(o.scriptpubkey_address, `${what}.scriptpubkey_address`);
  return {
    vout,
    value: satoshis(o.value, `${what}.value`),
    scriptPubKey: hexString(o.scriptpubkey, `${what}.scriptpubkey`),
    ...(address ? { address } : {}),
  };
}

function parseInput(value: unknown, what: string): TxInput {
  const i = object(value, what);
  const isCoinbase = i.is_coinbase === true;
  const input: TxInput = {
    txid: hexString(i.txid, `${what}.txid`, 32),
    vout: integer(i.vout, `${what}.vout`),
    sequence: integer(i.sequence, `${what}.sequence`),
    isCoinbase,
  };
  if (!isCoinbase) {
    const prevout = parseOutput(i.prevout, 0, `${what}.prevout`);
    input.prevout = {
      value: prevout.value,
      scriptPubKey: prevout.scriptPubKey,
      ...(prevout.address ? { address: prevout.address } : {}),
    };
  }
  return input;
}

/** Parses one transaction of `/tx/:txid` or of an address history page. */
export function parseEsploraTx(value: unknown): ChainTx {
  const t = object(value, 'transaction');
  const txid = hexString(t.txid, 'txid', 32);
  const inputs = array(t.vin, `${txid}.vin`).map((v, n) => parseInput(v, `${txid}.vin[${n}]`));
  const outputs = array(t.vout, `${txid}.vout`).map((v, n) => parseOutput(v, n, `${txid}.vout[${n}]`));
  const isCoinbase = inputs.length === 1 && inputs[0]?.isCoinbase === true;
  return {
    txid,
    version: integer(t.version, `${txid}.version`),
    locktime: integer(t.locktime, `${txid}.locktime`),
    size: integer(t.size, `${txid}.size`),
    weight: integer(t.weight, `${txid}.weight`),
    fee: isCoinbase ? 0n : satoshis(t.fee, `${txid}.fee`),
    inputs,
    outputs,
    status: parseEsploraStatus(t.status, `${txid}.status`),
  };
}

/** Parses a page of transactions. */
export function parseEsploraTxList(value: unknown, what: string): ChainTx[] {
  return array(value, what).map(parseEsploraTx);
}

/** Parses `/block/:hash` or one element of `/blocks/:height`. */
export function parseEsploraBlock(value: unknown): BlockSummary {
  const b = object(value, 'block');
  const height = integer(b.height, 'block.height');
  const time = integer(b.timestamp, 'block.timestamp');
  const previous = b.previousblockhash;
  return {
    height,
    hash: hexString(b.id, 'block.id', 32),
    time,
    // Some servers omit mediantime; a single timestamp is the closest honest stand-in.
    medianTime: b.mediantime === undefined ? time : integer(b.mediantime, 'block.mediantime'),
    previousHash: previous === null || previous === undefined ? null : hexString(previous, 'block.previousblockhash', 32),
    txCount: integer(b.tx_count, 'block.tx_count'),
  };
}

function parseActivity(value: unknown, what: string): AddressActivity {
  const a = object(value, what);
  return {
    txCount: integer(a.tx_count, `${what}.tx_count`),
    fundedCount: integer(a.funded_txo_count, `${what}.funded_txo_count`),
    fundedSum: satoshis(a.funded_txo_sum, `${what}.funded_txo_sum`),
    spentCount: integer(a.spent_txo_count, `${what}.spent_txo_count`),
    spentSum: satoshis(a.spent_txo_sum, `${what}.spent_txo_sum`),
  };
}

/** Parses `/address/:addr`. */
export function parseEsploraAddress(value: unknown, address: string): AddressStats {
  const a = object(value, 'address');
  return { address, chain: parseActivity(a.chain_stats, 'chain_stats'), mempool: parseActivity(a.mempool_stats, 'mempool_stats') };
}

/** Parses `/address/:addr/utxo`. */
export function parseEsploraUtxos(value: unknown, address: string): Utxo[] {
  return array(value, 'utxo list').map((v, n) => {
    const u = object(v, `utxo[${n}]`);
    return {
      txid: hexString(u.txid, `utxo[${n}].txid`, 32),
      vout: integer(u.vout, `utxo[${n}].vout`),
      value: satoshis(u.value, `utxo[${n}].value`),
      address,
      status: parseEsploraStatus(u.status, `utxo[${n}].status`),
    };
  });
}

/** Esplora's name for the type of an output script. */
export function esploraScriptType(scriptHex: string): string {
  const s = scriptHex;
  if (s.length === 50 && s.startsWith('76a914') && s.endsWith('88ac')) return 'p2pkh';
  if (s.length === 46 && s.startsWith('a914') && s.endsWith('87')) return 'p2sh';
  if (s.length === 44 && s.startsWith('0014')) return 'v0_p2wpkh';
  if (s.length === 68 && s.startsWith('0020')) return 'v0_p2wsh';
  if (s.length === 68 && s.startsWith('5120')) return 'v1_p2tr';
  if (s.startsWith('6a')) return 'op_return';
  if ((s.length === 70 && s.startsWith('21')) || (s.length === 134 && s.startsWith('41'))) return s.endsWith('ac') ? 'p2pk' : 'unknown';
  return 'unknown';
}

function renderStatus(status: TxStatus): JsonObject {
  return status.confirmed
    ? { confirmed: true, block_height: status.blockHeight, block_hash: status.blockHash, block_time: status.blockTime }
    : { confirmed: false };
}

function renderOutput(out: { value: bigint; scriptPubKey: string; address?: string }): JsonObject {
  return {
    scriptpubkey: out.scriptPubKey,
    scriptpubkey_type: esploraScriptType(out.scriptPubKey),
    ...(out.address ? { scriptpubkey_address: out.address } : {}),
    value: Number(out.value),
  };
}

/** Witness and scriptSig data the chain-source types leave out but Esplora reports. */
export interface TxSpendData {
  scriptSigs: readonly string[];
  witnesses: readonly (readonly string[])[];
}

/** Renders a transaction the way Esplora's `/tx/:txid` does (without the *_asm fields). */
export function renderEsploraTx(tx: ChainTx, spend?: TxSpendData): JsonObject {
  return {
    txid: tx.txid,
    version: tx.version,
    locktime: tx.locktime,
    vin: tx.inputs.map((input, n) => {
      const witness = spend?.witnesses[n];
      return {
        txid: input.txid,
        vout: input.vout,
        prevout: input.prevout ? renderOutput(input.prevout) : null,
        scriptsig: spend?.scriptSigs[n] ?? '',
        ...(witness && witness.length > 0 ? { witness: [...witness] } : {}),
        is_coinbase: input.isCoinbase,
        sequence: input.sequence,
      };
    }),
    vout: tx.outputs.map(renderOutput),
    size: tx.size,
    weight: tx.weight,
    fee: Number(tx.fee),
    status: renderStatus(tx.status),
  };
}

/** Renders a block header summary as `/block/:hash` does. */
export function renderEsploraBlock(
  block: BlockSummary & { version: number; merkleRoot: string; bits: number; nonce: number; size: number; weight: number },
): JsonObject {
  return {
    id: block.hash,
    height: block.height,
    version: block.version,
    timestamp: block.time,
    tx_count: block.txCount,
    size: block.size,
    weight: block.weight,
    merkle_root: block.merkleRoot,
    previousblockhash: block.previousHash,
    mediantime: block.medianTime,
    nonce: block.nonce,
    bits: block.bits,
    difficulty: 0,
  };
}

function renderActivity(a: AddressActivity): JsonObject {
  return {
    funded_txo_count: a.fundedCount,
    funded_txo_sum: Number(a.fundedSum),
    spent_txo_count: a.spentCount,
    spent_txo_sum: Number(a.spentSum),
    tx_count: a.txCount,
  };
}

/** Renders `/address/:addr`. */
export function renderEsploraAddress(stats: AddressStats): JsonObject {
  return { address: stats.address, chain_stats: renderActivity(stats.chain), mempool_stats: renderActivity(stats.mempool) };
}

/** Renders `/address/:addr/utxo`. */
export function renderEsploraUtxos(utxos: readonly Utxo[]): JsonObject[] {
  return utxos.map((u) => ({ txid: u.txid, vout: u.vout, status: renderStatus(u.status), value: Number(u.value) }));
}
