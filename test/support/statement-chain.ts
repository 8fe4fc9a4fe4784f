/**
 * Hand-made chain data for statement tests: confirmed transactions between the sandbox wallet's
 * addresses and outsiders, and the chain's view of them, for `computeStatement` without a chain.
 */
import { parseAddress } from '../../src/bitcoin/address.js';
import type { ChainTx } from '../../src/bitcoin/chain/chain-source.js';
import { sandboxWallet } from '../../src/bitcoin/sandbox/sandbox-wallet.js';
import { computeStatement, type StatementChainInput, type StatementClaimInput } from '../../src/verify/statements/statement-computation.js';
import type { StatementData, StatementPeriod } from '../../src/verify/statements/statement.schemas.js';

const wallet = sandboxWallet();
export const receive = (i: number) => wallet.address('receive', i);
export const change = (i: number) => wallet.address('change', i);
/** Addresses nobody in these tests claims. */
export const outsider = (i: number) => wallet.address('receive', 1000 + i);

export const scriptOf = (address: string) => {
  const parsed = parseAddress(address);
  if (!parsed.ok) throw new Error(parsed.error.reason);
  return Buffer.from(parsed.address.scriptPubKey).toString('hex');
};

let counter = 0;
/** A hand-made confirmed transaction: inputs spend `[address, sats]`, outputs pay `[address, sats]`; the fee is what is left. */
export function tx(height: number, time: number, inputs: [string, bigint][], outputs: [string, bigint][], spends: string[] = []): ChainTx {
  counter += 1;
  const inSum = inputs.reduce((sum, [, v]) => sum + v, 0n);
  const outSum = outputs.reduce((sum, [, v]) => sum + v, 0n);
  return {
    txid: counter.toString(16).padStart(64, '0'),
    version: 2,
    locktime: 0,
    size: 200,
    weight: 800,
    fee: inputs.length === 0 ? 0n : inSum - outSum,
    inputs: inputs.map(([address, value], i) => ({
      txid: spends[i] ?? 'f'.repeat(64),
      vout: i,
      sequence: 0xffffffff,
      isCoinbase: false,
      prevout: { value, scriptPubKey: scriptOf(address), address },
    })),
    outputs: outputs.map(([address, value], vout) => ({ vout, value, scriptPubKey: scriptOf(address), address })),
    status: { confirmed: true, blockHeight: height, blockHash: height.toString(16).padStart(64, '0'), blockTime: time },
  };
}

/** The chain's view for these transactions: tip far above them; a block counts before an instant by its effective time (running maximum). */
export function chainOf(transactions: readonly ChainTx[], tipHeight = 10_000, minConfirmations = 6): StatementChainInput {
  const blocks = [
    ...new Map(
      transactions.map((t) => [t.status.confirmed ? t.status.blockHeight : -1, t.status.confirmed ? t.status.blockTime : 0]),
    ).entries(),
  ].sort((a, b) => a[0] - b[0]);
  let running = 0;
  const effective = blocks.map(([height, time]) => {
    running = Math.max(running, time);
    return [height, running] as const;
  });
  return {
    tipHeight,
    tipHash: 'ab'.repeat(32),
    minConfirmations,
    heightBefore: (instant: number) => effective.filter(([, time]) => time < instant).at(-1)?.[0] ?? 0,
  };
}

export const addressClaim = (id: string, address: string): StatementClaimInput => ({
  claim_id: id,
  subject: { type: 'address', address },
  network: 'testnet',
  addresses: [address],
});
export const walletClaim = (id: string, addresses: string[]): StatementClaimInput => ({
  claim_id: id,
  subject: { type: 'wallet', descriptor: wallet.descriptor },
  network: 'testnet',
  addresses,
});

/** The statement of one address claim (`clm_a`, receive address 0) over `history` (chainOf's tip). */
export function addressStatement(history: ChainTx[], period: StatementPeriod, timezone: string): StatementData {
  return computeStatement({
    period,
    timezone,
    claims: [addressClaim('clm_a', receive(0))],
    transactions: history,
    chain: chainOf(history),
  });
}
