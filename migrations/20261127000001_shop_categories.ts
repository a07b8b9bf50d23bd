// Shop categories (api-contract §10): products and sections gain a nullable `category`, one of
// eleven keys, the order of the default sections that carry them.
//
// - `products.category` (the global catalog; the staple seeder fills it at startup),
//   `family_products.category`, `family_product_overrides.category` (null: follows the global
//   product, as `name` does) and `store_sections.category`.
// - Backfill: a live section whose name equals a default section's name (case-insensitively)
//   takes that section's category. This is a versioned write, as every write of a replicated
//   table must be (migrations/20261123200001_require_write_version.ts): each family with such a
//   section takes its next version, in the same statement telling the database so, and the
//   sections carry it, so every device pulls the changed sections.
//
// Stands alone: no imports of live server code (the keys and names below are the protocol's as
// of this migration: client-sdk/src/protocol/rules.ts CATEGORIES, views.ts DEFAULT_SECTIONS).
import type { Knex } from 'knex';

const CATEGORIES = [
  'produce',
  'bakery',
  'meat',
  'deli',
  'dairy',
  'frozen',
  'pantry',
  'snacks',
  'beverages',
  'household',
  'personal_care',
];

const DEFAULT_SECTIONS = [
  'Produce',
  'Bakery',
  'Meat & Seafood',
  'Deli',
  'Dairy & Eggs',
  'Frozen',
  'Pantry',
  'Snacks',
  'Beverages',
  'Household',
  'Personal Care',
];

const TABLES = ['products', 'family_products', 'family_product_overrides', 'store_sections'];

const KEYS_SQL = CATEGORIES.map((c) => `'${c}'`).join(', ');

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.raw(
      `ALTER TABLE ${table} ADD COLUMN category text
         CONSTRAINT ${table}_category_key CHECK (category IS NULL OR category IN (${KEYS_SQL}))`,
    );
  }

  const pairs = DEFAULT_SECTIONS.map((name, i) => [name.toLowerCase(), CATEGORIES[i]!] as const);
  const values = pairs.map(() => '(?, ?)').join(', ');
  const bindings = pairs.flat();
  const matching = `SELECT s.id, d.category FROM store_sections s
      JOIN (VALUES ${values}) AS d(name, category) ON lower(s.name) = d.name
      WHERE s.family_id = ? AND NOT s.deleted AND s.category IS NULL`;

  const { rows: families } = (await knex.raw(
    `SELECT DISTINCT s.family_id FROM store_sections s
       WHERE NOT s.deleted AND s.category IS NULL AND lower(s.name) IN (${pairs.map(() => '?').join(', ')})`,
    pairs.map(([name]) => name),
  )) as { rows: Array<{ family_id: string }> };

  for (const { family_id: familyId } of families) {
    // The family's next version, announced to the write-version triggers (as server/db/
    // family-write.ts `takeFamilyVersion` does); transaction-local, replaced by the next family's.
    const { rows } = (await knex.raw(
      `UPDATE family_counters SET version = version + 1 WHERE family_id = ?
         RETURNING version, set_config('fs.family_write', family_id::text || ':' || version::text, true)`,
      [familyId],
    )) as { rows: Array<{ version: string }> };
    if (!rows[0]) continue;
    await knex.raw(
      `UPDATE store_sections t SET category = m.category, version = ?, updated_at = now()
         FROM (${matching}) AS m WHERE t.id = m.id`,
      [rows[0].version, ...bindings, familyId],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) await knex.raw(`ALTER TABLE ${table} DROP COLUMN category`);
}
