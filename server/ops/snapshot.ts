// A whole-database snapshot in a format of our own, the same for PGlite and PostgreSQL (so a
// backup of one restores into the other). The file (gzip-compressed by the CLI) is lines of JSON:
//
//   {"format":"family-shopping-backup","version":1,"createdAt":…,"source":…,"migrations":[…]}
//   {"table":"<name>","rows":<n>}        then n lines, each one row as PostgreSQL's row_to_json
//   …                                     (tables in foreign-key order: parents first)
//   {"end":true,"tables":<count>}
//
// Rows travel as the database's own JSON text and come back through json_populate_recordset,
// so every value (microsecond timestamps, numerics, versions, ids) is reproduced exactly; no
// JavaScript type stands in between. A snapshot is read in one REPEATABLE READ READ ONLY
// transaction: every table as of one moment, while the service keeps writing (on PGlite, whose
// one connection the transaction holds, writes wait for the snapshot to end).
import fs from 'node:fs';
import type { Db, Trx } from '../db/knex.js';
import { MIGRATIONS_DIR, migrationConfig } from '../db/migrate.js';

export const BACKUP_FORMAT = 'family-shopping-backup';
export const BACKUP_VERSION = 1;

/** knex's own bookkeeping: the backup records the migration names instead. */
const SKIPPED_TABLES = new Set(['knex_migrations', 'knex_migrations_lock']);
/** Tables a first start fills (settings, global catalog and its names, the default family): a
 *  database with rows only there is still empty for a restore. */
const STARTUP_TABLES = new Set([
  'app_settings',
  'catalog_counter',
  'units_of_measure',
  'products',
  'product_names',
  'families',
  'family_counters',
]);

const PAGE = 2000;
const INSERT_BATCH = 500;

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: number;
  createdAt: string;
  source: 'pglite' | 'postgres';
  migrations: string[];
}

export class OpsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OpsError';
  }
}

type Q = Db | Trx;

/** This version's migrations, by name (as knex_migrations records them), in order. */
export function migrationNames(): string[] {
  return fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => migrationConfig.loadExtensions.some((ext) => f.endsWith(ext)))
    .sort();
}

/** Applies this version's migrations one by one until the database is at `level` (a prefix of
 *  migrationNames(); the caller checked). */
export async function migrateLatestUpTo(db: Db, level: string[]): Promise<void> {
  for (;;) {
    const applied = await appliedMigrations(db);
    if (applied.length >= level.length) return;
    const next = level[applied.length]!;
    await db.migrate.up({ ...migrationConfig, name: next });
  }
}

