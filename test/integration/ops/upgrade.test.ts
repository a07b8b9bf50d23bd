// Upgrades (contract §11): the database of an earlier commit (test/fixtures/upgrade, made by
// scripts/make-upgrade-fixture.ts: that commit's migrations and a family filled through its REST
// API) is restored at its own migration level into an empty database, the current code starts on
// it (migrating it as a start does), and every record is intact and every REST view the family
// read then reads the same now. On PGlite, and on PostgreSQL when DATABASE_URL is set.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { startTestApp } from '../../helpers/app.js';
import { usingPostgres } from '../../helpers/env.js';
import { closeDb, createDb, resolveTarget } from '../../../server/db/knex.js';
import { appliedMigrations, migrationNames } from '../../../server/ops/snapshot.js';
import type { RunningServer } from '../../../server/server.js';
import { createPgDatabase, pgliteUrl, runOps, tempDir } from './cli.js';
import { differences, login, readViews } from './family-data.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/upgrade');

interface Recorded {
  commit: string;
  recordedAt: string;
  email: string;
  password: string;
  views: Record<string, unknown>;
}

/** The fixture's rows by table, parsed from the backup's lines. */
function fixtureRows(): { migrations: string[]; tables: Map<string, Array<Record<string, unknown>>> } {
  const lines = zlib
    .gunzipSync(fs.readFileSync(path.join(FIXTURE, 'database.backup.gz')))
    .toString('utf8')
    .split('\n')
    .filter(Boolean);
  const header = JSON.parse(lines[0]!) as { migrations: string[] };
  const tables = new Map<string, Array<Record<string, unknown>>>();
  let i = 1;
  while (i < lines.length) {
    const section = JSON.parse(lines[i++]!) as { table?: string; rows?: number; end?: boolean };
    if (section.end) break;
    tables.set(
      section.table!,
      lines.slice(i, i + section.rows!).map((l) => JSON.parse(l) as Record<string, unknown>),
    );
    i += section.rows!;
  }
  return { migrations: header.migrations, tables };
}

const CATALOG_VIEW = /^\/api\/(units|products\?|sync\/(products|units)\/)/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d(:\d\d)?|Z)$/;
/** A timestamp as its instant to the microsecond (its text depends on the session's time zone). */
const instant = (s: string) => `${new Date(s).getTime()}.${(/\.(\d+)/.exec(s)?.[1] ?? '').padEnd(6, '0')}`;
const same = (a: unknown, b: unknown) =>
  typeof a === 'string' && typeof b === 'string' && TIMESTAMP.test(a) && TIMESTAMP.test(b)
    ? instant(a) === instant(b)
    : JSON.stringify(a) === JSON.stringify(b);

describe('ops: upgrade from an earlier version', function () {
  this.timeout(600_000);
  const recorded = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'views.json'), 'utf8')) as Recorded;
  const fixture = fixtureRows();
  let app: RunningServer | undefined;
  let dir: string;
  let drop: (() => Promise<void>) | undefined;
  after(async () => {
    await app?.close();
    await drop?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`starts on the database of ${recorded.commit.slice(0, 7)} with every record intact and every view equal`, async () => {
    dir = tempDir('upgrade');
    let url = pgliteUrl(dir);
    if (usingPostgres) {
      // A new database on the suite's server, made and dropped through a connection of its own.
      const admin = createDb(resolveTarget(process.env.DATABASE_URL, '.'));
      const created = await createPgDatabase(admin);
      url = created.url;
      drop = () => created.drop().finally(() => admin.destroy());
    }

    // The earlier version's database, at its own migration level.
    const restore = await runOps('restore', [path.join(FIXTURE, 'database.backup.gz')], { DATABASE_URL: url });
    expect(restore.code, restore.stderr).to.equal(0);
    const target = resolveTarget(url, '.');
    const before = createDb(target);
    try {
      expect(await appliedMigrations(before)).to.deep.equal(fixture.migrations);
    } finally {
      await closeDb(before, target);
    }

    // The current code starts on it, at the moment the views were read (what depends on the time,
    // such as pending invites, reads as it did then).
    const at = new Date(recorded.recordedAt);
    app = await startTestApp({ envOverrides: { DATABASE_URL: url }, clock: { now: () => new Date(at) } });
    expect(await appliedMigrations(app.deps.db)).to.deep.equal(migrationNames());

    // Every record of the earlier database is there with the values it had (a newer version may
    // add columns and rows; the catalog counter moves when the catalog grows).
    for (const [table, rows] of fixture.tables) {
      if (table === 'catalog_counter') continue;
      const { rows: now } = (await app.deps.db.raw(`SELECT row_to_json(t)::text AS j FROM "${table}" t`)) as {
        rows: Array<{ j: string }>;
      };
      const key = (r: Record<string, unknown>) => String(r.id ?? r.key ?? r.family_id);
      const current = new Map(now.map(({ j }) => JSON.parse(j) as Record<string, unknown>).map((r) => [key(r), r]));
      for (const row of rows) {
        const found = current.get(key(row));
        expect(found, `${table} ${key(row)}`).to.not.equal(undefined);
        for (const [column, value] of Object.entries(row))
          expect(
            same(value, found![column]),
            `${table} ${key(row)} ${column}: ${JSON.stringify(value)} → ${JSON.stringify(found![column])}`,
          ).to.equal(true);
      }
    }

    // Every view reads as it did.
    const token = await login(app.url, recorded.email, recorded.password);
    const paths = Object.keys(recorded.views);
    expect(paths.length).to.be.at.least(20);
    const views = await readViews(app.url, token, paths);
    for (const p of paths) {
      const diff = differences(recorded.views[p], views[p], p, { catalog: CATALOG_VIEW.test(p) });
      expect(diff, p).to.deep.equal([]);
    }
  });
});
