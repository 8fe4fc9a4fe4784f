/**
 * Balance of a set of addresses at a height or time, computed from address histories so that any
 * {@link ChainSource} gets the same rule (README.md): transactions in blocks up to the cutoff count
 * once they have `minConfirmations` confirmations at the current tip; mempool transactions never
 * count.
 */
import {
  DEFAULT_MIN_CONFIRMATIONS,
  type Balance,
  type BalanceAmounts,
  type BalanceAt,
  type BalanceOptions,
  type ChainSource,
  type ChainTx,
} from './chain-source.js';

/** The part of a chain source the balance computation reads. */
export type BalanceDataSource = Pick<ChainSource, 'getTip' | 'getHeightAtTime' | 'streamAddressHistory'>;

/** Net effect of one transaction on one address: received outputs minus spent inputs. */
export function netValueForAddress(tx: ChainTx, address: string): bigint {
  let net = 0n;
  for (const out of tx.outputs) if (out.address === address) net += out.value;
  for (const input of tx.inputs) if (input.prevout?.address === address) net -= input.prevout.value;
  return net;
}

function checkMinConfirmations(value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`minConfirmations must be an integer ≥ 1, got ${value}`);
  return value;
}

/**
 * Computes a {@link Balance}. Duplicate addresses are counted once. Throws RangeError for a
 * `minConfirmations` below 1 (a programming error); rejects when the source does.
 */
export async function computeBalance(
  source: BalanceDataSource,
  addresses: readonly string[],
  at: BalanceAt,
  opts: BalanceOptions = {},
): Promise<Balance> {
  const minConfirmations = checkMinConfirmations(opts.minConfirmations ?? DEFAULT_MIN_CONFIRMATIONS);
  const tip = await source.getTip();
  let cutoffHeight: number;
  if ('height' in at) {
    if (!Number.isInteger(at.height)) throw new RangeError(`height must be an integer, got ${at.height}`);
    cutoffHeight = Math.max(-1, Math.min(at.height, tip.height));
  } else {
    cutoffHeight = await source.getHeightAtTime(at.time);
  }
  const unique = [...new Set(addresses)];
  const byAddress = new Map<string, BalanceAmounts>();
  await Promise.all(
    unique.map(async (address) => {
      const amounts: BalanceAmounts = { confirmed: 0n, pending: 0n };
      byAddress.set(address, amounts);
      if (cutoffHeight < 0) return;
      for await (const tx of source.streamAddressHistory(address, { includeMempool: false })) {
        if (!tx.status.confirmed || tx.status.blockHeight > cutoffHeight) continue;
        const net = netValueForAddress(tx, address);
        if (tip.height - tx.status.blockHeight + 1 >= minConfirmations) amounts.confirmed += net;
        else amounts.pending += net;
      }
    }),
  );
  let confirmed = 0n;
  let pending = 0n;
  for (const address of unique) {
    const amounts = byAddress.get(address) as BalanceAmounts;
    confirmed += amounts.confirmed;
    pending += amounts.pending;
  }
  return {
    at,
    cutoffHeight,
    tipHeight: tip.height,
    minConfirmations,
    final: cutoffHeight < 0 || tip.height - cutoffHeight + 1 >= minConfirmations,
    confirmed,
    pending,
    byAddress: new Map(unique.map((a) => [a, byAddress.get(a) as BalanceAmounts])),
  };
}