/** Names of the migrations applied to a database (none: no migrations table yet). */
export async function appliedMigrations(q: Db | Trx): Promise<string[]> {
  const exists = (await q.raw("SELECT to_regclass('knex_migrations')::text AS t")) as {
    rows: Array<{ t: string | null }>;
  };
  if (!exists.rows[0]?.t) return [];
  const applied = (await q.raw('SELECT name FROM knex_migrations ORDER BY id')) as { rows: Array<{ name: string }> };
  return applied.rows.map((r) => r.name);
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function rows<T>(q: Q, sql: string, bindings: readonly unknown[] = []): Promise<T[]> {
  const result = (await q.raw(sql, bindings as never)) as { rows: T[] };
  return result.rows;
}

/** Base tables of the current schema, parents before children (foreign keys). */
export async function tablesInOrder(q: Q): Promise<string[]> {
  const names = (
    await rows<{ name: string }>(
      q,
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    )
  )
    .map((r) => r.name)
    .filter((n) => !SKIPPED_TABLES.has(n));
  const edges = await rows<{ child: string; parent: string }>(
    q,
    `SELECT c.relname AS child, p.relname AS parent
       FROM pg_constraint k
       JOIN pg_class c ON c.oid = k.conrelid
       JOIN pg_class p ON p.oid = k.confrelid
      WHERE k.contype = 'f' AND c.relnamespace = current_schema()::regnamespace`,
  );
  const parents = new Map(names.map((n) => [n, new Set<string>()]));
  for (const e of edges) if (e.child !== e.parent && parents.has(e.parent)) parents.get(e.child)?.add(e.parent);
  const ordered: string[] = [];
  const done = new Set<string>();
  const visit = (n: string, path: Set<string>) => {
    if (done.has(n) || path.has(n)) return;
    path.add(n);
    for (const p of [...(parents.get(n) ?? [])].sort()) visit(p, path);
    path.delete(n);
    done.add(n);
    ordered.push(n);
  };
  for (const n of names) visit(n, new Set());
  return ordered;
}

async function primaryKey(q: Q, table: string): Promise<string[]> {
  const cols = await rows<{ name: string }>(
    q,
    `SELECT a.attname AS name
       FROM pg_index i
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE i.indrelid = ?::regclass AND i.indisprimary
      ORDER BY array_position(i.indkey, a.attnum)`,
    [ident(table)],
  );
  return cols.map((c) => c.name);
}

/** A table's stored columns (generated ones are made again from them), in table order. */
async function storedColumns(q: Q, table: string): Promise<string[]> {
  const cols = await rows<{ name: string }>(
    q,
    `SELECT column_name AS name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ? AND is_generated = 'NEVER'
      ORDER BY ordinal_position`,
    [table],
  );
  return cols.map((c) => c.name);
}

/** One table's rows, as row_to_json text, in primary-key order (pages of PAGE rows). */
async function* tableRows(trx: Trx, table: string): AsyncGenerator<string> {
  const pk = await primaryKey(trx, table);
  const columns = (await storedColumns(trx, table)).map(ident).join(', ');
  const from = `(SELECT ${columns} FROM ${ident(table)}) t`;
  if (pk.length !== 1) {
    const order = pk.length ? ` ORDER BY ${pk.map(ident).join(', ')}` : '';
    for (const r of await rows<{ j: string }>(trx, `SELECT row_to_json(t)::text AS j FROM ${from}${order}`)) yield r.j;
    return;
  }
  const key = ident(pk[0]!);
  let after: string | null = null;
  for (;;) {
    const page: Array<{ j: string; k: string }> = await rows<{ j: string; k: string }>(
      trx,
      `SELECT row_to_json(t)::text AS j, t.${key}::text AS k FROM ${from}
        ${after === null ? '' : `WHERE t.${key} > ?`} ORDER BY t.${key} LIMIT ${PAGE}`,
      after === null ? [] : [after],
    );
    for (const r of page) yield r.j;
    if (page.length < PAGE) return;
    after = page[page.length - 1]!.k;
  }
}

/**
 * Writes a snapshot of the whole database, line by line, to `write` (which may wait, e.g. for a
 * socket or a file to drain). Returns the row count of every table.
 */
export async function writeSnapshot(
  db: Db,
  source: BackupHeader['source'],
  write: (line: string) => Promise<void> | void,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  await db.transaction(async (trx) => {
    await trx.raw('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const header: BackupHeader = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      createdAt: new Date().toISOString(),
      source,
      migrations: await appliedMigrations(trx),
    };
    await write(JSON.stringify(header));
    const tables = await tablesInOrder(trx);
    for (const table of tables) {
      const [{ n }] = (await rows<{ n: string }>(trx, `SELECT count(*)::text AS n FROM ${ident(table)}`)) as [
        { n: string },
      ];
      const expected = Number(n);
      await write(JSON.stringify({ table, rows: expected }));
      let written = 0;
      for await (const line of tableRows(trx, table)) {
        await write(line);
        written++;
      }
      if (written !== expected) throw new OpsError(`table ${table} changed during the snapshot`);
      counts[table] = written;
    }
    await write(JSON.stringify({ end: true, tables: tables.length }));
  });
  return counts;
}

/** Reads a snapshot's lines back: the header, then each table with its rows, then the end. */
class SnapshotReader {
  private readonly it: AsyncIterator<string>;
  constructor(lines: AsyncIterable<string>) {
    this.it = lines[Symbol.asyncIterator]();
  }
  async next(what: string): Promise<string> {
    for (;;) {
      const r = await this.it.next();
      if (r.done) throw new OpsError(`The backup file ends early (expected ${what}): it is incomplete or damaged.`);
      if (r.value.trim() !== '') return r.value;
    }
  }
  async json(what: string): Promise<Record<string, unknown>> {
    const line = await this.next(what);
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // reported below
    }
    throw new OpsError(`The backup file is damaged (expected ${what}).`);
  }
}

async function readHeader(reader: SnapshotReader): Promise<BackupHeader> {
  const h = await reader.json('the header');
  if (h.format !== BACKUP_FORMAT) throw new OpsError('This file is not a Family Shopping backup.');
  if (h.version !== BACKUP_VERSION)
    throw new OpsError(`This backup has format version ${String(h.version)}; this version reads ${BACKUP_VERSION}.`);
  if (!Array.isArray(h.migrations) || !h.migrations.every((m) => typeof m === 'string'))
    throw new OpsError('The backup file is damaged (its migration list).');
  return h as unknown as BackupHeader;
}

/** What makes a database not empty for a restore: users, or rows beyond what a first start makes. */
export async function nonEmptyTables(q: Q): Promise<string[]> {
  const full: string[] = [];
  for (const table of await tablesInOrder(q)) {
    if (STARTUP_TABLES.has(table)) continue;
    const [r] = await rows<{ any: boolean }>(q, `SELECT EXISTS (SELECT 1 FROM ${ident(table)}) AS any`);
    if (r?.any) full.push(table);
  }
  return full;
}

