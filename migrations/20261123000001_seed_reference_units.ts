// The global unit catalog is reference data that always exists (spec 2, issue "foundation"): a
// database prepared with `npm run migrate` or the knex CLI alone already holds it, before any
// server starts. Insert-or-ignore on the unit code from seeds/units.json, stamped with the next
// catalog version (so replicas pull the units like any catalog change). The startup job
// `ensureUnits` adds units appended to the file later.
import type { Knex } from 'knex';
import { loadUnits } from '../seeds/load.js';
import { stableId } from '../server/db/ids.js';

export async function up(knex: Knex): Promise<void> {
  const existing = new Set((await knex('units_of_measure').pluck('code')) as string[]);
  const missing = loadUnits().filter((u) => !existing.has(u.code));
  if (missing.length === 0) return;
  const [{ version }] = (await knex('catalog_counter').where({ id: 1 }).increment('version', 1).returning('version')) as {
    version: string;
  }[];
  await knex('units_of_measure')
    .insert(
      missing.map((u) => ({
        id: stableId('unit', u.code),
        code: u.code,
        name: u.name,
        abbreviation: u.abbreviation,
        category: u.category,
        catalog_version: version,
      })),
    )
    .onConflict()
    .ignore();
}

export async function down(): Promise<void> {
  // Reference data stays: family rows may reference the units, and the schema migration's
  // rollback drops the table anyway.
}
