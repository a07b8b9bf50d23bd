// Configuration for the knex CLI (`npm run knex -- migrate:latest`, which runs the knex CLI under
// tsx with this file), using the same environment variables and database setup as the server:
// DATABASE_URL, DATA_DIR.
import type { Knex } from 'knex';
import { loadConfig } from './server/config.js';
import { knexConfig, resolveTarget } from './server/db/knex.js';
import { migrationConfig } from './server/db/migrate.js';

const config = loadConfig();

const knexfile: Knex.Config = {
  ...knexConfig(resolveTarget(config.DATABASE_URL, config.DATA_DIR)),
  migrations: migrationConfig,
};

export default knexfile;
