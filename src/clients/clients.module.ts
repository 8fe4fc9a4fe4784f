import { defineModule } from '../platform/module.js';
import { createApiKeyAuthenticator } from './api-key-cache.js';
import { bootstrapFirstClient } from './client.service.js';

/**
 * API clients and their keys: the API's bearer authentication (`ctx.apiKeys`) and the bootstrap
 * client of a first start (`ownproof client` and `ownproof key` are in clients.cli.ts).
 */
export const clientsModule = defineModule({
  name: 'clients',
  context: (ctx) => ({ apiKeys: createApiKeyAuthenticator(ctx, ctx.config.apiKeyCache) }),
  async onServe(ctx, { baseUrl }) {
    const bootstrap = await bootstrapFirstClient(ctx);
    if (!bootstrap) return [];
    return [
      '',
      `First start: created client "${bootstrap.name}" (${bootstrap.clientId}) with a test-mode API key.`,
      `  ${bootstrap.testKey}`,
      'It is shown only now and stored as a hash. Try:',
      `  curl -H "Authorization: Bearer ${bootstrap.testKey}" ${baseUrl}/v1/connect/account_holders`,
    ];
  },
});
