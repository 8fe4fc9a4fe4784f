import { defineHistogram } from '../../platform/metrics/metric.js';

/** One observation per run of the statement job that found its statement pending. */
export const statementGeneration = defineHistogram({
  name: 'ownproof_statement_generation_duration_seconds',
  help: 'Statement computations (chain reads, scan, valuation), by mode and outcome: completed, failed (the statement failed, with its reason), retry (the chain source failed; the job runs again).',
  labelNames: ['mode', 'outcome'],
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 30, 60, 180, 540],
});
