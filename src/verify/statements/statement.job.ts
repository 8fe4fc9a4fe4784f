import { Type } from '@sinclair/typebox';
import { declareJob } from '../../platform/jobs/catalog.js';

/**
 * Runs of the statement job. With the delays below, a chain source that stays down is retried for
 * about a quarter of an hour (30 s, 1, 2, 4, 8 min) before the statement fails.
 */
export const STATEMENT_MAX_ATTEMPTS = 6;
/** A run longer than this is given up (a wallet with a long history on a slow Esplora server). */
export const STATEMENT_TIMEOUT_MS = 10 * 60_000;

/** Computes a pending statement from the chain (enqueued when it is generated; run by `statements.module-part.ts`). */
export const generateStatementJob = declareJob({
  type: 'verify.generate_statement',
  payload: Type.Object({ statement_id: Type.String() }),
  maxAttempts: STATEMENT_MAX_ATTEMPTS,
  timeoutMs: STATEMENT_TIMEOUT_MS,
  retryDelayMs: (attempt) => 30_000 * 2 ** Math.max(0, attempt - 1),
});
