// Lint: typescript-eslint recommended, type-only imports enforced, and
// exhaustive switches over unions checked with type information (a new
// store kind or job name left out of a switch fails the lint). Import cycles
// are checked by madge in `pnpm lint`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** @keepgraph/core and its subpaths (packages/core/package.json `exports`). */
const CORE_ENTRY_POINTS = [
  '',
  '/registry',
  '/ports',
  '/policy',
  '/jobs',
  '/backup',
  '/testing',
].map((sub) => `@keepgraph/core${sub}`);

/** The core functions that decide what a write or a cascade produces. */
const STORE_DECISIONS = [
  'STORE_RULES',
  'checkKeyExpectation',
  'checkWriteBatch',
  'checkEmbeddingUpdates',
  'checkQueryVector',
  'outboxRecordedAt',
  'sealAuditEvent',
  'storedAuditForm',
  'GENESIS_HASH',
  'contentHash',
  'cascadeReceipt',
  'cascadeAuditEvents',
  'rederiveJob',
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      'packages/ui/dist/**',
      'models/**',
      '.data/**',
      'bench/results/**',
      '.tmp/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // CommonJS config files (dependency-cruiser's): the package is ESM.
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly' },
    },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['vitest.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
    },
  },
  {
    // Stores execute; core decides. What a write or a cascade produces
    // reaches a store as `rules` through the store kit (ports/store-rules.ts),
    // never by importing the deciding function.
    files: ['packages/store-sqlite/src/**/*.ts', 'packages/store-neo4j/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          // Every entry point of core: a deciding function may be re-exported from any.
          paths: CORE_ENTRY_POINTS.map((name) => ({
            name,
            importNames: STORE_DECISIONS,
            message:
              'a store applies the rules its context holds (ctx.rules, ports/store-rules.ts); the store kit checks shapes',
          })),
        },
      ],
    },
  },
  {
    // The server holds an engine and uses its use-cases and its narrow
    // services (engine.services: authenticate, answerOnce, serving, limits),
    // never the store or the other dependencies behind them.
    files: ['packages/server/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='deps']",
          message: "use the engine's use-cases or engine.services, not engine.deps",
        },
      ],
    },
  },
  {
    // Test files share their worker's module cache (vitest.config.ts): a
    // module one file replaced would stay replaced for the files after it.
    // A file that replaces one is named *.isolated.test.ts and runs alone.
    files: ['**/*.test.ts'],
    ignores: ['**/*.isolated.test.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['mock', 'doMock', 'unmock'].map((property) => ({
          object: 'vi',
          property,
          message:
            'a module replaced here stays replaced for the next files on this worker: name the file *.isolated.test.ts',
        })),
      ],
    },
  },
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
);
