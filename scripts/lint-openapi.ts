import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { servedDocument } from './openapi-document.js';

/**
 * `npm run lint`'s check of the OpenAPI document: the document as the server serves it
 * ({@link servedDocument}), linted by Redocly CLI with redocly.yaml. Offline: Redocly's telemetry
 * and update check are off.
 */
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
