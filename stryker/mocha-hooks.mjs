// Loaded by Stryker's mocha runner before the test files (mochaOptions.require of
// stryker/folders.mjs), in the one test process that runs every mutant of a run.
//
// - Per-test coverage: the runner attributes what runs to the test of its last `beforeEach`, so
//   a suite's `before`/`after` hooks (an app started, clients signed in) would count for the
//   previous file's last test, and a mutant reached only there would run against the wrong test.
//   Here such a hook's coverage goes to every test of its suite instead.
// - Child processes (a second SDK device, a second server, an operator's command): each loads
//   stryker/child.mjs (NODE_OPTIONS), which hands it the active mutant and, during the initial
//   run, brings back the mutants it reached, credited to the test or suite hook that started it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

// The mocha that the runner uses (stryker/runner's), not the project's.
const require = createRequire(
  new URL('./runner/node_modules/@stryker-mutator/mocha-runner/package.json', import.meta.url),
);
const { Suite } = require('mocha');
const ns = () => globalThis.__stryker__ ?? (globalThis.__stryker__ = {});
const HOOK = '\u0000suite hook';

const CHILD = new URL('./child.mjs', import.meta.url);
const childDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stryker-children-'));
process.on('exit', () => fs.rmSync(childDir, { recursive: true, force: true }));
const baseNodeOptions = process.env.NODE_OPTIONS ?? '';

/** What a process started from now on is handed: the active mutant, or where to leave its coverage. */
function handToChildren() {
  const n = ns();
  const url = new URL(CHILD);
  if (n.activeMutant !== undefined) url.searchParams.set('mutant', String(n.activeMutant));
  else if (n.mutantCoverage !== undefined) url.searchParams.set('coverage', childDir);
  process.env.NODE_OPTIONS = `${baseNodeOptions} --import=${url.href}`.trim();
  if (n.activeMutant === undefined) delete process.env.__STRYKER_ACTIVE_MUTANT__;
  else process.env.__STRYKER_ACTIVE_MUTANT__ = String(n.activeMutant);
}

/** Credits what the processes that exited since reached to the test (or suite hook) `testId`. */
function collectChildren(testId) {
  const perTest = ns().mutantCoverage?.perTest;
  for (const file of fs.readdirSync(childDir)) {
    const full = path.join(childDir, file);
    const hits = JSON.parse(fs.readFileSync(full, 'utf8'));
    fs.rmSync(full);
    if (perTest === undefined || testId === undefined) continue;
    const into = (perTest[testId] ??= {});
    for (const [id, count] of Object.entries(hits)) into[id] = (into[id] ?? 0) + count;
  }
}

/** Credits the coverage of a suite hook to each test of the suite (and of its sub-suites). */
function credit(suite, previous) {
  const n = ns();
  const hits = n.mutantCoverage?.perTest?.[HOOK];
  n.currentTestId = previous;
  if (!hits) return;
  delete n.mutantCoverage.perTest[HOOK];
  const visit = (s) => {
    for (const t of s.tests) {
      const into = (n.mutantCoverage.perTest[t.fullTitle()] ??= {});
      for (const [id, count] of Object.entries(hits)) into[id] = (into[id] ?? 0) + count;
    }
    s.suites.forEach(visit);
  };
  visit(suite);
}

function wrap(fn, suite) {
  if (typeof fn !== 'function') return fn;
  const covering = () => ns().mutantCoverage !== undefined && ns().activeMutant === undefined;
  if (fn.length > 0) {
    return function (done) {
      handToChildren();
      if (!covering()) return fn.call(this, done);
      const previous = ns().currentTestId;
      ns().currentTestId = HOOK;
      return fn.call(this, (err) => {
        collectChildren(HOOK);
        credit(suite, previous);
        done(err);
      });
    };
  }
  return async function () {
    handToChildren();
    if (!covering()) return fn.call(this);
    const previous = ns().currentTestId;
    ns().currentTestId = HOOK;
    try {
      return await fn.call(this);
    } finally {
      collectChildren(HOOK);
      credit(suite, previous);
    }
  };
}

for (const name of ['beforeAll', 'afterAll']) {
  const original = Suite.prototype[name];
  Suite.prototype[name] = function (title, fn) {
    if (typeof title === 'function') return original.call(this, wrap(title, this));
    return original.call(this, title, wrap(fn, this));
  };
}

export const mochaHooks = {
  beforeEach() {
    handToChildren();
  },
  afterEach() {
    collectChildren(this.currentTest?.fullTitle());
  },
};
