/**
 * The balance-at-time rule: "as of t" means after the last block whose timestamp is ≤ t, where a
 * block's timestamp is replaced by the running maximum of the timestamps up to it. Bitcoin lets a
 * block carry a timestamp below its predecessor's (it only has to exceed the median of the
 * previous 11); without the running maximum a later block could count "before" an earlier one and
 * the cutoff would not be a prefix of the chain. See README.md.
 */

/**
 * Exact rule over a complete list of effective times (running maxima, index = height): the
 * greatest height whose effective time is ≤ t, or -1.
 */
export function heightAtTimeFromEffectiveTimes(effectiveTimes: readonly number[], time: number): number {
  let lo = 0;
  let hi = effectiveTimes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((effectiveTimes[mid] as number) <= time) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** Median of block timestamps, the way BIP-113 computes median-time-past. */
export function medianTime(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Random access to block times of a remote chain. */
export interface BlockTimeReader {
  tipHeight: number;
  blockTimes(height: number): Promise<{ time: number; medianTime: number }>;
}

/**
 * How far below the first block whose median time exceeds t a block with a timestamp above t can
 * still hide. Nodes reject timestamps more than 2 h ahead of their clock, and the median of 11
 * honest blocks passes such a timestamp about an hour later, so in practice an outlier sits within
 * ~20 blocks; 72 blocks (about 12 hours) leaves a wide margin.
 */
export const DEFAULT_TIME_LOOKBACK = 72;

/**
 * The same rule for a chain read block by block (the Esplora client): binary search on the
 * median time (which never decreases), then a scan of the `lookback` blocks below it for the first
 * timestamp above t. Equal to the exact rule unless a timestamp above t lies more than `lookback`
 * blocks below the first block whose median time exceeds t.
 */
export async function findHeightAtTime(reader: BlockTimeReader, time: number, lookback = DEFAULT_TIME_LOOKBACK): Promise<number> {
  let lo = 0;
  let hi = reader.tipHeight + 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((await reader.blockTimes(mid)).medianTime > time) hi = mid;
    else lo = mid + 1;
  }
  const end = Math.min(lo, reader.tipHeight);
  const start = Math.max(0, lo - lookback);
  let firstLater = -1;
  for (let h = end; h >= start; h--) {
    if ((await reader.blockTimes(h)).time > time) firstLater = h;
  }
  if (firstLater >= 0) return firstLater - 1;
  return lo > reader.tipHeight ? reader.tipHeight : lo - 1;
}
