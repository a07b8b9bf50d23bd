// Regenerates test/fixtures/upgrade/: the database of an earlier commit with a family's data in
// it, and the REST views its members read then (test/integration/ops/upgrade.test.ts loads it,
// starts the current code on it and compares).
//
//   npx tsx --conditions=@family-shopping/source scripts/make-upgrade-fixture.ts [COMMIT]
//
// COMMIT (default: the one named in the current fixture, else b59724b) is checked out in a
// temporary git worktree that borrows this checkout's node_modules; its own `server/main.ts`
// runs on an embedded database in a temporary DATA_DIR, is filled through REST, and stopped;
// the current `npm run backup` then writes that database as the fixture.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { login, readViews, seedFamily, viewPaths } from '../test/integration/ops/family-data.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fixtureDir = path.join(root, 'test/fixtures/upgrade');
const previous = fs.existsSync(path.join(fixtureDir, 'views.json'))
  ? (JSON.parse(fs.readFileSync(path.join(fixtureDir, 'views.json'), 'utf8')) as { commit: string }).commit
  : undefined;
const commit = execFileSync('git', ['rev-parse', process.argv[2] ?? previous ?? 'b59724b'], { cwd: root })
  .toString()
  .trim();

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-upgrade-'));
const tree = path.join(work, 'tree');
const dataDir = path.join(work, 'data');
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'inherit' });

/** The worktree's node_modules: this checkout's packages, but its own workspace packages. */
function linkNodeModules(): void {
  const mine = path.join(root, 'node_modules');
  const theirs = path.join(tree, 'node_modules');
  fs.mkdirSync(theirs);
  for (const entry of fs.readdirSync(mine)) {
    if (entry === '@family-shopping') continue;
    fs.symlinkSync(path.join(mine, entry), path.join(theirs, entry));
  }
  fs.mkdirSync(path.join(theirs, '@family-shopping'));
  fs.symlinkSync(path.join(tree, 'client-sdk'), path.join(theirs, '@family-shopping/client'));
  fs.symlinkSync(path.join(tree, 'web'), path.join(theirs, '@family-shopping/web'));
}

/** Starts the earlier commit's server; resolves with its URL and a stop function. */
function startOld(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@family-shopping/source', 'server/main.ts'], {
    cwd: tree,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
      if (m) resolve({ url: m[1]!, stop: () => (child.kill('SIGTERM'), exited) });
    });
    child.on('exit', (code) => reject(new Error(`the server of ${commit} exited (${code}):\n${out}`)));
  });
}

try {
  git('worktree', 'add', '--detach', tree, commit);
  linkNodeModules();
  const old = await startOld();
  let record;
  try {
    const seeded = await seedFamily(old.url, 'Upgrade');
    const token = await login(old.url, seeded.email, seeded.password);
    const paths = viewPaths(seeded);
    const views = await readViews(old.url, token, paths);
    record = { commit, recordedAt: new Date().toISOString(), email: seeded.email, password: seeded.password, views };
  } finally {
    await old.stop();
  }
  fs.mkdirSync(fixtureDir, { recursive: true });
  const file = path.join(fixtureDir, 'database.backup.gz');
  execFileSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=@family-shopping/source', 'server/ops/backup-cli.ts', file],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      stdio: 'inherit',
    },
  );
  fs.chmodSync(file, 0o644); // a test fixture: no secret of anyone's
  const views = path.join(fixtureDir, 'views.json');
  fs.writeFileSync(views, `${JSON.stringify(record, null, 2)}\n`);
  execFileSync(path.join(root, 'node_modules/.bin/prettier'), ['--write', '--log-level=warn', views], { cwd: root });
  console.log(`Fixture of ${commit} written to ${path.relative(root, fixtureDir)}`);
} finally {
  git('worktree', 'remove', '--force', tree);
  fs.rmSync(work, { recursive: true, force: true });
}
