// `npm run backup` while the service serves writes, `npm run restore` into an empty database,
// and the restored database compared row for row with the source as of the snapshot (contract
// §11 "Backup and restore"). On the suite's backend: the embedded database in a DATA_DIR (the
// running service takes the snapshot through its control socket), or PostgreSQL when
// DATABASE_URL is set (restored into a new database on the same server).
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { startTestApp } from '../../helpers/app.js';
import { usingPostgres } from '../../helpers/env.js';
import { closeDb, createDb, resolveTarget, type Db } from '../../../server/db/knex.js';
import { tablesInOrder } from '../../../server/ops/snapshot.js';
import type { RunningServer } from '../../../server/server.js';
import { createPgDatabase, expectNoStack, pgliteUrl, runOps, tempDir } from './cli.js';
import { seedFamily } from './family-data.js';

type Row = Record<string, unknown> & { __text: string };

/** Every row of a table as the database's own JSON text (exact values), keyed by primary key. */
async function tableRows(db: Db, table: string): Promise<Map<string, Row>> {
  const pk = (
    (await db.raw(
      `SELECT a.attname AS name FROM pg_index i
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
        WHERE i.indrelid = ?::regclass AND i.indisprimary`,
      [`"${table}"`],
    )) as { rows: Array<{ name: string }> }
  ).rows.map((r) => r.name);
  const { rows } = (await db.raw(`SELECT row_to_json(t)::text AS j FROM "${table}" t`)) as {
    rows: Array<{ j: string }>;
  };
  const out = new Map<string, Row>();
  for (const { j } of rows) {
    const row = JSON.parse(j) as Row;
    row.__text = j;
    out.set(pk.map((c) => String(row[c])).join('|'), row);
  }
  return out;
}

/**
 * The restored database equals the source as of one moment: rows of a family's replicated tables
 * with a version up to that family's restored counter are equal; a restored row the source has
 * changed since carries a version not above that counter (its later write came after the
 * snapshot); every other table is equal as a whole; each family's counter is the highest version
 * of its restored rows or above, never above the source's.
 */
async function expectSnapshotOf(source: Db, restored: Db): Promise<Record<string, number>> {
  const tables = await tablesInOrder(restored);
  expect(tables).to.deep.equal(await tablesInOrder(source));
  const counters = await tableRows(restored, 'family_counters');
  const sourceCounters = await tableRows(source, 'family_counters');
  const at = (familyId: unknown) => Number(counters.get(String(familyId))?.version);
  const maxVersion = new Map<string, number>();
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const [src, dst] = [await tableRows(source, table), await tableRows(restored, table)];
    counts[table] = dst.size;
    const versioned = [...src.values(), ...dst.values()].some((r) => 'family_id' in r && 'version' in r);
    if (table === 'family_counters') {
      for (const [id, row] of dst) {
        const s = src.get(id);
        expect(s, `counter of family ${id}`).to.not.equal(undefined);
        expect(Number(row.version)).to.be.at.most(Number(s!.version));
        expect(row.tombstone_horizon).to.equal(s!.tombstone_horizon);
      }
      expect(dst.size).to.equal(src.size);
    } else if (versioned) {
      for (const [id, s] of src) {
        if (Number(s.version) <= at(s.family_id))
          expect(dst.get(id)?.__text, `${table} ${id} (in the snapshot)`).to.equal(s.__text);
        else if (dst.has(id)) expect(Number(dst.get(id)!.version)).to.be.at.most(at(s.family_id));
      }
      for (const [id, d] of dst) {
        expect(src.has(id), `${table} ${id} exists in the source`).to.equal(true);
        const f = String(d.family_id);
        maxVersion.set(f, Math.max(maxVersion.get(f) ?? 0, Number(d.version)));
      }
    } else {
      expect([...dst.values()].map((r) => r.__text).sort(), table).to.deep.equal(
        [...src.values()].map((r) => r.__text).sort(),
      );
    }
  }
  for (const [familyId, max] of maxVersion) expect(at(familyId), `counter of ${familyId}`).to.be.at.least(max);
  expect(sourceCounters.size).to.equal(counters.size);
  // Every item's list, every section's store is there (the foreign keys held on the way in).
  const orphans = (await restored.raw(
    `SELECT count(*)::int AS n FROM shopping_list_items i LEFT JOIN shopping_lists l ON l.id = i.list_id WHERE l.id IS NULL`,
  )) as { rows: Array<{ n: number }> };
  expect(orphans.rows[0]!.n).to.equal(0);
  return counts;
}

