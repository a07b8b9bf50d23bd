// Whole-folder mutation runs (stryker.folders.config.mjs): mutant switching in one long-lived
// test process with per-test coverage, so a mutant runs only the tests that reach it and pays no
// process start. See docs/architecture.md "Mutation testing".
//
// - Runner: Stryker's mocha runner 9.6.1, which loads mocha up to 11 (mocha 12 renamed the CLI
//   modules it requires), from the small package stryker/runner/ (installed by
//   `npm run mutation`); the project's own tests keep the root mocha 12 and .mocharc.json.
// - The mutants live in a sandbox copy (.stryker-tmp/); its node_modules is rebuilt by
//   stryker/link-sandbox.mjs so that @family-shopping/client resolves to the mutated sources.
// - stryker/mocha-hooks.mjs credits suite hooks' coverage to their tests and hands the active
//   mutant to child processes (a second SDK device).
import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.dirname(here);

const SDK = 'client-sdk/src';
// The SDK's tests that run in Node: unit tests and the end-to-end tests against the real app
// (in this process, on PGlite). Per-test coverage picks the ones each mutant needs.
const SDK_TESTS = ['test/unit/protocol/**/*.test.ts', 'test/unit/sdk/**/*.test.ts', 'test/unit/*.test.ts'];
// The client's parts (client/, the top-level files) are reached by the end-to-end tests of the
// client's life: start and stop, the network, tokens, the live channel, refusals, offline edits.
// The domain, catalog, parity and migration tests reach them too but add nothing of theirs (they
// are the sdk-domain spec). Left out: checkpoint-expired.test.ts, whose purge-and-resync runs
// past its 60 s under the instrumented SDK on the loaded cores (it tests replication.ts's 410
// path, not these files).
const SDK_CLIENT_TESTS = [
  'test/unit/sdk/**/*.test.ts',
  ...[
    'network',
    'tokens',
    'stops',
    'stop-closes',
    'start-pulls',
    'implicit-start',
    'initial-sync',
    'live-nudge',
    'live-heartbeat',
    'live-patches',
    'live-truth',
    'refused',
    'offline',
    'pull-back',
    'noop-push-converges',
    'patch-queue',
    'connectivity',
    'session-refresh',
    'list-joins',
    'account-client',
    'rest-calls',
    'auth-tabs',
  ].map((f) => `test/e2e/sdk/${f}.test.ts`),
];

