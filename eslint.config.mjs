import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** Every outbox row is made and validated by the one writer (libs/platform/src/outbox/outbox-writer.ts). */
const OUTBOX_WRITER_ONLY = {
  selector:
    'TemplateElement[value.raw=/INSERT\\s+INTO\\s+outbox\\b/i], Literal[value=/INSERT\\s+INTO\\s+outbox\\b/i]',
  message: 'Outbox rows are written by the outbox writer (enqueueEvent, enqueueRows, OUTBOX_INSERT) only.',
};
/**
 * One labelling path: reward labels are inserted by the one writer (labels.repository.ts), and a turn is finished
 * (claimed for a labeller version) by LabelStore.finish only, for plans of any size.
 */
const sqlSelector = (pattern) => `TemplateElement[value.raw=${pattern}], Literal[value=${pattern}]`;
const LABELS_WRITER_ONLY = {
  selector: sqlSelector('/INSERT\\s+INTO\\s+reward_labels\\b/i'),
  message: 'Reward labels are written by insertLabels (labelling/labels.repository.ts) only.',
};
const ONE_FINISH = {
  selector: sqlSelector('/labelled_versions\\s*=\\s*array_append/i'),
  message:
    'A turn is finished by LabelStore.finish (labelling/label-store.ts) only, for any number of turns.',
};
const ONE_LABELLING_PATH = [LABELS_WRITER_ONLY, ONE_FINISH];
/** Periodic work runs on PeriodicWorker (or `every` for a beat), and retries wait as Backoff says. */
const ONE_LOOP = [
  {
    selector: "CallExpression[callee.name='setInterval'], CallExpression[callee.property.name='setInterval']",
    message: 'Periodic work runs on PeriodicWorker, a beat on every() (libs/platform/src/scheduling).',
  },
  {
    selector:
      "BinaryExpression[operator='**'][left.value=2][right.type!='Literal'], CallExpression[callee.property.name=/^(min|max)$/] > BinaryExpression[operator='*'][right.value=2]",
    message: 'Retry delays come from Backoff or backoffDelay (libs/platform/src/scheduling/backoff.ts).',
  },
];
const TESTS = [
  '**/*.spec.ts',
  '**/*.spec.tsx',
  '**/*.int-spec.ts',
  '**/*.outage-spec.ts',
  'test/**',
  'bench/**',
];
/**
 * Module boundaries (see README "Architecture"): apps never import apps; libs by type.
 *   app        -> any lib
 *   platform   -> contracts, data, util      (Nest glue: logs, metrics, health, Kafka)
 *   llm        -> contracts, util
 *   data       -> data, migrations, util     (entities, data source; datasets read and record through them)
 *   contracts  -> util                       (Kafka event schemas, the OpenAI wire format)
 *   util       -> util                       (pure domain logic; composes other pure libs)
 *   migrations -> nothing
 *   testing    -> any lib (only from tests and tools)
 *   tool, e2e  -> any lib
 *   vocabulary -> nothing                    (the shared words: chat messages, think tags, RL statuses, gate report)
 *   web        -> vocabulary only (the browser app talks to the gateway over HTTP and socket.io)
 * Every project may use the vocabulary.
 */
const RUNTIME_LIBS = [
  'type:platform',
  'type:llm',
  'type:data',
  'type:contracts',
  'type:util',
  'type:vocabulary',
];

