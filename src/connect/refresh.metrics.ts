import { defineCounter } from '../platform/metrics/metric.js';

/** One count per feature a refresh run finished (a history walk handed on to the next run counts when it ends). */
export const accountRefreshes = defineCounter({
  name: 'ownproof_connect_refreshes_total',
  help: 'Account refreshes finished, by mode, provider (sandbox, an exchange id, bitcoin), feature (balances, transactions), outcome (succeeded, failed) and, when failed, error_code (provider_rate_limited, provider_unavailable, reauthentication_required, provider_error).',
  labelNames: ['mode', 'provider', 'feature', 'outcome', 'error_code'],
});
