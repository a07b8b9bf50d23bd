// An app on an empty database of its own (the seeders write the global catalog every family of a
// database shares, and the test app skips them), optionally with the staple products and their
// names in every language seeded, as a production start seeds them.
import fs from 'node:fs';
import { startTestApp } from './app.js';
import { usingPostgres } from './env.js';
import { createDb, resolveTarget } from '../../server/db/knex.js';
import type { RunningServer } from '../../server/server.js';
import { seedProductNames, seedStapleProducts } from '../../server/startup/jobs.js';
import { createPgDatabase, pgliteUrl, tempDir } from '../integration/ops/cli.js';

export interface OwnApp {
  app: RunningServer;
  /** Closes the app and removes its database. */
  close: () => Promise<void>;
}

/** An app on a new, empty database: an embedded one in a temporary folder, or a new database on
 *  the PostgreSQL server of DATABASE_URL. */
export async function appOnOwnDatabase(envOverrides: Record<string, string> = {}): Promise<OwnApp> {
  const dir = tempDir('own-db');
  let url = pgliteUrl(dir);
  let drop: (() => Promise<void>) | undefined;
  if (usingPostgres) {
    const admin = createDb(resolveTarget(process.env.DATABASE_URL, '.'));
    const created = await createPgDatabase(admin);
    url = created.url;
    drop = () => created.drop().finally(() => admin.destroy());
  }
  const app = await startTestApp({ envOverrides: { ...envOverrides, DATABASE_URL: url, NODE_ENV: 'test' } });
  return {
    app,
    close: async () => {
      await app.close();
      await drop?.();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `appOnOwnDatabase` with the staples and their names seeded. */
export async function appWithStaples(envOverrides: Record<string, string> = {}): Promise<OwnApp> {
  const own = await appOnOwnDatabase(envOverrides);
  await seedStapleProducts(own.app.deps.db);
  await seedProductNames(own.app.deps.db);
  return own;
}
