import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams } from '../../platform/http/schemas.js';
import { TEST_HELPERS_PATH, TEST_HELPERS_TAG, TEST_MODE_ONLY } from '../../platform/http/test-helpers.js';
import { AccessRequest } from './access-request.schemas.js';
import { ApproveAccessRequestBody } from './access-test-helpers.schemas.js';
import { approveAccessRequestAsHolder, declineAccessRequestAsHolder, revokeClaimAccessAsHolder } from './access-test-helpers.service.js';
import { Claim } from '../claims/claim.schemas.js';

const TAGS = [TEST_HELPERS_TAG];
const RequestParams = IdParams('ar_', 'access request');

/** The account holder's answers in the portal, as test helpers (docs/sandbox.md, "Test helpers"). */
export const accessTestHelperRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(AccessRequest);
  app.addSchema(Claim);

  app.post(
    `${TEST_HELPERS_PATH}/verify/access_requests/:id/approve`,
    {
      schema: {
        tags: TAGS,
        operationId: 'testHelpersApproveAccessRequest',
        summary: 'Approve an access request as the account holder',
        description:
          `${TEST_MODE_ONLY} Does what the account holder does in the portal with Approve and share: the claims picked are shared with you ` +
          'with the request’s permissions, and the request turns `granted` with `access_request.granted`. Only the claims the portal’s picker ' +
          'would offer can be picked: active claims the holder’s current e-mail address proved as this account holder. ' +
          '409 `access_request_not_pending` once the request was answered, expired or canceled; 409 `no_shareable_claims` without `claim_ids` ' +
          'when there is nothing to pick (prove a wallet first: complete a session with `prove_ownership`).',
        params: RequestParams,
        body: ApproveAccessRequestBody,
        response: { 200: Type.Ref(AccessRequest), ...errorResponses(403, 409) },
      },
    },
    async (request) => approveAccessRequestAsHolder(app.ctx, request.scope, request.params.id, request.body),
  );

  app.post(
    `${TEST_HELPERS_PATH}/verify/access_requests/:id/decline`,
    {
      schema: {
        tags: TAGS,
        operationId: 'testHelpersDeclineAccessRequest',
        summary: 'Decline an access request as the account holder',
        description: `${TEST_MODE_ONLY} Does what Decline does in the portal: the request turns \`declined\` with \`access_request.declined\`; nothing is shared. 409 \`access_request_not_pending\` once it was answered, expired or canceled.`,
        params: RequestParams,
        response: { 200: Type.Ref(AccessRequest), ...errorResponses(403, 409) },
      },
    },
    async (request) => declineAccessRequestAsHolder(app.ctx, request.scope, request.params.id),
  );

  app.post(
    `${TEST_HELPERS_PATH}/verify/claims/:id/revoke_access`,
    {
      schema: {
        tags: TAGS,
        operationId: 'testHelpersRevokeClaimAccess',
        summary: 'Revoke your access to a claim as the account holder',
        description:
          `${TEST_MODE_ONLY} Does what Revoke under Shared access does in the portal: your access to this claim ends at once (the next read ` +
          'is a 404) with `claim.access_revoked`; the answer is the claim as that event shows it. The claim itself stays active. ' +
          'A claim not shared with you now is a 404.',
        params: IdParams('clm_', 'claim'),
        response: { 200: Type.Ref(Claim), ...errorResponses(403) },
      },
    },
    async (request) => revokeClaimAccessAsHolder(app.ctx, request.scope, request.params.id),
  );
};
