// `npm run mutation [folder …]`: installs Stryker's mocha runner (stryker/runner/) if missing,
// then runs stryker.folders.config.mjs for each folder (all of them by default), one after the
// other, niced: a run keeps both cores busy for a long while. Not in CI.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { FOLDERS } from './folders.mjs';

const run = (cmd, args, env = {}) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
if (!fs.existsSync(new URL('./runner/node_modules/@stryker-mutator/mocha-runner', import.meta.url))) {
  run('npm', ['ci', '--prefix', 'stryker/runner', '--no-audit', '--no-fund']);
}
const asked = process.argv.slice(2);
for (const name of asked.length > 0 ? asked : Object.keys(FOLDERS)) {
  if (!(name in FOLDERS)) throw new Error(`unknown folder ${name}: one of ${Object.keys(FOLDERS).join(', ')}`);
  run('nice', ['-n', '19', 'npx', 'stryker', 'run', 'stryker.folders.config.mjs'], { MUTATION_FOLDER: name });
}
