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
