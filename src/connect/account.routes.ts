import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ListOf, listResponse, PageQuery } from '../platform/http/pagination.js';
import { errorResponses, IdParams } from '../platform/http/schemas.js';
import { Account, AccountAddress, AccountListQuery, Balance, RefreshBody, Transaction } from './account.schemas.js';
import {
  disconnectAccount,
  listAccounts,
  listAddresses,
  listBalances,
  listTransactions,
  requestRefresh,
  retrieveAccount,
} from './account.service.js';

const TAGS = ['Accounts'];
const AccountRef = Type.Ref(Account);
const Params = IdParams('acct_', 'account');

export const accountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const schema of [Account, Balance, Transaction, AccountAddress]) app.addSchema(schema);

  app.get(
    '/connect/accounts/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'retrieveAccount',
        summary: 'Retrieve an account',
        description: 'Includes the honest state of balance and transaction refreshes, with when the provider allows the next one.',
        params: Params,
        response: { 200: AccountRef, ...errorResponses(404) },
      },
    },
    async (request) => retrieveAccount(app.ctx, request.scope, request.params.id),
  );

  app.get(
    '/connect/accounts',
    {
      schema: {
        tags: TAGS,
        operationId: 'listAccounts',
        summary: 'List accounts',
        description: 'Accounts of completed sessions, newest first; filter by `account_holder`, `session` or `status`.',
        querystring: AccountListQuery,
        response: { 200: ListOf(AccountRef, '/v1/connect/accounts'), ...errorResponses() },
      },
    },
    async (request) => listResponse(request, await listAccounts(app.ctx, request.scope, request.query)),
  );

  app.post(
    '/connect/accounts/:id/disconnect',
    {
      schema: {
        tags: TAGS,
        operationId: 'disconnectAccount',
        summary: 'Disconnect an account',
        description: 'Erases the stored provider credentials and stops refreshes. Data already fetched stays readable. Idempotent.',
        params: Params,
        response: { 200: AccountRef, ...errorResponses(404) },
      },
    },
    async (request) => disconnectAccount(app.ctx, request.scope, request.params.id),
  );

  app.post(
    '/connect/accounts/:id/refresh',
    {
      schema: {
        tags: TAGS,
        operationId: 'refreshAccount',
        summary: 'Refresh account data',
        description:
          'Fetches fresh balances and/or transactions from the provider in the background. Returns the account with those refreshes ' +
          '`pending`; an `account.refreshed` event follows when they finish (`succeeded` or `failed`). A refresh already pending is not ' +
          'started twice. Balances refreshes also refresh addresses when the `addresses` permission was granted.',
        params: Params,
        body: RefreshBody,
        response: { 200: AccountRef, ...errorResponses(403, 404, 409, 429) },
      },
    },
    async (request) => requestRefresh(app.ctx, request.scope, request.params.id, request.body.features),
  );

  app.get(
    '/connect/accounts/:id/balances',
    {
      schema: {
        tags: TAGS,
        operationId: 'listAccountBalances',
        summary: 'List balances',
        description: 'Per asset, as of the last successful balances refresh (empty before the first). Needs the `balances` permission.',
        params: Params,
        response: { 200: ListOf(Type.Ref(Balance), '/v1/connect/accounts/{id}/balances'), ...errorResponses(403, 404) },
      },
    },
    async (request) => listResponse(request, { data: await listBalances(app.ctx, request.scope, request.params.id), has_more: false }),
  );

  app.get(
    '/connect/accounts/:id/transactions',
    {
      schema: {
        tags: TAGS,
        operationId: 'listAccountTransactions',
        summary: 'List transactions',
        description: 'Newest first by `occurred_at`, cursor-paginated. Needs the `transactions` permission.',
        params: Params,
        querystring: PageQuery,
        response: { 200: ListOf(Type.Ref(Transaction), '/v1/connect/accounts/{id}/transactions'), ...errorResponses(403, 404) },
      },
    },
    async (request) => listResponse(request, await listTransactions(app.ctx, request.scope, request.params.id, request.query)),
  );

  app.get(
    '/connect/accounts/:id/addresses',
    {
      schema: {
        tags: TAGS,
        operationId: 'listAccountAddresses',
        summary: 'List addresses',
        description:
          "The account's cryptocurrency addresses (exchange deposit addresses, wallet receive/change addresses). Needs the `addresses` permission.",
        params: Params,
        response: { 200: ListOf(Type.Ref(AccountAddress), '/v1/connect/accounts/{id}/addresses'), ...errorResponses(403, 404) },
      },
    },
    async (request) => listResponse(request, { data: await listAddresses(app.ctx, request.scope, request.params.id), has_more: false }),
  );
};
