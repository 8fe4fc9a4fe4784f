/**
 * Gap-limit scanning (BIP-44 "address gap limit"): derive addresses of each chain in batches and
 * ask the chain source which have been used, until `gap` consecutive addresses after the last used
 * one are unused.
 */
import type { AddressStats, ChainSource } from '../chain/chain-source.js';
import { deriveWalletAddresses, type DerivedAddress, type WalletChain, type WalletDescriptor } from './wallet-descriptor.js';

/** BIP-44's gap limit. */
export const DEFAULT_GAP_LIMIT = 20;

/** Knobs of {@link scanWallet}. */
export interface GapScanOptions {
  /** Consecutive unused addresses that end a chain. Default 20. */
  gap?: number;
  /** Safety bound per chain, for sources that report every address as used. Default 100 000. */
  maxAddressesPerChain?: number;
  /** Count mempool-only activity as use. Default true (a wallet hands out such addresses already). */
  includeMempool?: boolean;
}

/** An address found in use. */
export interface UsedAddress extends DerivedAddress {
  stats: AddressStats;
}

/** Outcome for one chain. */
export interface ChainScan {
  chain: WalletChain;
  used: UsedAddress[];
  /** -1 when no address was used. */
  lastUsedIndex: number;
  /** Addresses derived and checked (indices 0..scanned-1). */
  scanned: number;
  /** The first unused index after the last used one: where the wallet's next address is. */
  nextIndex: number;
  /** True if the scan stopped at `maxAddressesPerChain` rather than at the gap. */
  truncated: boolean;
}

/** Outcome of a wallet scan. */
export interface WalletScan {
  gap: number;
  receive: ChainScan;
  change: ChainScan | undefined;
  /** Every used address of both chains (receive first). */
  used: UsedAddress[];
}

function isUsed(stats: AddressStats, includeMempool: boolean): boolean {
  return stats.chain.txCount > 0 || (includeMempool && stats.mempool.txCount > 0);
}

async function scanChain(
  source: Pick<ChainSource, 'getAddressStats'>,
  wallet: WalletDescriptor,
  chain: WalletChain,
  gap: number,
  max: number,
  includeMempool: boolean,
): Promise<ChainScan> {
  const used: UsedAddress[] = [];
  let lastUsed = -1;
  let next = 0;
  // A descriptor without /* has one address; looking past it would only re-check the same one.
  const limit = wallet.isRange ? max : 1;
  while (next - lastUsed - 1 < gap && next < limit) {
    const count = Math.min(lastUsed + 1 + gap - next, limit - next);
    const batch = deriveWalletAddresses(wallet, chain, next, count);
    const stats = await source.getAddressStats(batch.map((a) => a.address));
    for (const address of batch) {
      const s = stats.get(address.address);
      if (s && isUsed(s, includeMempool)) {
        used.push({ ...address, stats: s });
        lastUsed = address.index;
      }
    }
    next += count;
  }
  const gapReached = next - lastUsed - 1 >= gap;
  return { chain, used, lastUsedIndex: lastUsed, scanned: next, nextIndex: lastUsed + 1, truncated: wallet.isRange && !gapReached };
}

/**
 * Scans the receive and change chains of a wallet against a chain source (one batched
 * `getAddressStats` call per batch of at most `gap` addresses). Rejects when the source does;
 * throws RangeError for a gap below 1.
 */
export async function scanWallet(
  source: Pick<ChainSource, 'getAddressStats'>,
  wallet: WalletDescriptor,
  opts: GapScanOptions = {},
): Promise<WalletScan> {
  const gap = opts.gap ?? DEFAULT_GAP_LIMIT;
  if (!Number.isInteger(gap) || gap < 1) throw new RangeError(`gap must be a positive integer, got ${gap}`);
  const max = opts.maxAddressesPerChain ?? 100_000;
  const includeMempool = opts.includeMempool ?? true;
  const receive = await scanChain(source, wallet, 'receive', gap, max, includeMempool);
  const change = wallet.change ? await scanChain(source, wallet, 'change', gap, max, includeMempool) : undefined;
  return { gap, receive, change, used: [...receive.used, ...(change?.used ?? [])] };
}
