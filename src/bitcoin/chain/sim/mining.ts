/** Appending blocks to the simulated chain: the genesis block, and blocks mined from the mempool. */
import { medianTime } from '../block-time.js';
import { REGTEST_BITS, blockSubsidy, merkleRoot, mineHeader, regtestGenesis, witnessCommitment } from './blocks.js';
import type { ChainState, SimBlock, SimTx } from './chain-state.js';
import { buildCoinbase, displayHex, internalBytes } from './transactions.js';

const BLOCK_VERSION = 0x20000000;
const MAX_BLOCK_WEIGHT = 4_000_000;
const COINBASE_WEIGHT_RESERVE = 4_000;

function varintLength(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : 5;
}

/** Makes Bitcoin Core's regtest genesis block the first block of `state`. */
export function connectGenesis(state: ChainState): SimBlock {
  const genesis = regtestGenesis();
  return state.connectBlock(
    {
      height: 0,
      hash: genesis.hash,
      time: genesis.fields.time,
      medianTime: genesis.fields.time,
      previousHash: null,
      version: genesis.fields.version,
      merkleRoot: genesis.fields.merkleRoot,
      bits: genesis.fields.bits,
      nonce: genesis.fields.nonce,
      size: 80 + 1 + genesis.coinbase.size,
      weight: 4 * 81 + genesis.coinbase.weight,
      header: genesis.header,
    },
    genesis.coinbase,
    0,
  );
}

/**
 * Mines the next block at `time`: a coinbase paying subsidy and fees to `payout`, then the oldest
 * mempool transactions (at most `maxTxs`, within the block weight limit). Throws RangeError when
 * `time` is not above the median time past, as consensus requires.
 */
export function mineNextBlock(state: ChainState, payout: Uint8Array, time: number, maxTxs: number): SimBlock {
  const previous = state.tip as SimBlock;
  if (!Number.isInteger(time) || time < 0 || time > 0xffffffff)
    throw new RangeError(`block time must be a Unix time in seconds, got ${time}`);
  if (time <= previous.medianTime) {
    throw new RangeError(`block time ${time} must be above the median time of the previous 11 blocks (${previous.medianTime})`);
  }
  const height = previous.height + 1;
  const included: SimTx[] = [];
  let weight = COINBASE_WEIGHT_RESERVE;
  for (const txid of state.mempool) {
    if (included.length >= maxTxs) break;
    const tx = state.transaction(txid) as SimTx;
    if (weight + tx.weight > MAX_BLOCK_WEIGHT) break;
    weight += tx.weight;
    included.push(tx);
  }
  const fees = included.reduce((sum, tx) => sum + tx.fee, 0n);
  const coinbase = buildCoinbase(
    height,
    [{ script: payout, amount: blockSubsidy(height) + fees }],
    witnessCommitment(included.map((tx) => tx.wtxid)),
  );
  const root = displayHex(merkleRoot([coinbase.txid, ...included.map((tx) => tx.txid)].map(internalBytes)));
  const mined = mineHeader({ version: BLOCK_VERSION, previousHash: previous.hash, merkleRoot: root, time, bits: REGTEST_BITS });
  const count = included.length + 1;
  const times = state.blocks.slice(-10).map((b) => b.time);
  return state.connectBlock(
    {
      height,
      hash: mined.hash,
      time,
      medianTime: medianTime([...times, time]),
      previousHash: previous.hash,
      version: BLOCK_VERSION,
      merkleRoot: root,
      bits: REGTEST_BITS,
      nonce: mined.nonce,
      size: 80 + varintLength(count) + coinbase.size + included.reduce((n, tx) => n + tx.size, 0),
      weight: 4 * (80 + varintLength(count)) + coinbase.weight + included.reduce((n, tx) => n + tx.weight, 0),
      header: mined.header,
    },
    coinbase,
    included.length,
  );
}