/** The folders, their mutants and the tests that may reach them. @type {Record<string, { mutate: string[], spec: string[], tsconfigFile?: string }>} */
export const FOLDERS = {
  'sdk-protocol': { mutate: [`${SDK}/protocol/**/*.ts`], spec: SDK_TESTS },
  // The domain layer is reached through the calls of these end-to-end tests (and the daily unit test).
  'sdk-domain': {
    mutate: [`${SDK}/domain/**/*.ts`],
    spec: [
      'test/unit/sdk/**/*.test.ts',
      ...['domain', 'daily', 'offline', 'parity', 'parity-fields', 'catalog', 'catalog-locale'].map(
        (f) => `test/e2e/sdk/${f}.test.ts`,
      ),
      // Lists, items, stores and the section memory, each call and its refusals.
      ...['domain-stores', 'domain-lists', 'domain-items'].map((f) => `test/e2e/sdk/${f}.test.ts`),
      // Catalog ids, search bounds, product edits and deletes; recipes, ingredients and their refusals.
      ...['domain-catalog', 'domain-recipes'].map((f) => `test/e2e/sdk/${f}.test.ts`),
    ],
  },
  'sdk-client': { mutate: [`${SDK}/client/**/*.ts`], spec: SDK_CLIENT_TESTS },
  // The top-level files: replication, live channel, client, auth, transport, …
  'sdk-top': { mutate: [`${SDK}/*.ts`], spec: SDK_CLIENT_TESTS },
};
// The server, one folder of server/ a run (server-sync, server-auth, …; server-top for the files
// of server/ itself), against its unit and integration tests and the replication end-to-end test,
// which start the app in this process (test/helpers/app.ts).
const SERVER_TESTS = ['test/unit/server/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/replication.test.ts'];
// Folders whose callers are known, scoped to the tests that reach them (the whole integration
// suite is most of `npm test`'s 13 minutes, a dry run each time): their REST routes and the
// OpenAPI document's tests (summaries and responses are declared with the routes), the
// isolation matrix, the sync paths that carry their records (pull, purge, the SDK pushing
// them), the export.
// Mocha, as Stryker's runner hands it the spec, does not expand `{a,b}`: name the files one by one.
const each = (dir, ...names) => names.map((n) => `${dir}/${n}.test.ts`);
const SERVER_SPECS = {
  recipes: [
    'test/integration/recipes/*.test.ts',
    'test/integration/openapi/*.test.ts',
    'test/integration/isolation/*.test.ts',
    'test/integration/sync/pull.test.ts',
    'test/integration/sync/purge.test.ts',
    'test/integration/catalog/*.test.ts',
    'test/integration/family/export-import.test.ts',
    'test/e2e/replication.test.ts',
    'test/e2e/sdk/domain-recipes.test.ts',
  ],
  stores: [
    'test/integration/stores/*.test.ts',
    'test/integration/openapi/*.test.ts',
    'test/integration/isolation/*.test.ts',
    ...each('test/integration/lists', 'lists', 'placement', 'section-memory', 'detail-read'),
    ...each('test/integration/sync', 'pull', 'push', 'push-bulk', 'placement', 'cascades', 'boundaries'),
    'test/integration/catalog/locale-names.test.ts',
    'test/integration/family/export-import.test.ts',
    'test/integration/foundation/edges-13.test.ts',
    'test/integration/realtime/live-patches.test.ts',
    'test/e2e/replication.test.ts',
    'test/e2e/sdk/domain-stores.test.ts',
  ],
  lists: [
    'test/unit/server/detail-cache.test.ts',
    'test/integration/lists/*.test.ts',
    // Deleting a family product unlinks its items, deleting a store its lists (lists/service.ts).
    'test/integration/catalog/products.test.ts',
    'test/integration/stores/stores.test.ts',
    'test/integration/openapi/*.test.ts',
    'test/integration/isolation/*.test.ts',
    ...each('test/integration/sync', 'pull', 'push', 'push-bulk', 'placement', 'cascades', 'item-phases', 'boundaries'),
    ...each('test/integration/realtime', 'rest-events', 'live-patches'),
    ...each('test/integration/foundation', 'edges', 'edges-13', 'family-write'),
    'test/integration/family/export-import.test.ts',
    'test/e2e/replication.test.ts',
    ...each('test/e2e/sdk', 'domain-lists', 'domain-items', 'daily'),
  ],
  // The messages and their sending: every flow that mails (registration, confirmation, reset,
  // invitations, languages, the base URL of links) and the configuration's SMTP checks.
  mail: [
    ...each('test/unit/server', 'mail-messages', 'mail-templates'),
    'test/integration/mail/mailer.test.ts',
    ...each(
      'test/integration/auth',
      'base-url',
      'email-confirmation',
      'password-reset',
      'languages',
      'register',
      'self-service',
      'secrets',
    ),
    'test/integration/family/invites.test.ts',
    'test/integration/foundation/config.test.ts',
  ],
  // The app's files and pages, and the headers and robots.txt of api-contract §13 in the real app.
  web: ['test/integration/web/static.test.ts', ...each('test/integration/foundation', 'http', 'edges-13')],
  // The buses and their Redis connections: the live channel's tests (the Redis bus and the
  // cross-instance ones need REDIS_URL, the outages PostgreSQL + Redis: run this folder in that
  // leg), and the metrics of Redis' state.
  events: [
    'test/integration/realtime/*.test.ts',
    ...each('test/integration/foundation', 'outages', 'metrics', 'family-write'),
  ],
  // The live channel: its own tests, the other tests that open sockets (TLS, outages, metrics'
  // socket count, the done-shopping and catalog frames, an import's frames) and the SDK's live
  // tests, in the PostgreSQL + Redis leg (cross-instance and outages need Redis).
  realtime: [
    'test/integration/realtime/*.test.ts',
    ...each('test/integration/foundation', 'outages', 'metrics', 'tls'),
    'test/integration/lists/done-shopping.test.ts',
    'test/integration/catalog/locale-names.test.ts',
    'test/integration/family/export-import.test.ts',
    ...each('test/e2e/sdk', 'live-patches', 'live-truth', 'start-pulls', 'stop-closes'),
  ],
  // Products, units, categories and their overrides: their REST tests and every other test that
  // names a product or a unit (items by product, placement and suggestions, recipes'
  // ingredients, stores' categories, the sync paths that carry catalog records, the isolation
  // matrix, the edge cases and constraints, export/import, the SDK's catalog tests).
  catalog: [
    'test/integration/catalog/*.test.ts',
    'test/integration/openapi/*.test.ts',
    'test/integration/isolation/*.test.ts',
    ...each('test/integration/sync', 'pull', 'push', 'push-bulk', 'cascades', 'placement', 'purge'),
    ...each('test/integration/lists', 'by-product', 'items', 'placement', 'section-memory', 'suggestions'),
    ...each('test/integration/recipes', 'recipes', 'copy-scaled'),
    'test/integration/stores/stores.test.ts',
    ...each('test/integration/foundation', 'constraints', 'edges-13'),
    'test/integration/family/export-import.test.ts',
    'test/integration/realtime/live-patches.test.ts',
    'test/e2e/replication.test.ts',
    ...each('test/e2e/sdk', 'domain-catalog', 'catalog', 'catalog-locale', 'parity-fields'),
  ],
  // The family, its members and invitations, its export and import: their tests, every flow that
  // makes or joins a family (registration, confirmation, languages), the isolation matrix, the
  // live channel's membership (a member removed, another instance), the admin and backup
  // commands and the SDK's leaving and locale tests.
  family: [
    'test/integration/family/*.test.ts',
    'test/integration/auth/*.test.ts',
    'test/integration/isolation/*.test.ts',
    'test/integration/openapi/*.test.ts',
    'test/integration/ops/*.test.ts',
    ...each('test/integration/foundation', 'edges-13', 'http', 'startup'),
    ...each('test/integration/realtime', 'channel', 'edges'),
    'test/integration/catalog/locale-names.test.ts',
    'test/integration/lists/detail-read.test.ts',
    ...each('test/e2e/sdk', 'stops', 'catalog-locale'),
  ],
  // The HTTP layer (request ids, headers, problem answers, methods, JSON bodies, rate limits,
  // bearer tokens, route validation, a feature's write answers): the foundation's HTTP and error
  // tests, the rate limits and sessions, bad input, the OpenAPI document, and the REST tests
  // of lists, members and products for the feature routes and admin access.
  http: [
    ...each('test/integration/foundation', 'http', 'errors', 'error-codes', 'edges', 'edges-13', 'logs', 'metrics'),
    ...each(
      'test/integration/auth',
      'ratelimit',
      'retry-after',
      'validation',
      'session',
      'refresh-grace',
      'read-cache',
    ),
    ...each('test/integration/isolation', 'bad-input', 'matrix'),
    'test/integration/openapi/*.test.ts',
    'test/integration/lists/lists.test.ts',
    'test/integration/family/members.test.ts',
    'test/integration/catalog/products.test.ts',
    'test/integration/web/static.test.ts',
  ],
  // Record mapping, client-chosen ids, row edits, record JSON in SQL: the features that use them
  // (lists, stores, recipes), the sync paths, the isolation of client ids and the constraints.
  shared: [
    'test/integration/lists/*.test.ts',
    'test/integration/stores/*.test.ts',
    'test/integration/recipes/*.test.ts',
    ...each('test/integration/sync', 'pull', 'push', 'push-bulk', 'cascades', 'boundaries'),
    'test/integration/isolation/client-ids.test.ts',
    ...each('test/integration/foundation', 'constraints', 'edges'),
    'test/unit/server/migrations.test.ts',
  ],
  // The operator's commands (backup, restore, admin; the control socket of a service on the
  // embedded database) and the upgrade from an earlier version: the commands run as their own
  // processes, which report the mutants they reach (stryker/child.mjs).
  ops: ['test/integration/ops/*.test.ts'],
  // Accounts, sessions, tokens and their refresh, password resets, confirmations and mail
  // languages: the auth tests, the family flows that register and join, the isolation matrix
  // (every route's token check), the live channel's token checks, the HTTP foundation's bearer
  // and error answers, the admin's reset link and the SDK's session tests.
  auth: [
    'test/integration/auth/*.test.ts',
    ...each('test/integration/family', 'invites', 'members'),
    'test/integration/isolation/*.test.ts',
    'test/integration/realtime/channel.test.ts',
    ...each('test/integration/foundation', 'http', 'errors', 'edges-13'),
    'test/integration/ops/admin.test.ts',
    ...each('test/e2e/sdk', 'session-refresh', 'tokens', 'auth-tabs', 'account-client'),
  ],
  // Replication: pull, push (row by row and in bulk), purge, the tombstone horizon, the live
  // patches built from commits; the sync tests, the isolation matrix, the live channel's patches
  // and events, the replication end-to-end test and the SDK's sync paths.
  sync: [
    'test/integration/sync/*.test.ts',
    'test/integration/isolation/*.test.ts',
    ...each('test/integration/realtime', 'live-patches', 'rest-events'),
    'test/e2e/replication.test.ts',
    ...each('test/e2e/sdk', 'initial-sync', 'pull-back', 'noop-push-converges', 'patch-queue', 'offline', 'parity'),
  ],
  // The OpenAPI document and the API reference: their tests (each suite builds the document on
  // an app of its own) and the problem examples' codes. The fuzz test is left out: its requests
  // come from a new seed each run, so whether it kills a mutant would change from run to run.
  openapi: [
    ...each('test/integration/openapi', 'openapi', 'lint', 'document'),
    'test/integration/foundation/error-codes.test.ts',
  ],
  metrics: ['test/integration/foundation/metrics.test.ts', 'test/integration/foundation/http.test.ts'],
  startup: [
    ...each('test/integration/foundation', 'startup', 'config'),
    ...each('test/integration/catalog', 'categories', 'locale-names'),
  ],
};
for (const dir of fs.readdirSync(path.join(root, 'server'), { withFileTypes: true })) {
  if (dir.isDirectory()) {
    FOLDERS[`server-${dir.name}`] = {
      mutate: [`server/${dir.name}/**/*.ts`],
      spec: SERVER_SPECS[dir.name] ?? SERVER_TESTS,
    };
  }
}
FOLDERS['server-top'] = { mutate: ['server/*.ts'], spec: SERVER_TESTS };
for (const f of Object.values(FOLDERS)) {
  if (f.mutate[0].startsWith(SDK)) f.tsconfigFile = 'stryker/tsconfig.sdk.json';
}

