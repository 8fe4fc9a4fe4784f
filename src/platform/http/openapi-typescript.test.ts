import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';

/**
 * What an integrator gets from `npx openapi-typescript <base>/v1/openapi.json`: types in which a
 * webhook handler's `switch (event.type)` narrows `data.object` to that event's object.
 */
const HANDLER = `
import type { components, webhooks } from './api.js';

type Event = components['schemas']['Event'];

export function describe(event: Event): string {
  switch (event.type) {
    case 'statement.completed':
      return \`\${event.data.object.id} \${event.data.object.status} \${event.data.object.period.open}\`;
    case 'session.completed':
      return event.data.object.accounts.join(',');
    case 'access_request.granted':
      return event.data.object.claim_ids.join(',');
    case 'webhook_endpoint.disabled':
      return event.data.object.url;
    default:
      return event.data.object.id;
  }
}

// A webhook's body is the Event variant of its type.
type Completed = webhooks['statement.completed']['post']['requestBody']['content']['application/json'];
export const completedType: Completed['type'] = 'statement.completed';
`;

/** The same handler reading a session's field on a statement: the types must refuse it. */
const WRONG_FIELD = `
import type { components } from './api.js';

export function wrong(event: components['schemas']['Event']): string | null {
  return event.type === 'statement.completed' ? event.data.object.hosted_url : null;
}
`;

describe('types generated from the OpenAPI document by openapi-typescript', () => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    dir = mkdtempSync(path.join(tmpdir(), 'ownproof-openapi-ts-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it('narrow an event handler on `type` to that event’s object, and refuse another object’s field', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    writeFileSync(path.join(dir, 'api.d.ts'), astToString(await openapiTS(document, { silent: true })));
    writeFileSync(path.join(dir, 'handler.ts'), HANDLER);
    writeFileSync(path.join(dir, 'wrong.ts'), WRONG_FIELD);

    const program = ts.createProgram([path.join(dir, 'handler.ts'), path.join(dir, 'wrong.ts')], {
      strict: true,
      noEmit: true,
      // The generated declarations are what is under test only through the handlers that use them.
      skipLibCheck: true,
      lib: ['lib.es2022.d.ts'],
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
    });
    const problems = (file: string) =>
      ts
        .getPreEmitDiagnostics(program, program.getSourceFile(path.join(dir, file)))
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));

    expect(problems('handler.ts')).toEqual([]);
    expect(problems('wrong.ts')).toEqual([expect.stringMatching(/Property 'hosted_url' does not exist on type/)]);
    // Generating and type-checking take seconds on a busy machine.
  }, 60_000);
});
