import { Type } from '@sinclair/typebox';
import { defineJob, lazyModule } from '../platform/jobs/catalog.js';

const refreshModule = lazyModule(() => import('./refresh-account.js'));

export const REFRESH_MAX_ATTEMPTS = 3;

/**
 * Fetches balances and/or transactions of one account from its provider and stores them. A provider
 * refusal (rate limit, outage, expired login) is an answer, recorded on the account as a failed
 * refresh; only unexpected errors are retried.
 */
export const refreshAccountJob = defineJob({
  type: 'connect.refresh_account',
  payload: Type.Object({
    account_id: Type.String(),
    features: Type.Array(Type.Union([Type.Literal('balances'), Type.Literal('transactions')]), { minItems: 1 }),
  }),
  maxAttempts: REFRESH_MAX_ATTEMPTS,
  timeoutMs: 120_000,
  async run(payload, run) {
    const { refreshAccount } = await refreshModule();
    await refreshAccount(run.ctx, payload.account_id, payload.features, { lastAttempt: run.attempt >= REFRESH_MAX_ATTEMPTS, signal: run.signal });
  },
});
