import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ListOf, listResponse } from '../../platform/http/pagination.js';
import { errorResponses, IdParams } from '../../platform/http/schemas.js';
import { AccessRequest, AccessRequestListQuery, CreateAccessRequestBody } from './access-request.schemas.js';
import { cancelAccessRequest, createAccessRequest, listAccessRequests, retrieveAccessRequest } from './access-request.service.js';

const TAGS = ['Access requests'];
const AccessRequestRef = Type.Ref(AccessRequest);
const Params = IdParams('ar_', 'access request');

/** Asking account holders to share claims: create, read, list, cancel. */
export const accessRequestRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(AccessRequest);

  app.post(
    '/verify/access_requests',
    {
      schema: {
        tags: TAGS,
        operationId: 'createAccessRequest',
        summary: 'Create an access request',
        description:
          'Asks an account holder to share claims with you. They get an e-mail (see `notification`) with a link to the portal, where they ' +
          'review the request, prove a wallet first if they have none, pick the claims to share, and approve or decline. ' +
          '`access_request.granted` (with `claim_ids`) follows when they approve; `access_request.declined`, `.expired`, `.canceled` otherwise. ' +
          'Sharing is ongoing until the person revokes it in the portal (`claim.access_revoked`).',
        body: CreateAccessRequestBody,
        response: { 200: AccessRequestRef, ...errorResponses(503) },
      },
    },
    async (request) => createAccessRequest(app.ctx, request.scope, request.body),
  );

  app.get(
    '/verify/access_requests/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'retrieveAccessRequest',
        summary: 'Retrieve an access request',
        description:
          'Its status, and once `granted` the `claim_ids` shared with you; its `notification` says how its e-mail went. A read past `expires_at` already shows it `expired`.',
        params: Params,
        response: { 200: AccessRequestRef, ...errorResponses(404) },
      },
    },
    async (request) => retrieveAccessRequest(app.ctx, request.scope, request.params.id),
  );

  app.get(
    '/verify/access_requests',
    {
      schema: {
        tags: TAGS,
        operationId: 'listAccessRequests',
        summary: 'List access requests',
        description: 'Newest first; filter by `status` and `account_holder_id`.',
        querystring: AccessRequestListQuery,
        response: { 200: ListOf(AccessRequestRef, '/v1/verify/access_requests'), ...errorResponses() },
      },
    },
    async (request) => listResponse(request, await listAccessRequests(app.ctx, request.scope, request.query)),
  );

  app.post(
    '/verify/access_requests/:id/cancel',
    {
      schema: {
        tags: TAGS,
        operationId: 'cancelAccessRequest',
        summary: 'Cancel an access request',
        description:
          'Withdraws a pending request (`access_request.canceled`); its portal page then says it was withdrawn. 409 `access_request_not_pending` once it was answered, expired or canceled.',
        params: Params,
        response: { 200: AccessRequestRef, ...errorResponses(404, 409) },
      },
    },
    async (request) => cancelAccessRequest(app.ctx, request.scope, request.params.id),
  );
};
