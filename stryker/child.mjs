// Loaded with `--import` (NODE_OPTIONS, set by stryker/mocha-hooks.mjs) in every process a test
// starts: an operator's command (`npm run backup|restore|admin`), a second server, a second SDK
// device. Such a process is handed the run's state in this module's URL, since some tests start
// it with an environment of their own (only PATH and NODE_OPTIONS kept):
// - `?mutant=ID`: the active mutant, which the instrumented code reads from the environment;
// - `?coverage=DIR`: during the initial run, the mutants the process reached are written to
//   DIR/<pid>.json when it exits, and credited to the test that started it.
import fs from 'node:fs';
import path from 'node:path';

const params = new URL(import.meta.url).searchParams;
const mutant = params.get('mutant');
const dir = params.get('coverage');
if (mutant !== null) process.env.__STRYKER_ACTIVE_MUTANT__ = mutant;
if (dir !== null) {
  process.on('exit', () => {
    const hits = globalThis.__stryker__?.mutantCoverage?.static;
    if (hits !== undefined && Object.keys(hits).length > 0) {
      fs.writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify(hits));
    }
  });
}
