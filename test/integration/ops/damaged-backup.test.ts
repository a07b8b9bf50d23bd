// `npm run restore` given a backup that is damaged, cut short, from a newer version or from a
// database that went another way: each is refused with its own message (exit code 1, no stack)
// and leaves the target database empty, so the operator can restore a good file into it next.
// The good file is a backup of a stopped service's database (taken by the command itself, with no
// service to ask), written out again uncompressed: a restore reads plain files too.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { startTestApp } from '../../helpers/app.js';
import { usingPostgres } from '../../helpers/env.js';
import { createDb, resolveTarget } from '../../../server/db/knex.js';
import { seedProductNames, seedStapleProducts } from '../../../server/startup/jobs.js';
import { createPgDatabase, expectNoStack, pgliteUrl, runOps, tempDir, type CliResult } from './cli.js';
import { insertUsers, seedFamily } from './family-data.js';

type Line = Record<string, unknown>;
/** Above twice the rows a snapshot reads at once (2,000) and nine times a restore's batch (500). */
const BULK_USERS = 4_500;

describe('ops: npm run restore refuses a damaged backup and changes nothing', function () {
  this.timeout(600_000);
  const dir = tempDir('damaged');
  const target = pgliteUrl(path.join(dir, 'target'));
  /** The backup's lines, and the same without the bulk users (what the refusals are made of:
   *  each of them reads its file, and a restore that begins loads what it reads). */
  let whole: string[] = [];
  let good: string[] = [];
  let sourceRows = 0;
  let tableCount = 0;
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const c of cleanups) await c().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  });

  before(async () => {
    // The source: a database of its own (embedded in a folder, or a new PostgreSQL database).
    let url = pgliteUrl(path.join(dir, 'source'));
    if (usingPostgres) {
      const admin = createDb(resolveTarget(process.env.DATABASE_URL, '.'));
      const created = await createPgDatabase(admin);
      url = created.url;
      cleanups.push(() => created.drop().finally(() => admin.destroy()));
    }
    const app = await startTestApp({ envOverrides: { DATABASE_URL: url, NODE_ENV: 'test' } });
    try {
      await seedFamily(app.url, 'Damaged');
      // Enough users for several pages of the snapshot's reads and batches of the restore's writes.
      await insertUsers(app.deps.db, 'bulk', BULK_USERS);
    } finally {
      await app.close(); // the service stops; its database stays
    }
    const file = path.join(dir, 'stopped.backup.gz');
    const backup = await runOps('backup', [file], { DATABASE_URL: url });
    expect(backup.code, backup.stderr).to.equal(0);
    // The database it read, named without its password.
    const u = new URL(url);
    const from = usingPostgres
      ? `PostgreSQL database ${u.pathname.slice(1)} on ${u.hostname}${u.port ? `:${u.port}` : ''}`
      : `the embedded database in ${url.slice('pglite://'.length)}`;
    expect(backup.stdout.startsWith(`Backup of ${from} written to ${file} (`), backup.stdout).to.equal(true);
    whole = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').trimEnd().split('\n');
    for (const l of whole) {
      const v = JSON.parse(l) as Line;
      if (typeof v.table === 'string') {
        tableCount++;
        sourceRows += v.rows as number;
      }
    }
    const users = whole.findIndex((l) => parse(l).table === 'users');
    const bulk = (l: string) => l.includes('"email":"bulk-');
    expect(whole.filter(bulk)).to.have.length(BULK_USERS);
    good = whole
      .filter((l) => !bulk(l))
      .map((l, i) =>
        i === users ? JSON.stringify({ table: 'users', rows: (parse(l).rows as number) - BULK_USERS }) : l,
      );
  });

  const parse = (l: string) => JSON.parse(l) as Line;
  const header = () => parse(good[0]!);
  const withHeader = (h: Line) => [JSON.stringify(h), ...good.slice(1)];
  /** The index of the heading line of `table`. */
  const heading = (table: string) => good.findIndex((l) => l.startsWith('{') && parse(l).table === table);
  /** A table with rows, and one without. */
  const tableWith = (full: boolean) => {
    for (const l of good) {
      const v = parse(l);
      if (typeof v.table === 'string' && (v.rows as number) > 0 === full)
        return { name: v.table, rows: v.rows as number };
    }
    throw new Error('no such table in the backup');
  };

  async function restore(lines: string[], name: string, into = target): Promise<CliResult> {
    const file = path.join(dir, `${name}.backup`);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const r = await runOps('restore', [file], { DATABASE_URL: into });
    expectNoStack(r);
    return r;
  }
  async function refused(lines: string[], name: string, message: RegExp | string): Promise<void> {
    const r = await restore(lines, name);
    expect(r.code, `${name}: ${r.stdout}`).to.equal(1);
    if (typeof message === 'string') expect(r.stderr.trimEnd(), name).to.equal(message);
    else expect(r.stderr.trimEnd(), name).to.match(message);
  }

  it('refuses a header of another format version or without its migration list', async () => {
    await refused(
      withHeader({ ...header(), version: 2 }),
      'v2',
      'This backup has format version 2; this version reads 1.',
    );
    await refused(
      withHeader({ ...header(), migrations: 'all' }),
      'no-list',
      'The backup file is damaged (its migration list).',
    );
    await refused(
      withHeader({ ...header(), migrations: [...(header().migrations as string[]), 7] }),
      'odd-list',
      'The backup file is damaged (its migration list).',
    );
    await refused(['', 'not json'], 'not-json', 'The backup file is damaged (expected the header).');
    await refused([], 'empty', /^The backup file ends early \(expected the header\): it is incomplete or damaged\.$/);
  });

  it('refuses a backup of a newer version, or of migrations this version does not have in that order', async () => {
    const migrations = header().migrations as string[];
    await refused(
      withHeader({ ...header(), migrations: [...migrations, '99990101000000_from_the_future.ts'] }),
      'newer',
      'The backup was made by a newer version (migration 99990101000000_from_the_future.ts is unknown here): ' +
        'restore it with that version or later.',
    );
    await refused(
      withHeader({ ...header(), migrations: [migrations[1], migrations[0], ...migrations.slice(2)] }),
      'swapped',
      'The backup’s migrations do not match this version’s.',
    );
  });

  it('refuses a file cut short, a damaged heading, a table twice, unknown or missing, a wrong table count', async () => {
    const full = tableWith(true);
    const at = heading(full.name);
    await refused(
      good.slice(0, -1),
      'no-end',
      'The backup file ends early (expected a table or the end): it is incomplete or damaged.',
    );
    await refused(
      good.slice(0, at + full.rows),
      'cut-rows',
      `The backup file ends early (expected row ${full.rows} of ${full.name}): it is incomplete or damaged.`,
    );
    const edited = (i: number, line: unknown) => good.map((l, j) => (j === i ? JSON.stringify(line) : l));
    // A table without rows: a count below one would read nothing and go on.
    const empty = tableWith(false).name;
    for (const [name, i, bad] of [
      ['negative', heading(empty), { table: empty, rows: -1 }],
      ['fraction', heading(empty), { table: empty, rows: 0.5 }],
      ['text-rows', at, { table: full.name, rows: String(full.rows) }],
      ['no-name', at, { rows: full.rows }],
    ] as const)
      await refused(edited(i, bad), name, 'The backup file is damaged (a table heading).');
    await refused(edited(at, [1, 2]), 'array', 'The backup file is damaged (expected a table or the end).');

    const end = good.length - 1;
    const before = (i: number, ...lines: string[]) => [...good.slice(0, i), ...lines, ...good.slice(i)];
    await refused(
      before(end, JSON.stringify({ table: 'ghosts', rows: 0 })),
      'ghosts',
      'The backup has a table this database lacks: ghosts.',
    );
    await refused(
      before(end, JSON.stringify({ table: empty, rows: 0 })),
      'twice',
      `The backup file is damaged (table ${empty} twice).`,
    );
    await refused(
      good.filter((_, i) => i !== heading(empty)),
      'missing',
      /^The backup file is damaged \(its table count\)\.$/,
    );
    await refused(
      [
        ...good.filter((_, i) => i !== heading(empty) && i !== end),
        JSON.stringify({ end: true, tables: tableCount - 1 }),
      ],
      'lacks',
      `The backup lacks tables of this database: ${empty}.`,
    );
    await refused(
      edited(end, { end: true, tables: tableCount + 1 }),
      'count',
      'The backup file is damaged (its table count).',
    );
  });

  it('refuses a backup at an earlier migration level than the database it would go into', async () => {
    // A restore migrates first, then loads in one transaction: one that fails on its tables
    // leaves the target empty at this version's level (as the refusals above did).
    await refused(
      [JSON.stringify(header()), JSON.stringify({ end: true, tables: 0 })],
      'level',
      /^The backup lacks tables of this database: /,
    );
    const migrations = header().migrations as string[];
    for (const [name, level, at] of [
      ['older', migrations.slice(0, 1), migrations[0]],
      ['unmigrated', [], 'no migration'],
    ] as const)
      await refused(
        [JSON.stringify({ ...header(), migrations: level }), JSON.stringify({ end: true, tables: 0 })],
        name,
        `The database is already migrated past the backup (to ${migrations.at(-1)}, the backup is at ${at}). ` +
          'Restore into a database that no version has started on yet: a new DATA_DIR or a new PostgreSQL database.',
      );
  });

  it('after every refusal the database is still empty: the good file, uncompressed, with blank lines, restores', async () => {
    const r = await restore(['', ...whole.flatMap((l) => [l, ''])], 'good');
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(
      new RegExp(`^Restored ${sourceRows} rows in ${tableCount} tables into the embedded database in `),
    );
    // Every user is there (the admin's list: a heading, then one line each), all of the list
    // written though its reader takes a while to start reading.
    const users = await runOps('admin', ['users'], { DATABASE_URL: target }, { readAfterMs: 2_000 });
    expect(users.code, users.stderr).to.equal(0);
    expect(users.stdout.trimEnd().split('\n')).to.have.length(
      1 + (whole.map(parse).find((v) => v.table === 'users')!.rows as number),
    );
    expect(users.stdout).to.include('\nbulk-4500@example.test ');
    const again = await restore(good, 'good-again');
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(
      /^The database is not empty \(rows in [a-z_, ]+\)\. Restore only into an empty database/,
    );
  });

  it('restores into the database of a service that started once: its first family and staples are not data', async () => {
    const fresh = pgliteUrl(path.join(dir, 'fresh'));
    const app = await startTestApp({ envOverrides: { DATABASE_URL: fresh, NODE_ENV: 'test' } });
    try {
      await seedStapleProducts(app.deps.db);
      await seedProductNames(app.deps.db);
    } finally {
      await app.close();
    }
    const r = await restore(whole, 'into-fresh', fresh);
    expect(r.code, r.stderr).to.equal(0);
    const families = await runOps('admin', ['families'], { DATABASE_URL: fresh });
    expect(families.stdout).to.match(/^Damaged \S+\s+\d+\s+\d{4}-/m);
  });
});