const depConstraints = [
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: RUNTIME_LIBS },
  {
    sourceTag: 'type:platform',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:data', 'type:util', 'type:vocabulary'],
  },
  { sourceTag: 'type:llm', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:vocabulary'] },
  {
    sourceTag: 'type:data',
    onlyDependOnLibsWithTags: ['type:data', 'type:migrations', 'type:util', 'type:vocabulary'],
  },
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:util', 'type:vocabulary'] },
  { sourceTag: 'type:migrations', onlyDependOnLibsWithTags: ['type:vocabulary'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:vocabulary'] },
  { sourceTag: 'type:vocabulary', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: [...RUNTIME_LIBS, 'type:migrations'] },
  { sourceTag: 'type:tool', onlyDependOnLibsWithTags: [...RUNTIME_LIBS, 'type:testing'] },
  { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: [...RUNTIME_LIBS, 'type:testing'] },
  { sourceTag: 'type:web', onlyDependOnLibsWithTags: ['type:vocabulary'] },
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules',
      '**/dist',
      '**/.nx',
      '**/.infra',
      '**/coverage',
      '**/tmp',
      '**/*.cjs',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    // Nest reads constructor types at runtime (decorator metadata): the type-import rule must know.
    languageOptions: { parserOptions: { emitDecoratorMetadata: true, experimentalDecorators: true } },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        { enforceBuildableLibDependency: false, allow: [], depConstraints, banTransitiveDependencies: false },
      ],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-extraneous-class': 'off',
      'no-console': 'error',
    },
  },
  {
    // Services reach the database through repository classes (*.repository.ts, *-store.ts, or an injected TypeORM
    // Repository of one entity), so that they are unit-tested against a mock and an area's SQL sits in one file.
    files: ['apps/*/src/**/*.ts'],
    ignores: ['**/*.repository.ts', '**/*-store.ts', '**/main.ts', '**/*.spec.ts', '**/*.int-spec.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@nestjs/typeorm',
              importNames: ['InjectDataSource', 'InjectEntityManager'],
              message: 'Only a repository (*.repository.ts) injects the database; use or add one.',
            },
            {
              name: 'typeorm',
              importNames: ['DataSource', 'EntityManager'],
              allowTypeImports: true,
              message: 'Only a repository (*.repository.ts) injects the database; use or add one.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    ignores: TESTS,
    rules: { 'no-restricted-syntax': ['error', OUTBOX_WRITER_ONLY, ...ONE_LOOP, ...ONE_LABELLING_PATH] },
  },
  {
    // An injected entity repository is for reading and writing its own rows; raw SQL, query builders and its
    // manager (transactions, other entities) belong in a repository class, where the area's SQL sits in one file.
    files: ['apps/*/src/**/*.ts'],
    ignores: ['**/*.repository.ts', '**/*-store.ts', '**/main.ts', ...TESTS],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^(query|createQueryBuilder)$/]',
          message: 'SQL and query builders belong in a repository (*.repository.ts); use or add one.',
        },
        {
          selector: "MemberExpression[property.name='manager']",
          message: "An entity repository's manager (transactions, other entities) belongs in a repository.",
        },
        OUTBOX_WRITER_ONLY,
        ...ONE_LOOP,
        ...ONE_LABELLING_PATH,
      ],
    },
  },
  {
    // Where the one loop and backoff live, and code that cannot use them (the browser app, the test harness).
    files: ['libs/platform/src/scheduling/**', 'apps/web/**', 'libs/testing/**'],
    ignores: TESTS,
    rules: { 'no-restricted-syntax': ['error', OUTBOX_WRITER_ONLY, ...ONE_LABELLING_PATH] },
  },
  {
    files: ['libs/platform/src/outbox/outbox-writer.ts'],
    rules: { 'no-restricted-syntax': ['error', ...ONE_LOOP, ...ONE_LABELLING_PATH] },
  },
  {
    files: ['apps/reward-labeller/src/labelling/labels.repository.ts'],
    rules: { 'no-restricted-syntax': ['error', OUTBOX_WRITER_ONLY, ...ONE_LOOP, ONE_FINISH] },
  },
  {
    files: ['apps/reward-labeller/src/labelling/label-store.ts'],
    rules: { 'no-restricted-syntax': ['error', OUTBOX_WRITER_ONLY, ...ONE_LOOP, LABELS_WRITER_ONLY] },
  },
  {
    // One way to call another part of the system: ServiceClient (typed by the called app's OpenAPI document) or
    // callJson. Plain fetch is left to the HTTP layer itself, the model-server clients, the web app's generated
    // client, the test harness and the tools that read an unknown server's documents.
    files: ['apps/**/*.ts', 'apps/**/*.tsx', 'libs/**/*.ts', 'tools/**/*.ts'],
    ignores: [
      ...TESTS,
      'libs/platform/src/http/**',
      'libs/llm/**',
      'libs/testing/**',
      'apps/web/src/api/**',
      'apps/web/src/pages/exports/download.ts',
      'tools/vllm-fixtures/**',
      'tools/web/write-api-types.ts',
    ],
    rules: {
      'no-restricted-globals': [
        'error',
        {
          name: 'fetch',
          message:
            'Call another app through ServiceClient, typed by its OpenAPI document (or callJson); see libs/platform/src/http.',
        },
      ],
    },
  },
  {
    // Short files with one purpose: a production source file over 350 lines is split by what its parts serve.
    files: ['apps/**/*.ts', 'apps/**/*.tsx', 'libs/**/*.ts', 'tools/**/*.ts', 'migrations/**/*.ts'],
    ignores: [...TESTS, 'libs/vocabulary/src/openapi/*.d.ts'],
    rules: { 'max-lines': ['error', { max: 350 }] },
  },
  {
    // Tests may use the testing lib and relax a few rules that only get in the way of assertions.
    files: ['**/*.spec.ts', '**/*.int-spec.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          depConstraints: depConstraints.map((c) => ({
            ...c,
            onlyDependOnLibsWithTags: [
              ...new Set([...c.onlyDependOnLibsWithTags, 'type:testing', 'type:util']),
            ],
          })),
        },
      ],
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Tests probe arbitrary JSON responses; typing every body would only add casts.
      '@typescript-eslint/no-explicit-any': 'off',
      'no-console': 'off',
    },
  },
  prettier,
);
