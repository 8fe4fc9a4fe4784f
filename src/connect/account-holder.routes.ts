import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ListOf, listResponse, PageQuery } from '../platform/http/pagination.js';
import { errorResponses, IdParams } from '../platform/http/schemas.js';
import { AccountHolder, CreateAccountHolderBody, UpdateAccountHolderBody } from './account-holder.schemas.js';
import { createAccountHolder, listAccountHolders, retrieveAccountHolder, updateAccountHolder } from './account-holder.service.js';

const TAGS = ['Account holders'];
const AccountHolderRef = Type.Ref(AccountHolder);
const Params = IdParams('ah_', 'account holder');

export const accountHolderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(AccountHolder);

  app.post(
    '/connect/account_holders',
    {
      schema: {
        tags: TAGS,
        operationId: 'createAccountHolder',
        summary: 'Create an account holder',
        description:
          'Creates the person a session or access request is for. `external_ref` must be unique per client and mode (409 `external_ref_taken`).',
        body: CreateAccountHolderBody,
        response: { 200: AccountHolderRef, ...errorResponses(409) },
      },
    },
    async (request) => createAccountHolder(app.ctx, request.scope, request.body),
  );

  app.get(
    '/connect/account_holders',
    {
      schema: {
        tags: TAGS,
        operationId: 'listAccountHolders',
        summary: 'List account holders',
        description: 'Newest first, with cursor pagination (`starting_after` / `ending_before`).',
        querystring: PageQuery,
        response: { 200: ListOf(AccountHolderRef, '/v1/connect/account_holders'), ...errorResponses() },
      },
    },
    async (request) => listResponse(request, await listAccountHolders(app.ctx, request.scope, request.query)),
  );

  app.get(
    '/connect/account_holders/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'retrieveAccountHolder',
        summary: 'Retrieve an account holder',
        description: 'One account holder of this client and mode.',
        params: Params,
        response: { 200: AccountHolderRef, ...errorResponses(404) },
      },
    },
    async (request) => retrieveAccountHolder(app.ctx, request.scope, request.params.id),
  );

  app.post(
    '/connect/account_holders/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'updateAccountHolder',
        summary: 'Update an account holder',
        description: 'Changes e-mail, name, external_ref or metadata. Metadata merges key by key; a key set to "" is removed.',
        params: Params,
        body: UpdateAccountHolderBody,
        response: { 200: AccountHolderRef, ...errorResponses(404, 409) },
      },
    },
    async (request) => updateAccountHolder(app.ctx, request.scope, request.params.id, request.body),
  );
};
