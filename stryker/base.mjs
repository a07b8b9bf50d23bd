// What the two mutation runs (stryker.sdk.config.mjs, stryker.server.config.mjs) share. Not in
// CI: a run is long. See docs/architecture.md "Mutation testing".
//
// - The mutants live in a sandbox copy of the project (never in the working tree); its
//   node_modules is rebuilt by stryker/link-sandbox.mjs so that our workspace packages resolve
//   to the sandbox's mutated sources.
// - Tests run as `npx mocha <spec>` (Stryker's command runner), so under .mocharc.json like
//   `npm test`. (Stryker's mocha runner 9.x does not load mocha 12, and its 10.x needs Node 22.)
//   Each mutant runs the run's whole spec: keep a run's spec to the tests of its files.
// - Incremental: the results of a run are kept in reports/ and reused for unchanged code and
//   tests; only what changed since is tested again.
// - MUTATE and MUTATION_SPEC (comma-separated globs) narrow a run to some files and tests, e.g.
//   MUTATE=client-sdk/src/backoff.ts MUTATION_SPEC=test/e2e/sdk/network.test.ts npm run mutation:sdk
const list = (v) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

export function mutationConfig({ name, mutate, spec, tsconfigFile = 'tsconfig.json' }) {
  const specs = list(process.env.MUTATION_SPEC) ?? spec;
  // Unit tests need neither the shared app nor the live-frame check of test/setup.ts: without
  // them a mocha start takes about half the time, and each mutant pays it once. --bail: a mutant
  // is killed by its first failing test, the rest need not run.
  const unitOnly = specs.every((g) => g.startsWith('test/unit/'));
  const config = unitOnly ? '--config stryker/mocharc.unit.json ' : '';
  return {
    packageManager: 'npm',
    testRunner: 'command',
    commandRunner: {
      command: `node node_modules/mocha/bin/mocha.js ${config}--bail ${specs.map((g) => `'${g}'`).join(' ')}`,
    },
    checkers: ['typescript'],
    tsconfigFile,
    typescriptChecker: { prioritizePerformanceOverAccuracy: true },
    mutate: list(process.env.MUTATE) ?? mutate,
    symlinkNodeModules: false,
    // Run without a shell: the path is one argument as it is (a path with spaces is not supported).
    buildCommand: `node stryker/link-sandbox.mjs ${process.cwd()}`,
    ignorePatterns: ['node_modules', '/reports', '/.stryker-tmp', '/data', 'dist', '/test/chaos'],
    coverageAnalysis: 'off',
    incremental: true,
    incrementalFile: `reports/mutation/${name}-incremental.json`,
    concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
    timeoutMS: 30_000,
    reporters: ['clear-text', 'progress', 'html', 'json'],
    htmlReporter: { fileName: `reports/mutation/${name}.html` },
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    thresholds: { high: 90, low: 80, break: null },
    tempDirName: '.stryker-tmp',
    cleanTempDir: 'always',
  };
}
