// What the operator's commands (backup, restore, admin) share: the configuration, the database
// target, opening the database in this process, and ending with a message rather than a stack.
import fs from 'node:fs';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { closeDb, createDb, DataDirInUseError, resolveTarget, type Db, type DbTarget } from '../db/knex.js';
import { OpsError } from './snapshot.js';

export interface CliSetup {
  config: Config;
  target: DbTarget;
}

/** Ends the process with a message (exit code 1 unless given). */
export function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

export function cliSetup(): CliSetup {
  try {
    const config = loadConfig();
    return { config, target: resolveTarget(config.DATABASE_URL, config.DATA_DIR) };
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

/** A description of the target for messages, never with a password. */
export function describeTarget(target: DbTarget): string {
  if (target.kind === 'pglite')
    return target.dataDir ? `the embedded database in ${target.dataDir}` : 'pglite://memory';
  const u = new URL(target.url!); // the configuration took only a URL
  return `PostgreSQL database ${u.pathname.slice(1)} on ${u.hostname}${u.port ? `:${u.port}` : ''}`;
}

/**
 * Opens the database in this process, runs `fn` and closes it. On PGlite the data directory's
 * lock makes a second process (a service that started meanwhile) wait its turn or fail clearly.
 */
export async function withDb<T>(target: DbTarget, fn: (db: Db) => Promise<T>, options: { create?: boolean } = {}) {
  if (target.kind === 'pglite' && !target.dataDir) fail('DATABASE_URL=pglite://memory keeps nothing to work on.');
  if (target.kind === 'pglite' && !options.create && !fs.existsSync(target.dataDir!))
    fail(`There is no database in ${target.dataDir} (check DATA_DIR).`);
  let db: Db;
  try {
    db = createDb(target);
  } catch (err) {
    if (err instanceof DataDirInUseError) fail(err.message);
    throw err;
  }
  try {
    return await fn(db);
  } finally {
    await closeDb(db, target);
  }
}

/**
 * Ends the process with `code` once what it wrote to stdout and stderr has gone out: a pipe takes
 * a long listing (`admin users` of thousands) in pieces, and an immediate exit cut it short.
 */
function exitWhenWritten(code: number): void {
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

/** Runs a command's main function (which may set `process.exitCode`): known failures print their
 *  message, others one line. */
export function runCli(what: string, main: () => Promise<void>): void {
  main().then(
    () => exitWhenWritten(Number(process.exitCode ?? 0)),
    (err: unknown) => {
      if (err instanceof OpsError) fail(err.message);
      const e = err as NodeJS.ErrnoException;
      if (e?.code === 'ECONNREFUSED' || e?.code === 'ENOTFOUND' || e?.code === '28P01' || e?.code === '3D000')
        fail(`${what} failed: cannot use the database (${e.message}).`);
      fail(`${what} failed: ${e instanceof Error ? e.message : String(err)}`);
    },
  );
}
