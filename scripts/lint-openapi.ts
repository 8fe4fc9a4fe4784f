import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { service } from '../src/main/modules.js';
import { loadConfig } from '../src/platform/config/config.js';

/**
 * `npm run lint`'s check of the OpenAPI document: the document exactly as `GET /v1/openapi.json`
 * serves it (built on a throw-away in-memory database, nothing read from or written to DATA_DIR),
 * linted by Redocly CLI with redocly.yaml. Offline: Redocly's telemetry and update check are off.
 */
async function servedDocument(): Promise<unknown> {
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

const dir = mkdtempSync(path.join(tmpdir(), 'ownproof-openapi-'));
try {
  const file = path.join(dir, 'openapi.json');
  writeFileSync(file, `${JSON.stringify(await servedDocument(), null, 2)}\n`);
  const root = path.resolve(import.meta.dirname, '..');
  const lint = spawnSync(path.join(root, 'node_modules', '.bin', 'redocly'), ['lint', file, '--config', path.join(root, 'redocly.yaml')], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  process.exitCode = lint.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
