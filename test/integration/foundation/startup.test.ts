import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startTestApp, request, testApp } from '../../helpers/app.js';
import { makeFamily, registerViaApi } from '../../helpers/factories.js';
import { usingPostgres } from '../../helpers/env.js';
import { MIGRATIONS_DIR } from '../../../server/db/migrate.js';
import { ensureUnits } from '../../../server/startup/jobs.js';

const capture = (lines: string[]) =>
  pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));

async function counts(app: Awaited<ReturnType<typeof startTestApp>>) {
  const db = app.deps.db;
  const n = async (table: string) => Number((await db(table).count('* as n'))[0]!.n);
  const dupProducts = await db('products').select('key').groupBy('key').havingRaw('count(*) > 1');
  return {
    families: await n('families'),
    products: await n('products'),
    units: await n('units_of_measure'),
    dupProducts: dupProducts.length,
  };
}

describe('startup on the embedded database', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  const tmp = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-startup-'));
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('two starts against one data directory: one default family, the staple products once', async () => {
    const dir = tmp();
    const env = { DATABASE_URL: '', DATA_DIR: dir, NODE_ENV: 'development', DEFAULT_FAMILY_INVITE_CODE: 'KITCHEN-42' };
    const log1: string[] = [];
    const first = await startTestApp({ envOverrides: env, logger: capture(log1) });
    const c1 = await counts(first);
    const flags = await first.deps
      .db('products')
      .whereIn('key', ['milk', 'all-purpose-flour', 'eggs'])
      .select('key', 'unit_category_flags');
    await first.close();

    const log2: string[] = [];
    const second = await startTestApp({ envOverrides: env, logger: capture(log2) });
    const c2 = await counts(second);
    const family = await second.deps.db('families').first();
    const res = await request(second, 'GET', '/healthz');
    await second.close();

    expect(res.status).to.equal(200);
    expect(c1.families).to.equal(1);
    expect(c2.families).to.equal(1);
    expect(family.invite_code).to.equal('KITCHEN-42');
    expect(family.locale).to.equal('en'); // the default family speaks English (api.md "Languages")
    expect(log1.join('')).to.include('its invite code is KITCHEN-42');
    expect(log2.join('')).not.to.include('KITCHEN-42');
    // The first start says what it seeded, with the figures; the second seeds nothing and says nothing.
    const lines1 = log1
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines1.find((l) => String(l.msg).startsWith('Created the default family'))).to.include({
      inviteCode: 'KITCHEN-42',
    });
    expect(lines1.find((l) => l.msg === 'Seeded staple products')).to.include({ added: c1.products });
    const names = lines1.find((l) => l.msg === 'Seeded product names');
    expect(names?.names).to.be.a('number').greaterThan(c1.products); // four languages, most staples named
    expect(log2.join('')).not.to.match(/Seeded|Created the default family/);
    expect(c1.products).to.be.within(100, 130);
    expect(c2.products).to.equal(c1.products);
    expect(c2.dupProducts).to.equal(0);
    expect(c2.units).to.equal(c1.units);
    const byKey = Object.fromEntries(
      flags.map((r: { key: string; unit_category_flags: number }) => [r.key, r.unit_category_flags]),
    );
    expect(byKey).to.deep.equal({ milk: 4, 'all-purpose-flour': 2, eggs: 1 }); // Volume, Weight, Count
  });

  it('with NODE_ENV=test the staple seeder is skipped, reference units still exist', async () => {
    const app = await startTestApp({ envOverrides: { DATABASE_URL: '', DATA_DIR: tmp(), NODE_ENV: 'test' } });
    const c = await counts(app);
    await app.close();
    expect(c.products).to.equal(0);
    expect(c.families).to.equal(1);
    expect(c.units).to.be.greaterThan(10);
  });

  it('adds the reference units a database lacks at start, once, in one catalog write', async () => {
    const app = await startTestApp({ envOverrides: { DATABASE_URL: '', DATA_DIR: tmp(), NODE_ENV: 'test' } });
    try {
      const db = app.deps.db;
      const catalogVersion = async () => String((await db('catalog_counter').first('version'))!.version);
      const before = await db('units_of_measure').where({ code: 'tablespoon' }).first();
      expect(before).to.not.equal(undefined);
      await db('units_of_measure').where({ code: 'tablespoon' }).delete(); // a unit added to seeds/units.json since
      const v0 = await catalogVersion();
      expect(await ensureUnits(db)).to.equal(1);
      const back = await db('units_of_measure').where({ code: 'tablespoon' }).first();
      expect(back.id).to.equal(before.id); // its stable id: the same on every database
      expect({ name: back.name, abbreviation: back.abbreviation, category: back.category }).to.deep.equal({
        name: before.name,
        abbreviation: before.abbreviation,
        category: before.category,
      });
      const v1 = await catalogVersion();
      expect(BigInt(v1)).to.equal(BigInt(v0) + 1n);
      expect(String(back.catalog_version)).to.equal(v1); // devices pull it after their checkpoint
      // Nothing missing: no write at all, the catalog's version stays.
      expect(await ensureUnits(db)).to.equal(0);
      expect(await catalogVersion()).to.equal(v1);
    } finally {
      await app.close();
    }
  });

  it('keeps a generated JWT secret in the database, the same across restarts', async () => {
    const dir = tmp();
    const env = { DATABASE_URL: '', DATA_DIR: dir, JWT_SECRET: '' };
    const a = await startTestApp({ envOverrides: env });
    const s1 = a.deps.jwtSecret;
    await a.close();
    const b = await startTestApp({ envOverrides: env });
    const s2 = b.deps.jwtSecret;
    await b.close();
    expect(s1).to.have.length.greaterThan(40);
    expect(s2).to.equal(s1);
  });

  it('instances sharing a database agree on the generated JWT secret: a token of one works on the other', async () => {
    const shared = await testApp();
    // On PostgreSQL each instance has its own pool; the in-memory PGlite can only be shared.
    const other = await startTestApp(usingPostgres ? {} : { db: shared.deps.db });
    try {
      expect(other.deps.jwtSecret).to.equal(shared.deps.jwtSecret);
      const fam = await makeFamily(shared);
      const res = await request(other, 'GET', '/api/family', { token: fam.admin.token });
      expect(res.status).to.equal(200);
    } finally {
      await other.close();
    }
  });
});

