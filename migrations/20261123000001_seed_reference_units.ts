// The global unit catalog is reference data that always exists (spec 2, issue "foundation"): a
// database prepared with `npm run migrate` or the knex CLI alone already holds it, before any
// server starts. The same insert-or-ignore as the startup job (seeds/units.json, keyed by code,
// stamped with the next catalog version so replicas pull the units like any catalog change),
// which also adds units appended to the file later.
import type { Knex } from 'knex';
import { ensureUnits } from '../server/startup/jobs.js';

export async function up(knex: Knex): Promise<void> {
  await ensureUnits(knex);
}

export async function down(): Promise<void> {
  // Reference data stays: family rows may reference the units, and the schema migration's
  // rollback drops the table anyway.
}
