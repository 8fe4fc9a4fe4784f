import { eventsOf } from '../../platform/events/event-catalog.js';
import { defineJob } from '../../platform/jobs/catalog.js';
import { lazyModule } from '../../platform/lazy-module.js';
import type { ModulePart } from '../../platform/module.js';
import { statementCheckRoutes, statementDocumentRoutes } from './statement-document.routes.js';
import { generateStatementJob, STATEMENT_MAX_ATTEMPTS, STATEMENT_TIMEOUT_MS } from './statement.job.js';
import { statementGeneration } from './statement.metrics.js';
import { statementRoutes } from './statement.routes.js';
import { Statement } from './statement.schemas.js';

/** The job's work (the chain, computation, valuation) loads in the worker that first runs one. */
const generation = lazyModule(() => import('./statement-generation.js'));

const generateStatement = defineJob({
  ...generateStatementJob,
  async run(payload, run) {
    const { completeStatement } = await generation();
    await completeStatement(run.ctx, payload.statement_id, {
      lastAttempt: run.attempt >= STATEMENT_MAX_ATTEMPTS,
      // Ends the run a little before the worker would, so even a last run that is too slow fails the statement itself.
      deadlineMs: STATEMENT_TIMEOUT_MS - 60_000,
      log: run.log,
    });
  },
});

/** Statements: statements of shared claims over a period, computed by a job, and their signed PDFs and the check of one. */
export const statementsPart: ModulePart = {
  apiRoutes: [statementRoutes, statementDocumentRoutes],
  publicRoutes: [statementCheckRoutes],
  jobs: [generateStatement],
  events: eventsOf(Statement, {
    'statement.completed':
      'The statement is ready (the spec’s “statement completed”): `completed`, with its `summary`, `chain` and, when one was asked for, its ' +
      '`valuation`. Its PDF can be downloaded now.',
    'statement.failed': 'The statement could not be computed: `failed`, with its `failure_reason`. Generate a new one.',
  }),
  metrics: [statementGeneration],
  openApiTags: [
    {
      name: 'Statements',
      description: 'Statements of the confirmed Bitcoin activity of shared claims over a period, per month of a time zone.',
    },
  ],
};