/** Runs a script of this repository as its own process (as `npm start` / `npm run …` would). */
function run(script: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...script], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const runMain = (env: Record<string, string>) => run(['server/main.ts'], env);

/** Starts `server/main.ts` and resolves once it logs the URL it listens on. */
async function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (d) => (output += d));
  // The exit code, or the signal's name when a signal ended the process.
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('exit', (c, signal) => resolve(c ?? signal)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL logged: ${output}`)), 30_000);
    child.stdout.on('data', (d) => {
      output += d;
      const m = /listening on (http:\/\/[^"\s]+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then(() => reject(new Error(`exited before listening: ${output}`)));
  });
  return {
    url,
    output: () => output,
    /** Sends the signal and resolves with the exit code. */
    stop: (signal: NodeJS.Signals) => {
      child.kill(signal);
      return exited;
    },
  };
}

describe('configuration', function () {
  this.timeout(30_000);
  const cases: [string, string, string][] = [
    ['PORT', 'abc', 'PORT'],
    ['JWT_SECRET', 'too-short', 'JWT_SECRET'],
    ['DATABASE_URL', 'mysql://x', 'DATABASE_URL'],
    ['ALLOW_NEW_FAMILIES', 'maybe', 'ALLOW_NEW_FAMILIES'],
    ['ACCESS_TOKEN_TTL', 'forever', 'ACCESS_TOKEN_TTL'],
  ];
  for (const [name, value, expected] of cases) {
    it(`a bad ${name} stops the process with a message naming it`, async () => {
      const { code, output } = await runMain({
        [name]: value,
        DATABASE_URL: name === 'DATABASE_URL' ? value : 'pglite://memory',
      });
      expect(code).to.equal(1);
      expect(output).to.include(expected);
      expect(output).to.match(/Invalid configuration/);
    });
  }
});

describe('npm start', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-main-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('logs its URL (PORT=0: the port it picked) and, on the first start only, the invite code; stops cleanly on SIGTERM and SIGINT; keeps the data', async () => {
    const env = { PORT: '0', DATA_DIR: dir, NODE_ENV: 'test' };
    const first = await startMain(env);
    expect(first.url).to.match(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    const code = /invite code is ([A-Z0-9]+)/.exec(first.output())?.[1];
    expect(code, 'invite code logged on the first start').to.be.a('string');
    expect((await fetch(`${first.url}/readyz`)).status).to.equal(200);
    expect(await first.stop('SIGTERM'), first.output()).to.equal(0);
    expect(first.output()).to.match(/"signal":"SIGTERM".*shutting down/);

    const second = await startMain(env);
    expect(second.output()).not.to.match(/invite code/);
    // The default family of the first start is still there: its code lets a new member join.
    const joined = await registerViaApi(second, { familyCode: code! });
    expect(joined.status).to.equal(201);
    expect(await second.stop('SIGINT'), second.output()).to.equal(0);
    expect(second.output()).to.match(/"signal":"SIGINT".*shutting down/);
  });
});

describe('one process per embedded data directory', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-lock-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses a second process on a data directory in use, takes over a lock whose process is gone, and releases it on stop', async () => {
    const env = { PORT: '0', DATA_DIR: dir, NODE_ENV: 'test' };
    const lock = path.join(dir, 'pglite.lock');
    const first = await startMain(env);
    const second = await runMain(env);
    expect(second.code).to.equal(1);
    expect(second.output).to.match(/in use by process \d+/);
    // The first one is unharmed by the attempt.
    expect((await fetch(`${first.url}/readyz`)).status).to.equal(200);
    expect(await first.stop('SIGTERM'), first.output()).to.equal(0);
    expect(fs.existsSync(lock), 'lock released on stop').to.equal(false);

    // A lock left behind by a process that no longer runs (a crash) does not block a start.
    const gone = spawn(process.execPath, ['-e', '0']);
    const deadPid = gone.pid!;
    await new Promise((resolve) => gone.on('exit', resolve));
    fs.writeFileSync(lock, `${deadPid}\n`);
    const third = await startMain(env);
    expect(fs.readFileSync(lock, 'utf8').trim()).to.not.equal(String(deadPid));
    expect(await third.stop('SIGINT'), third.output()).to.equal(0);
  });
});

describe('migrations on their own', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-migrate-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('npm run migrate and the knex CLI with knexfile.ts apply, list and roll back migrations', async () => {
    const env = { DATA_DIR: dir };
    const knex = (...args: string[]) =>
      run(['node_modules/knex/bin/cli.js', '--knexfile', 'knexfile.ts', ...args], env);
    const migrate = await run(['server/db/migrate-cli.ts'], env);
    expect(migrate, migrate.output).to.include({ code: 0 });
    // Every file of migrations/, in name order.
    const names = fs
      .readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith('.ts'))
      .sort();
    expect(names.slice(0, 2)).to.deep.equal([
      '20261122000001_create_schema.ts',
      '20261123000001_seed_reference_units.ts',
    ]);
    expect(migrate.output).to.include(`Applied ${names.length} migration(s): ${names.join(', ')}`);
    expect((await run(['server/db/migrate-cli.ts'], env)).output).to.include('Already up to date');
    // The reference units are there from the migrations alone, before any server start.
    const units = await run(
      [
        '--input-type=module',
        '-e',
        `import { createDb, resolveTarget } from './server/db/knex.ts';
         const db = createDb(resolveTarget(undefined, ${JSON.stringify(dir)}));
         console.log('units:' + (await db('units_of_measure').pluck('code')).sort().join(','));
         await db.destroy();`,
      ],
      env,
    );
    expect(units.output, units.output).to.match(/units:.*\beach\b/);

    const rollback = await knex('migrate:rollback');
    expect(rollback.output).to.include(`rolled back: ${names.length} migrations`);
    const pending = await knex('migrate:list');
    expect(pending.output).to.include(`Found ${names.length} Pending Migration`);
    const latest = await knex('migrate:latest');
    expect(latest.output).to.include(`Batch 1 run: ${names.length} migrations`);
    const status = await knex('migrate:list');
    expect(status, status.output).to.include({ code: 0 });
    expect(status.output).to.match(/No Pending Migration/);

    // The server starts on the migrated directory.
    const app = await startTestApp({ envOverrides: { DATABASE_URL: '', DATA_DIR: dir } });
    const res = await request(app, 'GET', '/readyz');
    await app.close();
    expect(res.status).to.equal(200);
  });
});
