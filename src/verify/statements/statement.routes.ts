import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ListOf, listResponse } from '../../platform/http/pagination.js';
import { errorResponses, IdParams } from '../../platform/http/schemas.js';
import { GenerateStatementBody, Statement, StatementListQuery } from './statement.schemas.js';
import { generateStatement, listStatements, retrieveStatement } from './statement.service.js';

const TAGS = ['Statements'];
const StatementRef = Type.Ref(Statement);

/** Statements of shared claims: generate, read, list. */
export const statementRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Statement);

  app.post(
    '/verify/statements/generate',
    {
      schema: {
        tags: TAGS,
        operationId: 'generateStatement',
        summary: 'Generate a statement',
        description:
          'Asks for a statement of the confirmed Bitcoin activity of claims shared with you over a period: opening and closing balance, ' +
          'every transaction with its amounts in and out, fee and running balance, per calendar month of `timezone` and in total. ' +
          'Answers at once with the statement `pending`; it is computed in the background from the chain, then `completed` ' +
          '(`statement.completed`, with its `summary`) or `failed` (`statement.failed`, with `failure_reason`). ' +
          'A claim not shared with you, or whose sharing was revoked, is 404 `resource_missing` naming it (`claim_ids[i]`); a claim shared ' +
          'without the `statements` permission is 403 `statement_permission_missing` naming it. Rules: docs/verify.md, "Statements".',
        body: GenerateStatementBody,
        response: { 200: StatementRef, ...errorResponses(403, 404) },
      },
    },
    async (request) => generateStatement(app.ctx, request.scope, request.body),
  );

  app.get(
    '/verify/statements/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'retrieveStatement',
        summary: 'Retrieve a statement',
        description:
          'Its status, and once `completed` its `summary`. A completed statement stays readable after the account holder revokes the sharing.',
        params: IdParams('stmt_', 'statement'),
        response: { 200: StatementRef, ...errorResponses(404) },
      },
    },
    async (request) => retrieveStatement(app.ctx, request.scope, request.params.id),
  );

  app.get(
    '/verify/statements',
    {
      schema: {
        tags: TAGS,
        operationId: 'listStatements',
        summary: 'List statements',
        description: 'Newest first; filter by `status` and `account_holder_id`.',
        querystring: StatementListQuery,
        response: { 200: ListOf(StatementRef, '/v1/verify/statements'), ...errorResponses() },
      },
    },
    async (request) => listResponse(request, await listStatements(app.ctx, request.scope, request.query)),
  );
};
