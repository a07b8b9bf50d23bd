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

export async function globalProductKeys(q: Q): Promise<string[]> {
  return (await q('products').pluck('key')) as string[];
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
