import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import { publicErrorResponses } from './schemas.js';

const Health = Type.Object({ status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]) });

/** Probes for orchestrators: `/healthz` says the process serves, `/readyz` that the database answers. */
export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['Health'],
        operationId: 'checkLiveness',
        summary: 'Liveness',
        description: 'Answers 200 while the process can serve requests.',
        security: [],
        // Like any route, it refuses a query string holding text no store can keep (storable-text.ts).
        response: { 200: Health, ...publicErrorResponses(400) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Health'],
        operationId: 'checkReadiness',
        summary: 'Readiness',
        description: 'Answers 200 when the database is reachable, 503 otherwise.',
        security: [],
        response: { 200: Health, 503: Health, ...publicErrorResponses(400) },
      },
    },
    async (request, reply) => {
      try {
        await sql`select 1`.execute(app.ctx.db);
        return { status: 'ok' as const };
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check: database unreachable');
        return reply.status(503).send({ status: 'unavailable' as const });
      }
    },
  );
};
