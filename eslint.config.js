// ESLint 9 flat config: typescript-eslint's recommended rules (syntax only: the type-aware set
// costs minutes on this codebase and tsc already runs in CI) plus the house plan of
// docs/architecture.md, enforced with eslint-plugin-boundaries (import direction between layers)
// and no-restricted-syntax (where SQL may be built, who may write replicated tables).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import boundaries from 'eslint-plugin-boundaries';
import { fileURLToPath } from 'node:url';

/** The layers of the server, the SDK and the rest. First match wins. */
const ELEMENTS = [
  { type: 'migration', pattern: 'migrations/*.ts', mode: 'full' },
  { type: 'protocol', pattern: 'client-sdk/src/protocol/**', mode: 'full' },
  { type: 'sdk', pattern: 'client-sdk/**', mode: 'full' },
  { type: 'web', pattern: 'web/**', mode: 'full' },
  { type: 'errors', pattern: 'server/errors.ts', mode: 'full' },
  { type: 'db', pattern: 'server/db/**', mode: 'full' },
  // Helpers shared by several features (value mapping, create ids, the REST write wrapper).
  { type: 'shared', pattern: 'server/shared/**', mode: 'full' },
  // A feature's front door: the one file other features import from it.
  { type: 'door', pattern: 'server/*/public.ts', mode: 'full', capture: ['feature'] },
  { type: 'queries', pattern: 'server/*/queries.ts', mode: 'full', capture: ['feature'] },
  { type: 'routes', pattern: 'server/*/routes.ts', mode: 'full', capture: ['feature'] },
  // Route declaration helpers (response specs, schema names): data, no Koa; records use them.
  { type: 'core', pattern: 'server/openapi/responses.ts', mode: 'full' },
  // HTTP: middleware, static assets, the OpenAPI document.
  { type: 'http', pattern: ['server/http/**', 'server/openapi/**', 'server/web/**'], mode: 'full' },
  // The other edges: the live channel's socket handling, the app and server wiring.
  {
    type: 'edge',
    pattern: [
      'server/realtime/server.ts',
      'server/realtime/connection.ts',
      'server/app.ts',
      'server/server.ts',
      'server/main.ts',
      'server/features.ts',
    ],
    mode: 'full',
  },
  // Services: the rest of a feature folder (rules, records, schemas, jobs), no HTTP.
  { type: 'service', pattern: 'server/*/*.ts', mode: 'full', capture: ['feature', 'file'] },
  // Shared plumbing at the top of server/: config, context, log.
  { type: 'core', pattern: 'server/*.ts', mode: 'full' },
];

const SERVER_LAYERS = ['errors', 'db', 'shared', 'door', 'queries', 'service', 'routes', 'http', 'edge', 'core'];

/** A feature's own files: behind its front door. */
const FEATURE_INSIDE = ['queries', 'service', 'routes'];

