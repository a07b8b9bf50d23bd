// Stryker's build step in its sandbox (a copy of the project where the mutants live). The
// sandbox's node_modules links each package of the project's own, except our workspace packages
// (@family-shopping/client, @family-shopping/web), which link the sandbox's copies: otherwise a
// test importing `@family-shopping/client` would load the project's unmutated sources and no
// mutant of client-sdk/src could ever be killed. Usage: node link-sandbox.mjs <project dir>
import fs from 'node:fs';
import path from 'node:path';

const origin = process.argv[2];
if (!origin) throw new Error('usage: node stryker/link-sandbox.mjs <project dir>');
const from = path.join(origin, 'node_modules');
const to = path.resolve('node_modules');
if (path.resolve(from) === to) throw new Error('run in the sandbox, not in the project');
const OWN = { '@family-shopping': { client: 'client-sdk', web: 'web' } };

if (fs.existsSync(to)) {
  if (fs.lstatSync(to).isSymbolicLink()) fs.unlinkSync(to);
  else fs.rmSync(to, { recursive: true, force: true });
}
fs.mkdirSync(to);
for (const entry of fs.readdirSync(from)) {
  if (!entry.startsWith('@')) {
    fs.symlinkSync(path.join(from, entry), path.join(to, entry));
    continue;
  }
  fs.mkdirSync(path.join(to, entry));
  for (const name of fs.readdirSync(path.join(from, entry))) {
    const own = OWN[entry]?.[name];
    fs.symlinkSync(own ? path.resolve(own) : path.join(from, entry, name), path.join(to, entry, name));
  }
}

// A test that starts the server as a process of its own (`node --import tsx server/main.ts`:
// startup.test.ts, config.test.ts) resolves the SDK without the source condition, i.e. its built
// files, which the sandbox leaves out with every `dist`: link the project's (unmutated; the
// child runs no mutant, it has no `__STRYKER_ACTIVE_MUTANT__`).
const sdkDist = path.join(origin, 'client-sdk', 'dist');
if (fs.existsSync(sdkDist) && !fs.existsSync(path.resolve('client-sdk', 'dist'))) {
  fs.symlinkSync(sdkDist, path.resolve('client-sdk', 'dist'));
}
