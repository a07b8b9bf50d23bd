// `npm run migrate`: apply pending migrations and exit.
import { loadConfig, ConfigError } from '../config.js';
import { createDb, resolveTarget } from './knex.js';
import { migrateLatest } from './migrate.js';

try {
  const config = loadConfig();
  const db = createDb(resolveTarget(config.DATABASE_URL, config.DATA_DIR));
  const applied = await migrateLatest(db);
  console.log(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : 'Already up to date');
  await db.destroy();
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : `Migration failed: ${(err as Error).message}`);
  process.exit(1);
}
