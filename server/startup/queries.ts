// The statements of the startup jobs (server/startup/jobs.ts).
import type { Db, Trx } from '../db/knex.js';

type Q = Db | Trx;

export async function globalUnitCodes(q: Q): Promise<string[]> {
  return (await q('units_of_measure').pluck('code')) as string[];
}

/** Insert-or-ignore on the unit code; returns how many were added. */
export async function insertGlobalUnits(trx: Trx, rows: Record<string, unknown>[]): Promise<number> {
  const inserted = await trx('units_of_measure').insert(rows).onConflict().ignore().returning('id');
  return inserted.length;
}

/** Every global product's key and category. */
export async function globalProductCategories(q: Q): Promise<Array<{ key: string; category: string | null }>> {
  return (await q('products').select('key', 'category')) as Array<{ key: string; category: string | null }>;
}

/** Sets the category of the global products with these keys that have none, at the catalog
 *  version of this write; returns how many changed. */
export async function setMissingProductCategories(
  trx: Trx,
  pairs: Array<{ key: string; category: string }>,
  catalogVersion: string,
): Promise<number> {
  if (pairs.length === 0) return 0;
  const { rows } = (await trx.raw(
    `UPDATE products p SET category = d.category, catalog_version = ?, updated_at = now()
       FROM (VALUES ${pairs.map(() => '(?, ?)').join(', ')}) AS d(key, category)
       WHERE p.key = d.key AND p.category IS NULL
       RETURNING p.id`,
    [catalogVersion, ...pairs.flatMap((p) => [p.key, p.category])],
  )) as { rows: unknown[] };
  return rows.length;
}

/** A global product's name in a language other than English, by the product's key. */
export interface KeyedProductName {
  key: string;
  locale: string;
  name: string;
}

/** Every stored name of a global product in another language, by the product's key. */
export async function globalProductNames(q: Q): Promise<KeyedProductName[]> {
  return (await q('product_names as n')
    .join('products as p', 'p.id', 'n.product_id')
    .select('p.key', 'n.locale', 'n.name')) as KeyedProductName[];
}

const NAMES_JSON = 'json_to_recordset(?::json) AS d(key text, locale text, name text)';

/**
 * Writes the names that are missing or differ, in this catalog write: first the products whose
 * names change get the write's catalog version (devices pull them again, named anew), then their
 * names are inserted or updated (the `product_names_stamped_product` trigger refuses a name whose
 * product this write did not stamp). Names of unknown keys are skipped. Returns how many names
 * were written.
 */
export async function writeProductNames(trx: Trx, names: KeyedProductName[], catalogVersion: string): Promise<number> {
  if (names.length === 0) return 0;
  const json = JSON.stringify(names);
  await trx.raw(
    `UPDATE products SET catalog_version = ?::bigint, updated_at = now()
      WHERE id IN (SELECT p.id FROM ${NAMES_JSON}
                     JOIN products p ON p.key = d.key
                     LEFT JOIN product_names n ON n.product_id = p.id AND n.locale = d.locale
                    WHERE n.name IS DISTINCT FROM d.name)`,
    [catalogVersion, json],
  );
  const { rows } = (await trx.raw(
    `INSERT INTO product_names (product_id, locale, name)
       SELECT p.id, d.locale, d.name FROM ${NAMES_JSON}
         JOIN products p ON p.key = d.key AND p.catalog_version = ?::bigint
     ON CONFLICT (product_id, locale) DO UPDATE SET name = excluded.name
       WHERE product_names.name IS DISTINCT FROM excluded.name
     RETURNING product_id`,
    [json, catalogVersion],
  )) as { rows: unknown[] };
  return rows.length;
}

/** Insert-or-ignore on the product key; returns how many were added. */
export async function insertGlobalProducts(trx: Trx, rows: Record<string, unknown>[]): Promise<number> {
  const inserted = await trx('products').insert(rows).onConflict('key').ignore().returning('id');
  return inserted.length;
}

/** Stores the setting unless it exists; returns the value kept (the first writer's). */
export async function keepSetting(q: Q, key: string, value: string): Promise<string> {
  await q('app_settings').insert({ key, value }).onConflict('key').ignore();
  const row = (await q('app_settings').where({ key }).first()) as { value: string };
  return row.value;
}

/** Serialises concurrent starts (transaction-scoped), so only one default family is created. */
export async function lockDefaultFamilyCreation(trx: Trx): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(727001)');
}

export async function anyFamilyExists(q: Q): Promise<boolean> {
  return !!(await q('families').first('id'));
}
