// The global unit catalog is reference data that always exists (spec 2, issue "foundation"): a
// database prepared with `npm run migrate` or the knex CLI alone already holds it, before any
// server starts. Insert-or-ignore keyed by code, stamped with the next catalog version so replicas
// pull the units like any catalog change.
//
// Stands alone: no imports of live server code (a migration must run the same way forever). The
// units are a frozen copy of seeds/units.json as it was when this migration landed, and the ids
// are stableId('unit', code) of server/db/ids.ts computed here; the startup job
// (server/startup/jobs.ts) adds units appended to the file later. A test checks both agree.
import crypto from 'node:crypto';
import type { Knex } from 'knex';

const UNITS: [code: string, name: string, abbreviation: string, category: string][] = [
  ['each', 'Each', 'ea', 'Count'],
  ['piece', 'Piece', 'pc', 'Count'],
  ['pack', 'Pack', 'pk', 'Count'],
  ['dozen', 'Dozen', 'doz', 'Count'],
  ['can', 'Can', 'can', 'Count'],
  ['bottle', 'Bottle', 'btl', 'Count'],
  ['bunch', 'Bunch', 'bunch', 'Count'],
  ['gram', 'Gram', 'g', 'Weight'],
  ['kilogram', 'Kilogram', 'kg', 'Weight'],
  ['ounce', 'Ounce', 'oz', 'Weight'],
  ['pound', 'Pound', 'lb', 'Weight'],
  ['milliliter', 'Milliliter', 'ml', 'Volume'],
  ['liter', 'Liter', 'l', 'Volume'],
  ['teaspoon', 'Teaspoon', 'tsp', 'Volume'],
  ['tablespoon', 'Tablespoon', 'tbsp', 'Volume'],
  ['cup', 'Cup', 'cup', 'Volume'],
  ['fluid_ounce', 'Fluid Ounce', 'fl oz', 'Volume'],
  ['pint', 'Pint', 'pt', 'Volume'],
  ['quart', 'Quart', 'qt', 'Volume'],
  ['gallon', 'Gallon', 'gal', 'Volume'],
  ['pinch', 'Pinch', 'pinch', 'Volume'],
];

const NAMESPACE = Buffer.from('6f1d2c1e8b4a4f0e9a55c0ffee5a1e01', 'hex');

/** The uuid v5-style id of server/db/ids.ts stableId('unit', code). */
export function unitId(code: string): string {
  const b = crypto.createHash('sha1').update(NAMESPACE).update(`unit:${code}`).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const UNIT_CODES = UNITS.map(([code]) => code);

export async function up(knex: Knex): Promise<void> {
  const existing = new Set((await knex('units_of_measure').pluck('code')) as string[]);
  const missing = UNITS.filter(([code]) => !existing.has(code));
  if (missing.length === 0) return;
  await knex.transaction(async (trx) => {
    const { rows } = (await trx.raw(
      `UPDATE catalog_counter SET version = version + 1 WHERE id = 1
       RETURNING version, set_config('fs.catalog_write', version::text, true)`,
    )) as { rows: Array<{ version: string }> };
    const version = String(rows[0]!.version);
    await trx('units_of_measure')
      .insert(
        missing.map(([code, name, abbreviation, category]) => ({
          id: unitId(code),
          code,
          name,
          abbreviation,
          category,
          catalog_version: version,
        })),
      )
      .onConflict()
      .ignore();
  });
}

export async function down(): Promise<void> {
  // Reference data stays: family rows may reference the units, and the schema migration's
  // rollback drops the table anyway.
}
