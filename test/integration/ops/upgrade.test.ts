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
import { DEFAULT_SECTIONS, DEFAULT_SECTION_CATEGORIES, SCHEMA_VERSION } from '@family-shopping/client/protocol';

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
const later = (a: unknown, b: unknown) =>
  typeof a === 'string' && typeof b === 'string' && new Date(b).getTime() >= new Date(a).getTime();

/** Columns a migration's versioned write moves forward (a backfill devices must pull, e.g.
 *  20261127000001_shop_categories): the row's version and time, and its family's counter. */
const MOVES_FORWARD = new Set(['version', 'catalog_version', 'updated_at']);
const unchanged = (column: string, a: unknown, b: unknown) =>
  same(a, b) || (MOVES_FORWARD.has(column) && (column === 'updated_at' ? later(a, b) : Number(b) > Number(a)));

const PULL_VIEW = /^\/api\/sync\/\w+\/pull\?/;
/** A pull view as read now: the current schema; its documents by id (a write moves a doc to a
 *  later page position) and its checkpoint checked apart. */
const currentPath = (p: string) => p.replace(/([?&]schema=)\d+/, `$1${SCHEMA_VERSION}`);
type PullView = { documents: Array<{ id: string }>; checkpoint: { version: number } | null };
const byId = (v: PullView) => Object.fromEntries(v.documents.map((d) => [d.id, d]));

/** `now` with every `updatedAt` that moved forward from `then`'s set back to it (a migration's
 *  versioned write; every other value must stay). */
function allowLaterUpdates(then: unknown, now: unknown): unknown {
  if (Array.isArray(then) && Array.isArray(now)) return now.map((v, i) => allowLaterUpdates(then[i], v));
  if (then && now && typeof then === 'object' && typeof now === 'object') {
    const t = then as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(now).map(([k, v]) => [k, k === 'updatedAt' && later(t[k], v) ? t[k] : allowLaterUpdates(t[k], v)]),
    );
  }
  return now;
}

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
            unchanged(column, value, found![column]),
            `${table} ${key(row)} ${column}: ${JSON.stringify(value)} → ${JSON.stringify(found![column])}`,
          ).to.equal(true);
      }
    }

    // Every view reads as it did (a pull at the current schema; docs may gain fields).
    const token = await login(app.url, recorded.email, recorded.password);
    const paths = Object.keys(recorded.views);
    expect(paths.length).to.be.at.least(20);
    const views = await readViews(app.url, token, paths.map(currentPath));
    for (const p of paths) {
      let then = recorded.views[p];
      let now = views[currentPath(p)];
      if (PULL_VIEW.test(p)) {
        const [a, b] = [then as PullView, now as PullView];
        expect(b.checkpoint?.version ?? 0, p).to.be.at.least(a.checkpoint?.version ?? 0);
        // The backfilled sections carry a new version: a device that pulled them then pulls them again.
        if (p.startsWith('/api/sync/sections/'))
          expect(b.checkpoint!.version, p).to.be.greaterThan(a.checkpoint!.version);
        [then, now] = [byId(a), byId(b)];
      }
      const diff = differences(then, allowLaterUpdates(then, now), p, { catalog: CATALOG_VIEW.test(p) });
      expect(diff, p).to.deep.equal([]);
    }

    // The migration to categories (api-contract §10): a section named as a default section has
    // that section's category; other sections have none.
    const sectionsPath = paths.find((p) => /^\/api\/stores\/[^/]+\/sections$/.test(p))!;
    const sections = views[sectionsPath] as Array<{ name: string; category: string | null }>;
    const expected = (name: string) => {
      const i = DEFAULT_SECTIONS.findIndex((d) => d.toLowerCase() === name.toLowerCase());
      return i < 0 ? null : DEFAULT_SECTION_CATEGORIES[i];
    };
    expect(sections.filter((s) => s.category != null).length).to.be.at.least(DEFAULT_SECTIONS.length);
    expect(sections.map((s) => [s.name, s.category])).to.deep.equal(sections.map((s) => [s.name, expected(s.name)]));
  });
});
