import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The module boundaries docs/architecture.md promises, as `npm run lint` enforces them: these
 * lint made-up files with the project's own ESLint configuration, so the rules cannot quietly
 * stop matching (a renamed folder, a changed import style).
 */
describe('module boundaries checked by npm run lint', () => {
  // The made-up files are in no tsconfig, so the type-aware rules (and their parser setting) are
  // left out: these tests are about the import rules only.
  const eslint = new ESLint({
    cwd: new URL('..', import.meta.url).pathname,
    overrideConfig: {
      files: ['**/*.ts'],
      languageOptions: { parserOptions: { projectService: false } },
      rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
    },
  });
  async function restricted(filePath: string, source: string): Promise<string[]> {
    const [result] = await eslint.lintText(source, { filePath });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
  }

  it('refuses a platform file that imports a domain module or the composition root', async () => {
    for (const target of [
      '../../connect/session.service.js',
      '../clients/client.service.js',
      '../../bitcoin/chain/index.js',
      '../../verify/claims/claim.service.js',
      '../../main/modules.js',
    ]) {
      const messages = await restricted('src/platform/http/example.ts', `import { x } from '${target}';\nexport const y = x;\n`);
      expect(messages, target).toEqual([expect.stringContaining('platform/ must not import a domain module')]);
    }
  });

  it('lets platform files import platform and libraries, and lets platform tests run the whole service', async () => {
    expect(
      await restricted(
        'src/platform/http/example.ts',
        `import { x } from '../db/database.js';\nimport y from 'fastify';\nexport const z = [x, y];\n`,
      ),
    ).toEqual([]);
    expect(
      await restricted(
        'src/platform/http/example.test.ts',
        `import { service } from '../../main/modules.js';\nexport const s = service;\n`,
      ),
    ).toEqual([]);
  });

  it("refuses a domain file that reads another domain's repository or tables, not its services", async () => {
    const messages = await restricted(
      'src/connect/example.ts',
      `import { findClient } from '../clients/client.repository.js';\nexport const f = findClient;\n`,
    );
    expect(messages).toEqual([expect.stringContaining("Call the clients module's services")]);
    expect(
      await restricted('src/connect/pages/example.ts', `import type { T } from '../../clients/client.table.js';\nexport type U = T;\n`),
    ).toHaveLength(1);
    expect(
      await restricted(
        'src/connect/example.ts',
        `import { clientDisplayName } from '../clients/client.service.js';\nexport const f = clientDisplayName;\n`,
      ),
    ).toEqual([]);
    expect(
      await restricted('src/connect/example.ts', `import { findSession } from './session.repository.js';\nexport const f = findSession;\n`),
    ).toEqual([]);
  });
});
