import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ListOf, listResponse } from '../http/pagination.js';
import { errorResponses, IdParams } from '../http/schemas.js';
import { Event, EventListQuery } from './event.schemas.js';
import { listEvents, retrieveEvent } from './event.service.js';

const TAGS = ['Events'];
const EventRef = Type.Ref(Event);

export const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Event);

  app.get(
    '/events',
    {
      schema: {
        tags: TAGS,
        operationId: 'listEvents',
        summary: 'List events',
        description: 'Newest first. Filter by `type` (exact, or a family such as `session.*`) and creation time.',
        querystring: EventListQuery,
        response: { 200: ListOf(EventRef, '/v1/events'), ...errorResponses() },
      },
    },
    async (request) => listResponse(request, await listEvents(app.ctx, request.scope, request.query)),
  );

  app.get(
    '/events/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'retrieveEvent',
        summary: 'Retrieve an event',
        description:
          'One event, exactly as its webhook deliveries carried it: `data.object` is the object as it was right after the change.',
        params: IdParams('evt_', 'event'),
        response: { 200: EventRef, ...errorResponses(404) },
      },
    },
    async (request) => retrieveEvent(app.ctx, request.scope, request.params.id),
  );
};