/**
 * @param {{ name: string, mutate: string[], spec: string[], tsconfigFile?: string }} run
 *   name: the report's name (reports/mutation/<name>.*); spec: the tests that may cover it.
 */
export function folderConfig({ name, mutate, spec, tsconfigFile = 'tsconfig.json' }) {
  const specs = process.env.MUTATION_SPEC?.split(',').filter(Boolean) ?? spec;
  // Unit tests run without test/setup.ts (the shared app and the live-frame check): the
  // end-to-end and integration tests need it.
  const unitOnly = specs.every((g) => g.startsWith('test/unit/'));
  return {
    packageManager: 'npm',
    plugins: [
      '@stryker-mutator/typescript-checker',
      path.join(here, 'runner/node_modules/@stryker-mutator/mocha-runner/dist/src/index.js'),
      path.join(here, 'progress-reporter.mjs'),
    ],
    testRunner: 'mocha',
    testRunnerNodeArgs: ['--conditions=@family-shopping/source', '--import=tsx'],
    mochaOptions: {
      config: unitOnly ? 'stryker/mocharc.unit.json' : '.mocharc.json',
      spec: specs,
      require: [...(unitOnly ? [] : ['test/setup.ts']), path.join(here, 'mocha-hooks.mjs')],
    },
    coverageAnalysis: 'perTest',
    // A static mutant (reached while modules load) needs a fresh process and every test; with the
    // end-to-end specs that is minutes each, so those runs leave them out (reported as Ignored).
    ignoreStatic: process.env.MUTATION_STATIC ? process.env.MUTATION_STATIC === 'ignore' : !unitOnly,
    checkers: ['typescript'],
    tsconfigFile,
    typescriptChecker: { prioritizePerformanceOverAccuracy: true },
    mutate: process.env.MUTATE?.split(',').filter(Boolean) ?? mutate,
    symlinkNodeModules: false,
    buildCommand: `node stryker/link-sandbox.mjs ${root}`,
    ignorePatterns: ['node_modules', '/reports', '/.stryker-tmp*', '/data', 'dist', '/test/chaos'],
    incremental: true,
    incrementalFile: `reports/mutation/${name}-incremental.json`,
    concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
    // MUTATION_TIMEOUT_MS: a longer allowance where a restarted worker starts apps of its own
    // (the OpenAPI suites), so that one timeout does not make every next mutant time out.
    timeoutMS: Number(process.env.MUTATION_TIMEOUT_MS ?? 5_000),
    dryRunTimeoutMinutes: 30,
    reporters: ['clear-text', 'progress', 'html', 'json', 'progress-file'],
    progressFile: `reports/mutation/${name}-progress.jsonl`,
    htmlReporter: { fileName: `reports/mutation/${name}.html` },
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    thresholds: { high: 90, low: 80, break: null },
    // MUTATION_TMP: a sandbox of its own for a run beside another (each run cleans its own).
    tempDirName: process.env.MUTATION_TMP ?? '.stryker-tmp',
    cleanTempDir: 'always',
  };
}
