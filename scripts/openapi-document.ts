import { randomBytes } from 'node:crypto';
import { service } from '../src/main/modules.js';
import { loadConfig } from '../src/platform/config/config.js';

/**
 * The OpenAPI document exactly as `GET /v1/openapi.json` serves it, built on a throw-away
 * in-memory database (nothing read from or written to DATA_DIR). Redocly's lint
 * (`scripts/lint-openapi.ts`) and the SDK's generated types (`packages/sdk/scripts/generate.ts`)
 * both read it from here.
 */
export async function servedDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'silent', MASTER_KEY: randomBytes(32).toString('hex') });
  const runtime = await service.openRuntime({ ...config, database: { engine: 'sqlite', file: ':memory:' } });
  try {
    const app = await service.buildApp(runtime.ctx, { logger: false });
    try {
      const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${res.statusCode}`);
      return res.json();
    } finally {
      await app.close();
    }
  } finally {
    await runtime.close();
  }
}
