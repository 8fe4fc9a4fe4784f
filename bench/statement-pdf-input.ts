/** What `bench/statement-pdf.ts` hands each measuring process, and what each one reports. */
import type { ChainTx } from '../src/bitcoin/chain/chain-source.js';
import { computeStatement, type StatementInput } from '../src/verify/statements/statement-computation.js';

export interface StatementBenchInput {
  period: StatementInput['period'];
  timezone: string;
  address: string;
  transactions: ChainTx[];
  tip: { height: number; hash: string };
  /** Height before each period boundary (`boundaryHeights`), as [instant, height]. */
  heights: [number, number][];
}

export interface StatementBenchResult {
  ms: number;
  peakMiB: number;
  startMiB: number;
  bytes: number;
  pages: number;
  /** `ours`, `ours-valued`: the part of `ms` spent computing the statement (the rest: document, JWS, PDF). */
  computeMs?: number;
  /** `ours-valued`: the part of `ms` spent looking the prices up (from the candle cache). */
  pricesMs?: number;
}

/** JSON with bigints: `{"$n": "123"}`. */
export const bigintReplacer = (_key: string, value: unknown) => (typeof value === 'bigint' ? { $n: value.toString() } : value);
export const bigintReviver = (_key: string, value: unknown) =>
  value !== null && typeof value === 'object' && '$n' in value ? BigInt((value as { $n: string }).$n) : value;

/** The bench statement of an input, as the statement job computes it. */
export function computeBenchStatement(input: StatementBenchInput) {
  const heights = new Map(input.heights);
  return computeStatement({
    period: input.period,
    timezone: input.timezone,
    claims: [
      { claim_id: 'clm_bench', subject: { type: 'address', address: input.address }, network: 'testnet', addresses: [input.address] },
    ],
    transactions: input.transactions,
    chain: {
      tipHeight: input.tip.height,
      tipHash: input.tip.hash,
      minConfirmations: 6,
      heightBefore: (instant) => heights.get(instant) as number,
    },
  });
}
