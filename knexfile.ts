// Configuration for the knex CLI (`npm run knex -- migrate:latest`, which runs the knex CLI under
// tsx with this file), using the
// same environment variables as the server: DATABASE_URL, DATA_DIR.
import { loadConfig } from './server/config.js';
import { resolveTarget } from './server/db/knex.js';
import { migrationConfig } from './server/db/migrate.js';
import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import ClientPgLite from 'knex-pglite';

const config = loadConfig();
const target = resolveTarget(config.DATABASE_URL, config.DATA_DIR);

if (target.kind === 'pglite' && target.dataDir) fs.mkdirSync(target.dataDir, { recursive: true });

const parsers = { 20: (v: string) => v, 1700: (v: string) => v };

export default target.kind === 'postgres'
  ? { client: 'pg', connection: target.url, migrations: migrationConfig }
  : {
      client: ClientPgLite,
      dialect: 'postgres',
      connection: () => ({ pglite: new PGlite({ dataDir: target.dataDir, parsers }) }),
      migrations: migrationConfig,
    };
