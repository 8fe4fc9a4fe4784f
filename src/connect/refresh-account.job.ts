import { Type } from '@sinclair/typebox';
import { declareJob } from '../platform/jobs/catalog.js';

export const REFRESH_MAX_ATTEMPTS = 3;
/**
 * How long one run walks an exchange's history before it hands the rest to a new job (from the
 * last page's checkpoint), well inside the timeout: a first walk of a long ledger at the
 * exchange's pace (Kraken: ~6 s a page) takes many runs, and must not time out half-way.
 */
export const HISTORY_BUDGET_MS = 80_000;
/**
 * A run stops at the first checkpoint past the budget; the call before it may have waited a whole
 * minute for an account's own limit (Binance's fiat orders, two a minute: the row's accountLimits)
 * and then taken its 20 s: 80 + 63 + 20 s, and the storing, inside this.
 */
const REFRESH_TIMEOUT_MS = 180_000;

/**
 * Fetches balances and/or transactions of one account from its provider and stores them. A provider
 * refusal (rate limit, outage, expired login) is an answer, recorded on the account as a failed
 * refresh; a transient one (rate limit, outage) is also retried automatically, in a new job at
 * `next_refresh_available_at` (see refresh-account.ts). Unexpected errors are retried by the job.
 * A history walk longer than HISTORY_BUDGET_MS goes on in a new job of its own. Run by `connect.module.ts`.
 */
export const refreshAccountJob = declareJob({
  type: 'connect.refresh_account',
  payload: Type.Object({
    account_id: Type.String(),
    features: Type.Array(Type.Union([Type.Literal('balances'), Type.Literal('transactions')]), { minItems: 1 }),
    /** Set on the automatic retries of a transient failure: which one this is (1, 2, …). */
    retry: Type.Optional(Type.Integer({ minimum: 1 })),
  }),
  maxAttempts: REFRESH_MAX_ATTEMPTS,
  timeoutMs: REFRESH_TIMEOUT_MS,
});
