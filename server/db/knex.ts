// Knex factory: embedded PostgreSQL (PGlite) or a PostgreSQL server, behaving the same behind
// this module (int8 and numeric come back as strings, timestamps as Date, as `pg` does).
import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import ClientPgLite from 'knex-pglite';
import type { Logger } from '../log.js';

export type Db = Knex;
export type Trx = Knex.Transaction;

const INT8 = 20;
const NUMERIC = 1700;
const TIMESTAMPTZ = 1184;

// pg already returns int8 and numeric as text; make that explicit so no later change flips it.
pg.types.setTypeParser(INT8, (v: string) => v);
pg.types.setTypeParser(NUMERIC, (v: string) => v);

/** How long opening a connection to PostgreSQL may take. */
export const PG_CONNECT_TIMEOUT_MS = 3_000;
/** How long a query may wait for a connection of the pool (opening one included). */
export const PG_ACQUIRE_TIMEOUT_MS = 4_500;

export interface DbTarget {
  kind: 'pglite' | 'postgres';
  /** Directory for PGlite on disk; undefined for in-memory. */
  dataDir?: string;
  url?: string;
}

export function resolveTarget(databaseUrl: string | undefined, dataDir: string): DbTarget {
  if (!databaseUrl) return { kind: 'pglite', dataDir: path.resolve(dataDir, 'pglite') };
  if (databaseUrl.startsWith('pglite:')) {
    const rest = databaseUrl.slice('pglite:'.length).replace(/^\/\//, '');
    if (rest === 'memory' || rest === '') return { kind: 'pglite' };
    return { kind: 'pglite', dataDir: path.resolve(rest) };
  }
  return { kind: 'postgres', url: databaseUrl };
}

/**
 * The knex configuration for a target; the server and the knex CLI (knexfile.ts) share it. On
 * PGlite the one database instance is made here and handed out on every connection request:
 * knex asks a connection function again when it acquires the connection, and a second PGlite
 * opening the same directory corrupts it.
 */
export function knexConfig(target: DbTarget, log?: Logger): Knex.Config {
  if (target.kind === 'postgres') {
    return {
      client: 'pg',
      log: knexLog(log),
      // A server that cannot be reached must cost a request seconds, not minutes: a refused
      // connection fails at once (the pool passes the error on, propagateCreateError), one that
      // hangs gives up after PG_CONNECT_TIMEOUT_MS, and keep-alive notices a peer that vanished.
      // The request then answers 503 service_unavailable (server/db/errors.ts).
      connection: { connectionString: target.url, connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS, keepAlive: true },
      pool: { min: 0, max: 20, propagateCreateError: true },
      // Waiting for a free connection of the pool (all 20 busy) is bounded the same way.
      acquireConnectionTimeout: PG_ACQUIRE_TIMEOUT_MS,
      // Never inline the bindings (user data, hashes) into an error message; see createDb.
      compileSqlOnError: false,
    };
  }
  if (target.dataDir) {
    fs.mkdirSync(target.dataDir, { recursive: true });
    lockDataDir(target.dataDir);
  }
  // timestamptz through pg's own parser: PGlite's `new Date(text)` reads years 0-99 as 1900s/2000s.
  const parsers = {
    [INT8]: (v: string) => v,
    [NUMERIC]: (v: string) => v,
    [TIMESTAMPTZ]: pg.types.getTypeParser(TIMESTAMPTZ),
  };
  const pglite = new PGlite({ dataDir: target.dataDir, parsers });
  return {
    client: ClientPgLite as unknown as typeof Knex.Client,
    dialect: 'postgres',
    connection: () => ({ pglite }) as object,
    log: knexLog(log),
    useNullAsDefault: true,
    compileSqlOnError: false,
  } as Knex.Config;
}

/**
 * knex's own warnings, which it prints with console.log (a lost connection's with its stack, once
 * per failed request). Those about lost or refused connections are dropped: the outage is
 * logged once by DbAvailability. Others keep their first line only (never a stack) and go to
 * the service's log, or stderr without one (the knex CLI).
 */
const CONNECTION_NOISE = /^(Acquire connection error|Connection Error)/;

function knexLog(log: Logger | undefined): Knex.Config['log'] {
  const emit = (level: 'warn' | 'error') => (message: unknown) => {
    const text = (
      typeof message === 'string' ? message : message instanceof Error ? message.message : String(message)
    ).split('\n')[0]!;
    if (CONNECTION_NOISE.test(text)) return;
    if (log) log[level]({ source: 'knex' }, text);
    else console.error(text);
  };
  return { warn: emit('warn'), error: emit('error'), deprecate: emit('warn'), debug: () => {} };
}

/**
 * Query options (`.options(prepared('name'))`) for a hot statement of fixed text: on PostgreSQL
 * it becomes a named prepared statement of each pooled connection, parsed and planned once
 * there rather than on every request (its text must never change under that name). PGlite has
 * no named statements and ignores it.
 */
export const prepared = (name: string): { name: string } => ({ name });

export function createDb(target: DbTarget, log?: Logger): Db {
  const db = knexFactory(knexConfig(target, log));
  db.on('query-error', stripSqlFromError);
  return db;
}

/**
 * knex puts the statement in front of a failed query's message (`<sql> - <database message>`).
 * SQL text must not reach a log line, so the message goes back to the database's own words
 * (e.g. `relation "x" does not exist`); the code, constraint and table stay on the error.
 */
export function stripSqlFromError(err: unknown, query: { sql?: unknown }): void {
  if (!(err instanceof Error) || typeof query?.sql !== 'string') return;
  const prefix = `${query.sql} - `;
  if (err.message.startsWith(prefix)) err.message = err.message.slice(prefix.length);
}

/** Whether the handle is the embedded database (PGlite), whose one client is this process. */
export function isEmbedded(db: Db): boolean {
  return db.client instanceof (ClientPgLite as unknown as new (...args: never[]) => object);
}

/** Destroys a database made by createDb and releases its data directory's lock. */
export async function closeDb(db: Db, target: DbTarget): Promise<void> {
  try {
    await db.destroy();
  } finally {
    if (target.kind === 'pglite' && target.dataDir) unlockDataDir(target.dataDir);
  }
}

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid}. One process at a time may ` +
        'open it: stop that one, or use another DATA_DIR, or PostgreSQL (DATABASE_URL) for several instances. ' +
        `(If no such process uses it, delete ${lockFile(dataDir)}.)`,
    );
    this.name = 'DataDirInUseError';
  }
}

const lockFile = (dataDir: string) => `${dataDir}.lock`;
const held = new Set<string>();
let exitHook = false;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite has no locking of its own: a second process opening the same directory corrupts it. A
 * lock file beside the directory names the process that holds it; a lock whose process is gone
 * (a crash, kill -9) is taken over. It is released when the database is destroyed or the
 * process exits.
 */
export function lockDataDir(dataDir: string): void {
  if (held.has(dataDir)) return;
  const file = lockFile(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      held.add(dataDir);
      if (!exitHook) {
        exitHook = true;
        process.once('exit', releaseAll);
      }
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid))
        throw new DataDirInUseError(dataDir, pid);
      fs.rmSync(file, { force: true });
    }
  }
  throw new DataDirInUseError(dataDir, Number.NaN);
}

export function unlockDataDir(dataDir: string): void {
  if (!held.delete(dataDir)) return;
  fs.rmSync(lockFile(dataDir), { force: true });
}

function releaseAll(): void {
  for (const dataDir of [...held]) unlockDataDir(dataDir);
}

/** Rows affected by update()/del(): a number on pg, a result object on PGlite. */
export function affected(result: unknown): number {
  if (typeof result === 'number') return result;
  if (result && typeof result === 'object') {
    const r = result as { rowCount?: number; affectedRows?: number };
    return r.rowCount ?? r.affectedRows ?? 0;
  }
  return 0;
}

/** One round trip to the database (readiness probe). */
export async function ping(db: Db): Promise<void> {
  await db.raw('select 1');
}
