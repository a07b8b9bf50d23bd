import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './knex.js';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

export const migrationConfig = {
  directory: MIGRATIONS_DIR,
  loadExtensions: ['.ts'],
  tableName: 'knex_migrations',
};

/** Applies pending migrations; returns the names applied. */
export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest(migrationConfig)) as [number, string[]];
  return applied;
}
