/** What `bench/statement-pdf.ts` hands each measuring process, and what each one reports. */
import type { ChainTx } from '../src/bitcoin/chain/chain-source.js';
import type { StatementInput } from '../src/verify/statement-computation.js';

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
  /** `ours` only: the part of `ms` spent computing the statement (the rest: document, JWS, PDF). */
  computeMs?: number;
}

/** JSON with bigints: `{"$n": "123"}`. */
export const bigintReplacer = (_key: string, value: unknown) => (typeof value === 'bigint' ? { $n: value.toString() } : value);
export const bigintReviver = (_key: string, value: unknown) => (value !== null && typeof value === 'object' && '$n' in value ? BigInt((value as { $n: string }).$n) : value);
