// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/** The domain modules (folders of src/ that the composition root lists). */
const DOMAINS = ['clients', 'connect', 'bitcoin', 'prices', 'verify'];

/** An import of another domain's tables or SQL: a domain calls another domain's services instead. */
const repositoryOf = (domain) => ({
  regex: `(^|/)${domain}/(.+/)?[^/]+\\.(repository|table)\\.js$`,
  message: `Call the ${domain} module's services; its repositories and tables are its own (docs/architecture.md, "Modules").`,
});

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', 'artifacts/', '**/dist/', 'dist.*/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // A promise nobody awaits hides its failure; one passed where a callback's result is ignored
    // (an event handler, a hook) does too. Type-aware: the TypeScript project service types them.
    files: ['**/*.ts'],
    // The outside project's files are type-checked against the packed SDK, not any tsconfig here.
    ignores: ['packages/sdk/test/outside-project/**'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['warn', 'error'] }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // platform/ is the ground every module stands on: it names no domain and not the composition
    // root. Modules reach it through the AppModule interface. (Tests exercise the whole service.)
    files: ['src/platform/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `(^|/)(${[...DOMAINS, 'main'].join('|')})/`,
              message: 'platform/ must not import a domain module or src/main (docs/architecture.md, "Modules").',
            },
          ],
        },
      ],
    },
  },
  ...DOMAINS.map((domain) => ({
    files: [`src/${domain}/**/*.ts`],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: DOMAINS.filter((other) => other !== domain).map(repositoryOf) }],
    },
  })),
  {
    // Browser scripts: the page kit's, and the enhancements surfaces append to it.
    files: ['src/platform/web/assets/*.js', 'src/**/pages/*.js'],
    languageOptions: { globals: { ...globals.browser }, sourceType: 'script' },
  },
  {
    // The CLI, benchmarks, the cluster run, test support and the example apps talk to a human on stdout.
    files: ['src/main/cli.ts', 'bench/**', 'bin/**', 'scripts/cluster/**', 'test/**', '**/*.test.ts', 'packages/*/test/**', 'examples/**'],
    rules: { 'no-console': 'off' },
  },
  // Layout is Prettier's (npm run format); no eslint rule argues with it.
  prettier,
);
