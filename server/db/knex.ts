// Knex factory: embedded PostgreSQL (PGlite) or a PostgreSQL server, behaving the same behind
// this module (int8 and numeric come back as strings, timestamps as Date, as `pg` does).
import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import ClientPgLite from 'knex-pglite';

export type Db = Knex;
export type Trx = Knex.Transaction;

const INT8 = 20;
const NUMERIC = 1700;

// pg already returns int8 and numeric as text; make that explicit so no later change flips it.
pg.types.setTypeParser(INT8, (v: string) => v);
pg.types.setTypeParser(NUMERIC, (v: string) => v);

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
export function knexConfig(target: DbTarget): Knex.Config {
  if (target.kind === 'postgres') {
    return {
      client: 'pg',
      connection: target.url,
      pool: { min: 0, max: 20 },
      acquireConnectionTimeout: 30_000,
    };
  }
  if (target.dataDir) fs.mkdirSync(target.dataDir, { recursive: true });
  const parsers = { [INT8]: (v: string) => v, [NUMERIC]: (v: string) => v };
  const pglite = new PGlite({ dataDir: target.dataDir, parsers });
  return {
    client: ClientPgLite as unknown as typeof Knex.Client,
    dialect: 'postgres',
    connection: () => ({ pglite }) as object,
    useNullAsDefault: true,
  } as Knex.Config;
}

export function createDb(target: DbTarget): Db {
  return knexFactory(knexConfig(target));
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
