import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startTestApp, request } from '../../helpers/app.js';

async function counts(app: Awaited<ReturnType<typeof startTestApp>>) {
  const db = app.deps.db;
  const n = async (table: string) => Number((await db(table).count('* as n'))[0]!.n);
  const dupProducts = await db('products').select('key').groupBy('key').havingRaw('count(*) > 1');
  return { families: await n('families'), products: await n('products'), units: await n('units_of_measure'), dupProducts: dupProducts.length };
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
    const first = await startTestApp({ envOverrides: env });
    const c1 = await counts(first);
    const flags = await first.deps.db('products').whereIn('key', ['milk', 'all-purpose-flour', 'eggs']).select('key', 'unit_category_flags');
    await first.close();

    const second = await startTestApp({ envOverrides: env });
    const c2 = await counts(second);
    const family = await second.deps.db('families').first();
    const res = await request(second, 'GET', '/healthz');
    await second.close();

    expect(res.status).to.equal(200);
    expect(c1.families).to.equal(1);
    expect(c2.families).to.equal(1);
    expect(family.invite_code).to.equal('KITCHEN-42');
    expect(c1.products).to.be.within(100, 130);
    expect(c2.products).to.equal(c1.products);
    expect(c2.dupProducts).to.equal(0);
    expect(c2.units).to.equal(c1.units);
    const byKey = Object.fromEntries(flags.map((r: { key: string; unit_category_flags: number }) => [r.key, r.unit_category_flags]));
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
});

function runMain(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
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
      const { code, output } = await runMain({ [name]: value, DATABASE_URL: name === 'DATABASE_URL' ? value : 'pglite://memory' });
      expect(code).to.equal(1);
      expect(output).to.include(expected);
      expect(output).to.match(/Invalid configuration/);
    });
  }

  it('starts, logs its URL, and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', DATABASE_URL: 'pglite://memory', NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL logged: ${output}`)), 20_000);
      child.stdout.on('data', (d) => {
        output += d;
        const m = /listening on (http:\/\/[^"\s]+)/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    expect(output).to.match(/invite code is [A-Z0-9]+/);
    const res = await fetch(`${url}/readyz`);
    expect(res.status).to.equal(200);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    child.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });
});
