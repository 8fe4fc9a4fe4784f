import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ListOf, listResponse } from '../platform/http/pagination.js';
import { errorResponses, IdParams } from '../platform/http/schemas.js';
import { CreateSessionBody, Session, SessionListQuery } from './session.schemas.js';
import { createSession, listSessions, retrieveSession } from './session.service.js';

const TAGS = ['Sessions'];
const SessionRef = Type.Ref(Session);

export const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Session);

  app.post(
    '/connect/sessions',
    {
      schema: {
        tags: TAGS,
        operationId: 'createSession',
        summary: 'Create a session',
        description:
          'Starts a hosted connection flow for an account holder. Send the person to `hosted_url` in their system browser. ' +
          'The session ends `completed` (accounts collected) or `abandoned` (cancelled, failed to start, or expired after ' +
          '`expires_at`); the browser then goes to `return_url` with only `session_id` and `status` added. ' +
          'This response (and its replay for the same `Idempotency-Key`) is the only one with `client_secret` and `hosted_url`: ' +
          'every later read, list, event and webhook has them null.',
        body: CreateSessionBody,
        response: { 200: SessionRef, ...errorResponses() },
      },
    },
    async (request) => createSession(app.ctx, request.scope, request.body),
  );

  app.get(
    '/connect/sessions/:id',
    {
      // The spec's polling rule: at most two status requests per second per session.
      config: { pollLimit: true },
      schema: {
        tags: TAGS,
        operationId: 'retrieveSession',
        summary: 'Retrieve a session',
        description:
          'Poll at most twice a second per session (429 `rate_limit_exceeded` above that). When `completed`, `accounts` and `account_ids` hold the connected accounts.',
        params: IdParams('sess_', 'session'),
        response: { 200: SessionRef, ...errorResponses(404, 429) },
      },
    },
    async (request) => retrieveSession(app.ctx, request.scope, request.params.id),
  );

  app.get(
    '/connect/sessions',
    {
      schema: {
        tags: TAGS,
        operationId: 'listSessions',
        summary: 'List sessions',
        description: 'Newest first; filter by `account_holder`.',
        querystring: SessionListQuery,
        response: { 200: ListOf(SessionRef, '/v1/connect/sessions'), ...errorResponses() },
      },
    },
    async (request) => listResponse(request, await listSessions(app.ctx, request.scope, request.query)),
  );
};
