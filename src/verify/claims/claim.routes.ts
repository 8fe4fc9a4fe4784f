import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { acceptJsonBodiesOnly } from '../../platform/http/json-body.js';
import { ListOf, listResponse } from '../../platform/http/pagination.js';
import { errorResponses, IdParams, publicErrorResponses } from '../../platform/http/schemas.js';
import { CheckReceiptBody, Claim, ClaimListQuery, ReceiptCheck } from './claim.schemas.js';
import { checkReceipt, listClaims, retrieveClaim } from './claim.service.js';
import { publicJwks } from './signing-key.service.js';

const TAGS = ['Claims'];
const ClaimRef = Type.Ref(Claim);
const LIST_URL = '/v1/verify/claims';

/** Claims shared with the calling client. */
export const claimRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Claim);

  app.get(
    '/verify/claims',
    {
      schema: {
        tags: TAGS,
        operationId: 'listClaims',
        summary: 'List claims shared with you',
        description:
          'Claims account holders shared with you, newest share first; filter by `account_holder_id`. A claim whose sharing was revoked is not listed.',
        querystring: ClaimListQuery,
        response: { 200: ListOf(ClaimRef, LIST_URL), ...errorResponses() },
      },
    },
    async (request) => listResponse(request, await listClaims(app.ctx, request.scope, request.query)),
  );

  app.get(
    '/verify/claims/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'retrieveClaim',
        summary: 'Retrieve a claim',
        description:
          'A claim shared with you, with its receipt; with the `balances` permission also its current balance read from the chain.',
        params: IdParams('clm_', 'claim'),
        response: { 200: ClaimRef, ...errorResponses(404) },
      },
    },
    async (request) => retrieveClaim(app.ctx, request.scope, request.params.id),
  );
};

const Jwks = Type.Object(
  { keys: Type.Array(Type.Object({}, { additionalProperties: true })) },
  { description: 'Ed25519 public keys (JWK) that sign claim receipts, newest first; retired keys stay so old receipts verify.' },
);

/**
 * What anyone may call without an API key: the receipt signing keys, and checking a receipt.
 * Both are limited per client IP address: the check runs signature verifications.
 */
export const claimPublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  acceptJsonBodiesOnly(app);
  app.addSchema(ReceiptCheck);

  app.get(
    '/.well-known/jwks.json',
    {
      config: { ipRateLimit: true },
      schema: {
        tags: TAGS,
        operationId: 'claimSigningKeys',
        summary: 'Receipt signing keys (JWKS)',
        description:
          'No API key needed. The public Ed25519 keys that sign claim receipts and statement data, current and past (old receipts keep verifying ' +
          'after a rotation). Save it to check receipts offline with `ownproof verify-claim --jwks`. Cacheable for 5 minutes.',
        security: [],
        response: { 200: Jwks, ...publicErrorResponses(429) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return publicJwks(app.ctx);
    },
  );

  app.post(
    '/v1/verify/claims/verify',
    {
      config: { ipRateLimit: true },
      schema: {
        tags: TAGS,
        operationId: 'checkClaimReceipt',
        summary: 'Check a claim receipt',
        description:
          'No API key needed. Checks the receipt’s signature against this service’s published keys, re-verifies the Bitcoin proof it contains, and says ' +
          'what it states and the claim’s current status. A forged or altered receipt is `valid: false` with a `reason`.',
        security: [],
        body: CheckReceiptBody,
        response: { 200: Type.Ref(ReceiptCheck), ...publicErrorResponses(400, 413, 415, 429) },
      },
    },
    async (request) => checkReceipt(app.ctx, request.body.receipt),
  );
};