describe('ops: npm run backup / npm run restore', function () {
  this.timeout(900_000);
  const dirs: string[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('takes a consistent snapshot while REST writes go on and restores it row for row into an empty database', async () => {
    const dir = tempDir('backup');
    dirs.push(dir);
    const sourceUrl = usingPostgres ? process.env.DATABASE_URL! : pgliteUrl(dir);
    const app: RunningServer = await startTestApp({ envOverrides: { DATABASE_URL: sourceUrl } });
    cleanups.push(() => app.close());
    const seeded = await seedFamily(app.url, 'Backup');

    // Writes keep coming, one after the other, from before the backup starts until after it ends.
    const listId = seeded.listIds[1]!;
    let stop = false;
    let written = 0;
    const writer = (async () => {
      while (!stop) {
        const res = await fetch(`${app.url}/api/lists/${listId}/items`, {
          method: 'POST',
          headers: { authorization: `Bearer ${seeded.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Write ${written}` }),
        });
        expect(res.status).to.equal(201);
        written++;
      }
    })();
    while (written < 3) await new Promise((r) => setTimeout(r, 20));

    const file = path.join(dir, 'nightly.backup.gz');
    const backup = await runOps('backup', [file], { DATABASE_URL: sourceUrl });
    const afterBackup = written;
    while (written < afterBackup + 3) await new Promise((r) => setTimeout(r, 20));
    stop = true;
    await writer;
    expect(backup.code, backup.stderr).to.equal(0);
    expect(backup.stdout).to.include(`written to ${file}`);
    expect(fs.statSync(file).mode & 0o077, 'owner-only file').to.equal(0);
    const header = JSON.parse(zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n')[0]!);
    expect(header).to.include({ format: 'family-shopping-backup', version: 1 });
    expect(header.migrations).to.be.an('array').that.is.not.empty;

    // Restore into an empty database.
    let targetUrl: string;
    if (usingPostgres) {
      const created = await createPgDatabase(app.deps.db);
      targetUrl = created.url;
      cleanups.push(created.drop);
    } else {
      targetUrl = pgliteUrl(tempDir('restore'));
      dirs.push(path.dirname(resolveTarget(targetUrl, '.').dataDir!));
    }
    const restore = await runOps('restore', [file], { DATABASE_URL: targetUrl });
    expect(restore.code, restore.stderr).to.equal(0);
    expect(restore.stdout).to.match(/^Restored \d+ rows in \d+ tables/);

    const target = resolveTarget(targetUrl, '.');
    const restored = createDb(target);
    try {
      const counts = await expectSnapshotOf(app.deps.db, restored);
      expect(counts.shopping_list_items).to.be.at.least(7); // the seeded items and the first writes
      // The restored database is the source's at one moment of the writes: the counter of the
      // family being written to is within the versions the writes took.
      const { rows } = (await restored.raw(
        `SELECT count(*)::int AS n FROM shopping_list_items WHERE list_id = ? AND name LIKE 'Write %'`,
        [listId],
      )) as { rows: Array<{ n: number }> };
      expect(rows[0]!.n).to.be.at.least(3).and.at.most(written);

      // A second restore into the same (now not empty) database is refused and changes nothing.
      await closeDb(restored, target);
      const again = await runOps('restore', [file], { DATABASE_URL: targetUrl });
      expect(again.code).to.equal(1);
      expect(again.stderr).to.match(/^The database is not empty/);
      expectNoStack(again);
    } finally {
      await closeDb(restored, target).catch(() => {});
    }
  });

  it('refuses a file that is not a backup, and a backup without FILE', async () => {
    const dir = tempDir('bad-backup');
    dirs.push(dir);
    const bogus = path.join(dir, 'bogus.gz');
    fs.writeFileSync(bogus, zlib.gzipSync('{"hello":"world"}\n'));
    const url = pgliteUrl(dir);
    const r = await runOps('restore', [bogus], { DATABASE_URL: url });
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/^This file is not a Family Shopping backup/);
    expectNoStack(r);

    const usage = await runOps('backup', [], { DATABASE_URL: url });
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.match(/^Usage: npm run backup -- FILE/);
  });
});
