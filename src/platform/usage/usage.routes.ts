import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ListOf, listResponse } from '../http/pagination.js';
import { errorResponses } from '../http/schemas.js';
import { UsageListQuery, UsageRecord } from './usage.schemas.js';
import { listUsage } from './usage.service.js';

export const usageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(UsageRecord);

  app.get(
    '/usage',
    {
      schema: {
        tags: ['Usage'],
        operationId: 'listUsage',
        summary: 'List usage records',
        description:
          'What this client was billed for in this mode, newest first; filter by `type`. Today one type: `statement_pdf`, recorded when a statement’s first PDF ' +
          'is generated (either format) and never again for that statement.',
        querystring: UsageListQuery,
        response: { 200: ListOf(Type.Ref(UsageRecord), '/v1/usage'), ...errorResponses() },
      },
    },
    async (request) => listResponse(request, await listUsage(app.ctx, request.scope, request.query)),
  );
};
