import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Event } from '../events/event.schemas.js';
import { errorResponses, IdParams } from '../http/schemas.js';
import { TEST_HELPERS_PATH, TEST_HELPERS_TAG, TEST_MODE_ONLY } from '../http/test-helpers.js';
import { pingWebhookEndpoint } from './webhook-delivery.service.js';

/** The webhook endpoints' test helper: a test event on demand (docs/sandbox.md, "Test helpers"). */
export const webhookTestHelperRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Event);

  app.post(
    `${TEST_HELPERS_PATH}/webhook_endpoints/:id/ping`,
    {
      schema: {
        tags: [TEST_HELPERS_TAG],
        operationId: 'testHelpersPingWebhookEndpoint',
        summary: 'Send a test event to a webhook endpoint',
        description:
          `${TEST_MODE_ONLY} Records a \`webhook_endpoint.ping\` event, whose \`data.object\` is the endpoint ` +
          '(without its secret), and delivers it to this endpoint alone, whatever its `enabled_events`, signed and retried like every event: ' +
          'check your receiver verifies it, then see the attempt under `GET /v1/webhook_endpoints/{id}/deliveries?event=…`. ' +
          'A disabled endpoint is 409 `webhook_endpoint_disabled`.',
        params: IdParams('we_', 'webhook endpoint'),
        response: { 200: Type.Ref(Event), ...errorResponses(403, 409) },
      },
    },
    async (request) => pingWebhookEndpoint(app.ctx, request.scope, request.params.id),
  );
};
