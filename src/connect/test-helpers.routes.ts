import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams } from '../platform/http/schemas.js';
import { TEST_HELPERS_PATH, TEST_HELPERS_TAG, TEST_MODE_ONLY } from '../platform/http/test-helpers.js';
import { Account } from './account.schemas.js';
import { Session } from './session.schemas.js';
import { CompleteSessionBody } from './test-helpers.schemas.js';
import { abandonSessionAsHolder, completeSessionAsHolder, expireProviderLogin } from './test-helpers.service.js';

const TAGS = [TEST_HELPERS_TAG];
const SessionParams = IdParams('sess_', 'session');
const NOT_OPEN =
  '409 `session_not_open` once the session is completed or abandoned; 409 `session_opened_in_browser` once the person chose Continue ' +
  'in a browser, which alone can finish it then.';

/** What the account holder does on the hosted pages, and an expired provider login, as test helpers (docs/sandbox.md). */
export const connectTestHelperRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Session);
  app.addSchema(Account);

  app.post(
    `${TEST_HELPERS_PATH}/connect/sessions/:id/complete`,
    {
      schema: {
        tags: TAGS,
        operationId: 'testHelpersCompleteSession',
        summary: 'Complete a session as the account holder',
        description:
          `${TEST_MODE_ONLY} Does on the session what the person does on its hosted pages: Continue on the disclaimer, each Sandbox Exchange ` +
          'login and each wallet in turn (with "Prove you control it" and the sandbox wallet’s signature where `prove_ownership` is set), then ' +
          'Done. The answer is the completed session; its accounts, the claims of proven wallets, `claim.created`, `session.completed` and their ' +
          'webhooks are those the pages give. A login or wallet the form would refuse, or a proof the sandbox wallet cannot make, is 400 ' +
          `\`parameter_invalid\` naming it, and nothing is changed. ${NOT_OPEN}`,
        params: SessionParams,
        body: CompleteSessionBody,
        response: { 200: Type.Ref(Session), ...errorResponses(403, 409) },
      },
    },
    async (request) => completeSessionAsHolder(app.ctx, request.scope, request.params.id, request.body),
  );

  app.post(
    `${TEST_HELPERS_PATH}/connect/sessions/:id/abandon`,
    {
      schema: {
        tags: TAGS,
        operationId: 'testHelpersAbandonSession',
        summary: 'Abandon a session as the account holder',
        description: `${TEST_MODE_ONLY} Does what Cancel does on the hosted pages: the session turns \`abandoned\` with \`session.abandoned\`, and nothing of it reaches you. ${NOT_OPEN}`,
        params: SessionParams,
        response: { 200: Type.Ref(Session), ...errorResponses(403, 409) },
      },
    },
    async (request) => abandonSessionAsHolder(app.ctx, request.scope, request.params.id),
  );

  app.post(
    `${TEST_HELPERS_PATH}/connect/accounts/:id/require_reauth`,
    {
      schema: {
        tags: TAGS,
        operationId: 'testHelpersRequireReauth',
        summary: 'Expire an account’s provider login',
        description:
          `${TEST_MODE_ONLY} Records what a refresh records when the provider says the login expired (as the sandbox login \`user_reauth\` ` +
          'does): the refreshes the account’s permissions allow turn `failed` with `reauthentication_required`, the account turns ' +
          '`requires_reauth`, and `account.refreshed` is sent. From then on `POST …/refresh` is 409 `account_requires_reauth`: send the ' +
          'person through a new session. An account already `requires_reauth` is returned as it is; a disconnected one is 409 `account_disconnected`.',
        params: IdParams('acct_', 'account'),
        response: { 200: Type.Ref(Account), ...errorResponses(403, 409) },
      },
    },
    async (request) => expireProviderLogin(app.ctx, request.scope, request.params.id),
  );
};
