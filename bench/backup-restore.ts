// Backup and restore times of a database with 10,000 list items (docs/operations.md). On the
// embedded database by default, on PostgreSQL with DATABASE_URL (restored into a new database
// on the same server). Runs the real commands (`npm run backup`, `npm run restore`) as processes;
// the times include their start (about 2 s of tsx on a small machine).
//
//   npx tsx --conditions=@family-shopping/source bench/backup-restore.ts [ITEMS]
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../server/server.js';
import { createDb, resolveTarget } from '../server/db/knex.js';
import { createFamilyRow } from '../server/family/create.js';
import { familyWrite } from '../server/db/family-write.js';
import { newId } from '../server/db/ids.js';
import { writeSnapshot } from '../server/ops/snapshot.js';

const ITEMS = Number(process.argv[2] ?? 10_000);
const pg = !!process.env.DATABASE_URL && /^postgres/.test(process.env.DATABASE_URL);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-bench-backup-'));
/** A new database on the server of DATABASE_URL, and how to drop it. */
async function pgDatabase(prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = createDb(resolveTarget(process.env.DATABASE_URL, '.'));
  const name = `${prefix}_${crypto.randomBytes(4).toString('hex')}`;
  await admin.raw(`CREATE DATABASE ${name}`);
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      await admin.raw(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.destroy();
    },
  };
}
const source = pg ? await pgDatabase('fs_bench_source') : undefined;
const sourceUrl = source?.url ?? `pglite://${path.join(work, 'source')}`;
const app = await startServer({ env: { ...process.env, DATABASE_URL: sourceUrl, PORT: '0', LOG_LEVEL: 'silent' } });

const family = await createFamilyRow(app.deps.db, { name: `Bench ${crypto.randomBytes(3).toString('hex')}` });
const listId = newId();
await familyWrite(app.deps, family.id, (w) => w.insert('shopping_lists', { id: listId, name: 'Big list' }));
for (let done = 0; done < ITEMS; done += 1000) {
  const n = Math.min(1000, ITEMS - done);
  await familyWrite(app.deps, family.id, (w) =>
    w.insertMany(
      'shopping_list_items',
      Array.from({ length: n }, (_, i) => ({
        id: newId(),
        list_id: listId,
        name: `Item ${done + i}`,
        quantity: String((i % 7) + 1),
        quantity_note: i % 3 ? null : 'a note',
      })),
    ),
  );
}

/** Runs a command as its own process (the service in this process answers its control socket). */
const run = (script: string, args: string[], url: string) =>
  new Promise<number>((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@family-shopping/source', script, ...args],
      {
        env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    child.on('exit', (code) =>
      code === 0
        ? resolve(Number(process.hrtime.bigint() - started) / 1e9)
        : reject(new Error(`${script}: exit ${code}`)),
    );
  });
// The snapshot alone, in this process (on PGlite: how long writes wait for it).
const snapStarted = process.hrtime.bigint();
let bytes = 0;
await writeSnapshot(app.deps.db, pg ? 'postgres' : 'pglite', (line) => void (bytes += line.length + 1));
const snapshot = Number(process.hrtime.bigint() - snapStarted) / 1e9;
const noop = await run('server/ops/admin-cli.ts', ['help'], sourceUrl);

const file = path.join(work, 'bench.backup.gz');
const backup = await run('server/ops/backup-cli.ts', [file], sourceUrl);
const target = pg ? await pgDatabase('fs_bench_target') : undefined;
const targetUrl = target?.url ?? `pglite://${path.join(work, 'target')}`;
const restore = await run('server/ops/restore-cli.ts', [file], targetUrl);
await app.close();
await target?.drop();
await source?.drop();
const size = fs.statSync(file).size;
fs.rmSync(work, { recursive: true, force: true });
console.log(
  JSON.stringify({
    backend: pg ? 'postgres' : 'pglite',
    items: ITEMS,
    backupSeconds: +backup.toFixed(2),
    restoreSeconds: +restore.toFixed(2),
    snapshotSeconds: +snapshot.toFixed(2),
    snapshotMiB: +(bytes / 2 ** 20).toFixed(1),
    commandStartSeconds: +noop.toFixed(2),
    fileKiB: Math.round(size / 1024),
  }),
);
