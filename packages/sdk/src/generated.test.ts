import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { servedDocument } from '../../../scripts/openapi-document.js';
import { generatedTypes } from '../scripts/generate.js';

describe('the SDK types', () => {
  it('are what openapi-typescript makes of the document the server serves today (run `npm run generate -w @ownproof/sdk` after an API change)', async () => {
    const current = readFileSync(new URL('./generated/openapi.ts', import.meta.url), 'utf8');
    expect(current === (await generatedTypes(await servedDocument()))).toBe(true);
  }, 120_000);
});