/**
 * Loads a snapshot into an empty database: migrates it to the backup's migration level first
 * (a backup of an older version restores at its own level; the next start migrates the rest),
 * then, in one transaction, empties what a first start filled and inserts every row exactly
 * (the triggers that refuse unversioned writes are off for that transaction only), and sets
 * every sequence after its table's rows.
 */
export async function restoreSnapshot(db: Db, lines: AsyncIterable<string>): Promise<Record<string, number>> {
  const reader = new SnapshotReader(lines);
  const header = await readHeader(reader);
  const known = migrationNames();
  const wanted = header.migrations;
  const unknown = wanted.filter((m) => !known.includes(m));
  if (unknown.length)
    throw new OpsError(
      `The backup was made by a newer version (migration ${unknown[0]} is unknown here): restore it with that version or later.`,
    );
  if (wanted.some((m, i) => known[i] !== m)) throw new OpsError('The backup’s migrations do not match this version’s.');

  const applied = await appliedMigrations(db);
  if (applied.length > 0) {
    const full = await nonEmptyTables(db);
    if (full.length)
      throw new OpsError(
        `The database is not empty (rows in ${full.join(', ')}). Restore only into an empty database: ` +
          'a new DATA_DIR, or a new PostgreSQL database (DATABASE_URL).',
      );
  }
  if (applied.length > wanted.length || applied.some((m, i) => wanted[i] !== m))
    throw new OpsError(
      `The database is already migrated past the backup (to ${applied[applied.length - 1]}, the backup is at ${
        wanted[wanted.length - 1] ?? 'no migration'
      }). Restore into a database that no version has started on yet: a new DATA_DIR or a new PostgreSQL database.`,
    );
  await migrateLatestUpTo(db, wanted);

  const counts: Record<string, number> = {};
  await db.transaction(async (trx) => {
    const tables = await tablesInOrder(trx);
    const triggered = (
      await rows<{ name: string }>(
        trx,
        `SELECT DISTINCT c.relname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
          WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace`,
      )
    )
      .map((r) => r.name)
      .filter((n) => tables.includes(n));
    for (const t of triggered) await trx.raw(`ALTER TABLE ${ident(t)} DISABLE TRIGGER USER`);
    if (tables.length) await trx.raw(`TRUNCATE ${tables.map(ident).join(', ')}`);

    const seen = new Set<string>();
    for (;;) {
      const section = await reader.json('a table or the end');
      if (section.end === true) {
        if (section.tables !== seen.size) throw new OpsError('The backup file is damaged (its table count).');
        break;
      }
      const table = section.table;
      const n = section.rows;
      if (typeof table !== 'string' || typeof n !== 'number' || !Number.isInteger(n) || n < 0)
        throw new OpsError('The backup file is damaged (a table heading).');
      if (!tables.includes(table)) throw new OpsError(`The backup has a table this database lacks: ${table}.`);
      if (seen.has(table)) throw new OpsError(`The backup file is damaged (table ${table} twice).`);
      seen.add(table);
      const columns = (await storedColumns(trx, table)).map(ident).join(', ');
      const insert =
        `INSERT INTO ${ident(table)} (${columns}) OVERRIDING SYSTEM VALUE ` +
        `SELECT ${columns} FROM json_populate_recordset(NULL::${ident(table)}, ?::json)`;
      let batch: string[] = [];
      const flush = async () => {
        if (!batch.length) return;
        await trx.raw(insert, [`[${batch.join(',')}]`]);
        batch = [];
      };
      for (let i = 0; i < n; i++) {
        batch.push(await reader.next(`row ${i + 1} of ${table}`));
        if (batch.length >= INSERT_BATCH) await flush();
      }
      await flush();
      counts[table] = n;
    }
    const missing = tables.filter((t) => !seen.has(t));
    if (missing.length) throw new OpsError(`The backup lacks tables of this database: ${missing.join(', ')}.`);

    // Sequences (serial columns) continue after the restored rows.
    const serials = await rows<{ table: string; column: string }>(
      trx,
      `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
        WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%'`,
    );
    for (const s of serials.filter((x) => tables.includes(x.table))) {
      await trx.raw(
        `SELECT setval(pg_get_serial_sequence(?, ?), coalesce(max(${ident(s.column)}), 0) + 1, false) FROM ${ident(s.table)}`,
        [ident(s.table), s.column],
      );
    }
    for (const t of triggered) await trx.raw(`ALTER TABLE ${ident(t)} ENABLE TRIGGER USER`);
  });
  return counts;
}
