import { eventsOf } from '../../platform/events/event-catalog.js';
import type { ModulePart } from '../../platform/module.js';
import { statementCheckRoutes, statementDocumentRoutes } from './statement-document.routes.js';
import { generateStatementJob } from './statement.jobs.js';
import { statementGeneration } from './statement.metrics.js';
import { statementRoutes } from './statement.routes.js';
import { Statement } from './statement.schemas.js';

/** Statements: statements of shared claims over a period, computed by a job, and their signed PDFs and the check of one. */
export const statementsPart: ModulePart = {
  apiRoutes: [statementRoutes, statementDocumentRoutes],
  publicRoutes: [statementCheckRoutes],
  jobs: [generateStatementJob],
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