/** Knex query builders: only queries.ts files and server/db build SQL. */
const KNEX_BUILDERS = [
  {
    selector: "CallExpression[callee.type='Identifier'][callee.name=/^(db|trx|knex|sub)$/]",
    message: 'Build SQL in a queries.ts file (or server/db); call it from here (docs/architecture.md).',
  },
  {
    selector: "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(db|trx|knex)$/]",
    message: 'Build SQL in a queries.ts file (or server/db); call it from here (docs/architecture.md).',
  },
  {
    selector: "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(raw|table)$/]",
    message: 'Build SQL in a queries.ts file (or server/db); call it from here (docs/architecture.md).',
  },
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'web/build/**',
      'coverage/**',
      'data/**',
      'docs/screenshots/**',
      '.stryker-tmp*/**',
      'reports/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
      '!eslint.config.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { console: 'readonly', process: 'readonly' },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // tsc checks names and globals (Node, DOM) itself.
      'no-undef': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      'prefer-const': ['error', { destructuring: 'all' }],
      // Tests and wire parsing read untyped JSON on purpose.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },

  // The house plan: which layer may import which.
  {
    files: ['server/**/*.ts', 'client-sdk/src/**/*.ts', 'migrations/**/*.ts', 'web/src/**/*.{ts,tsx}'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': ELEMENTS,
      'boundaries/include': ['server/**', 'client-sdk/src/**', 'migrations/**', 'web/src/**', 'seeds/**'],
      'import/resolver': { [fileURLToPath(new URL('./eslint/ts-resolver.cjs', import.meta.url))]: {} },
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'allow',
          policies: [
            // routes → services → queries → db: nothing points back up. Type-only imports (a row
            // or record type named by a queries file) erase at build time and are allowed.
            {
              from: { element: { types: { anyOf: ['db'] } } },
              disallow: {
                to: { element: { types: { anyOf: ['door', 'queries', 'service', 'routes', 'http', 'edge'] } } },
                dependency: { kind: 'value' },
              },
            },
            {
              from: { element: { types: { anyOf: ['queries'] } } },
              disallow: {
                to: { element: { types: { anyOf: ['service', 'routes', 'http', 'edge'] } } },
                dependency: { kind: 'value' },
              },
            },
            {
              from: { element: { types: { anyOf: ['service', 'door'] } } },
              disallow: { to: { element: { types: { anyOf: ['routes', 'http', 'edge'] } } } },
            },
            // Front doors: a feature uses another only through its public.ts; what several
            // features share lives in server/shared, below them all.
            {
              from: { element: { types: { anyOf: [...FEATURE_INSIDE, 'door'] } } },
              disallow: {
                to: {
                  element: {
                    types: { anyOf: FEATURE_INSIDE },
                    captured: { feature: '!{{ from.element.captured.feature }}' },
                  },
                },
              },
            },
            {
              from: { element: { types: { anyOf: ['db', 'shared', 'http', 'core'] } } },
              disallow: { to: { element: { types: { anyOf: FEATURE_INSIDE } } } },
            },
            {
              from: { element: { types: { anyOf: ['shared'] } } },
              disallow: { to: { element: { types: { anyOf: ['door', 'http', 'edge'] } } } },
            },
            {
              from: { element: { types: { anyOf: ['errors'] } } },
              disallow: { to: { element: { types: { anyOf: SERVER_LAYERS.filter((t) => t !== 'errors') } } } },
            },
            // The SDK and the app never import the server.
            {
              from: { element: { types: { anyOf: ['protocol', 'sdk', 'web'] } } },
              disallow: { to: { element: { types: { anyOf: SERVER_LAYERS } } } },
            },
            // The protocol is the shared wire contract: it imports no SDK runtime.
            {
              from: { element: { types: { anyOf: ['protocol'] } } },
              disallow: { to: { element: { types: { anyOf: ['sdk', 'web'] } } } },
            },
            // Migrations stand alone: they run the same way forever, whatever the code becomes.
            {
              from: { element: { types: { anyOf: ['migration'] } } },
              disallow: { to: { element: { types: { anyOf: [...SERVER_LAYERS, 'protocol', 'sdk', 'web'] } } } },
            },
          ],
        },
      ],
    },
  },

  // db, queries, services and the typed errors never see Koa (routes and server/http do).
  {
    files: ['server/**/*.ts'],
    ignores: [
      'server/*/routes.ts',
      'server/http/**',
      'server/openapi/**',
      'server/web/**',
      'server/realtime/server.ts',
      'server/realtime/connection.ts',
      'server/app.ts',
      'server/server.ts',
      'server/main.ts',
      'server/features.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['koa', 'koa-*', '@koa/*'],
              message: 'Only routes and server/http speak Koa (docs/architecture.md).',
            },
          ],
        },
      ],
    },
  },

  // chai assertions read as expressions (`expect(x).to.be.true`).
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },

  // SQL is built in queries.ts files and server/db only.
  {
    files: ['server/**/*.ts'],
    // server/ops/snapshot.ts: backup and restore read and write every table, whatever it is.
    ignores: ['server/db/**', 'server/**/queries.ts', 'server/ops/snapshot.ts'],
    rules: { 'no-restricted-syntax': ['error', ...KNEX_BUILDERS] },
  },
);
