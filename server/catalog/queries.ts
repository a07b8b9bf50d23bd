// The only SQL of the catalog feature. Every family-scoped query takes the family id from the
// caller (the actor's family), never from the request. Live rows only (`deleted = false`).
import type { Knex } from 'knex';
import type { EffectiveProductRow, EffectiveUnitRow } from './records.js';
import { DEFAULT_LOCALE, isLocale, type Locale } from '@family-shopping/client/protocol';

type Q = Knex | Knex.Transaction;

/** The family's locale (api-contract §12): it names the family's view of the global catalog
 *  (`globalProductsInFamilyLocale`) and its new stores' default sections. */
export async function familyLocale(q: Q, familyId: string): Promise<Locale> {
  const row = (await q('families').where({ id: familyId }).first('locale')) as { locale: string } | undefined;
  return isLocale(row?.locale) ? row.locale : DEFAULT_LOCALE;
}

/**
 * Global products named in the family's locale: `p` the product, `n` its name in the family's
 * locale (none for English, whose name is `p.name`), `locale_name` = `coalesce(n.name, p.name)`.
 * The locale is read in the statement itself, so a replication pull's snapshot sees the locale and
 * the names together. One rule: the effective catalog and the push's "base" of a global product
 * (server/sync/queries.ts) both build on it.
 */
export function globalProductsInFamilyLocale(q: Q, familyId: string): Knex.QueryBuilder {
  return q('products as p').leftJoin('product_names as n', function () {
    this.on('n.product_id', '=', 'p.id').andOn(
      'n.locale',
      '=',
      q.raw('(select f.locale from families f where f.id = ?)', [familyId]),
    );
  });
}

/** The name of a global product in the family's locale, else its English name (SQL, over
 *  `globalProductsInFamilyLocale`). */
export const LOCALE_NAME_SQL = 'coalesce(n.name, p.name)';

/** Global products with the family's live override applied (the global half of the effective
 *  catalog; replication pulls reuse it with their cursor columns added). The effective name is
 *  the override's, else the name in the family's locale, else the English name. `english_name`
 *  is the English name unless the override names the product (the record's `englishName`, which
 *  the product search also matches: api-contract §12). */
export function effectiveGlobalProducts(q: Q, familyId: string): Knex.QueryBuilder {
  return globalProductsInFamilyLocale(q, familyId)
    .leftJoin('family_product_overrides as o', function () {
      this.on('o.product_id', '=', 'p.id').andOnVal('o.family_id', '=', familyId).andOnVal('o.deleted', '=', false);
    })
    .select(
      'p.id',
      q.raw("'global'::text as kind"),
      q.raw(`coalesce(o.name, ${LOCALE_NAME_SQL}) as name`),
      q.raw('(case when o.name is null then p.name end) as english_name'),
      q.raw('coalesce(o.unit_category_flags, p.unit_category_flags) as unit_category_flags'),
      q.raw('coalesce(o.category, p.category) as category'),
      q.raw('(o.id is not null) as overridden'),
      'p.created_at',
      q.raw('greatest(p.updated_at, o.updated_at) as updated_at'),
    );
}

/** The family's effective product catalog as a subquery: globals with overrides, plus family products. */
function effectiveProducts(q: Q, familyId: string): Knex.QueryBuilder {
  const globals = effectiveGlobalProducts(q, familyId);
  const family = q('family_products')
    .where({ family_id: familyId, deleted: false })
    .select(
      'id',
      q.raw("'family'::text as kind"),
      'name',
      q.raw('null::text as english_name'),
      'unit_category_flags',
      'category',
      q.raw('false as overridden'),
      'created_at',
      'updated_at',
    );
  return q.queryBuilder().from(q.raw('(? union all ?) as e', [globals, family]));
}

/** The family's whole effective product catalog (the search and its order are the protocol's
 *  `searchProducts`, applied by the service, so the SDK's products.search$ orders alike). */
export async function allEffectiveProducts(q: Q, familyId: string): Promise<EffectiveProductRow[]> {
  return (await effectiveProducts(q, familyId).select('*')) as EffectiveProductRow[];
}

/** One product of the family's effective catalog (global or the family's own), or undefined. */
export async function effectiveProductById(
  q: Q,
  familyId: string,
  id: string,
): Promise<EffectiveProductRow | undefined> {
  return (await effectiveProducts(q, familyId).select('*').where({ id }).first()) as EffectiveProductRow | undefined;
}

/** The effective category of these products of the family's catalog (global or the family's
 *  own), by id; those without one are left out. */
export async function effectiveProductCategories(q: Q, familyId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = (await effectiveProducts(q, familyId)
    .select('id', 'category')
    .whereIn('id', ids)
    .whereNotNull('category')) as Array<{ id: string; category: string }>;
  return new Map(rows.map((r) => [String(r.id), r.category]));
}

export interface FamilyProductRow {
  id: string;
  family_id: string;
  name: string;
  unit_category_flags: number;
  category: string | null;
  deleted: boolean;
}

/** A family product row by id in any family and any state (for client-chosen id checks). */
export async function familyProductAnyFamily(q: Q, id: string): Promise<FamilyProductRow | undefined> {
  return (await q('family_products').where({ id }).first()) as FamilyProductRow | undefined;
}

export async function liveFamilyProduct(q: Q, familyId: string, id: string): Promise<FamilyProductRow | undefined> {
  return (await q('family_products').where({ id, family_id: familyId, deleted: false }).first()) as
    FamilyProductRow | undefined;
}

export async function familyProductNameTaken(
  q: Q,
  familyId: string,
  name: string,
  exceptId?: string,
): Promise<boolean> {
  const query = q('family_products')
    .where({ family_id: familyId, deleted: false })
    .whereRaw('lower(name) = lower(?)', [name])
    .first('id');
  if (exceptId) query.whereNot({ id: exceptId });
  return !!(await query);
}

export async function globalProductExists(q: Q, id: string): Promise<boolean> {
  return !!(await q('products').where({ id }).first('id'));
}

export async function liveOverride(q: Q, familyId: string, productId: string): Promise<{ id: string } | undefined> {
  return (await q('family_product_overrides')
    .where({ family_id: familyId, product_id: productId, deleted: false })
    .first('id')) as { id: string } | undefined;
}

// Units

/** The columns of an effective unit (`EffectiveUnitRow`): a global one, and a family one. The
 *  replication's queries add their cursor and state columns to them. */
export const GLOBAL_UNIT_COLUMNS = (q: Q) => [
  'id',
  q.raw("'global'::text as kind"),
  'code',
  'name',
  'abbreviation',
  'category',
  'created_at',
  'updated_at',
];
export const FAMILY_UNIT_COLUMNS = (q: Q) => [
  'id',
  q.raw("'family'::text as kind"),
  q.raw('null::text as code'),
  'name',
  'abbreviation',
  'category',
  'created_at',
  'updated_at',
];

const CATEGORY_ORDER = "case category when 'Count' then 1 when 'Weight' then 2 when 'Volume' then 3 else 4 end";

/** Global units then the family's live units, each part by category (Count, Weight, Volume) then name. */
export async function effectiveUnits(q: Q, familyId: string): Promise<EffectiveUnitRow[]> {
  const globals = (await q('units_of_measure')
    .select(GLOBAL_UNIT_COLUMNS(q))
    .orderByRaw(`${CATEGORY_ORDER}, lower(name), id`)) as EffectiveUnitRow[];
  const family = (await q('family_units_of_measure')
    .where({ family_id: familyId, deleted: false })
    .select(FAMILY_UNIT_COLUMNS(q))
    .orderByRaw(`${CATEGORY_ORDER}, lower(name), id`)) as EffectiveUnitRow[];
  return [...globals, ...family];
}

export async function liveFamilyUnit(q: Q, familyId: string, id: string): Promise<EffectiveUnitRow | undefined> {
  return (await q('family_units_of_measure')
    .where({ id, family_id: familyId, deleted: false })
    .first(FAMILY_UNIT_COLUMNS(q))) as EffectiveUnitRow | undefined;
}

/** A family unit row by id in any family and any state (for client-chosen id checks). */
export async function familyUnitAnyFamily(
  q: Q,
  id: string,
): Promise<{ id: string; family_id: string; deleted: boolean } | undefined> {
  return (await q('family_units_of_measure').where({ id }).first('id', 'family_id', 'deleted')) as
    { id: string; family_id: string; deleted: boolean } | undefined;
}

export async function globalUnitExists(q: Q, id: string): Promise<boolean> {
  return !!(await q('units_of_measure').where({ id }).first('id'));
}

/** Abbreviations are unique across the global units and the family's live units, case-insensitively. */
export async function abbreviationTaken(
  q: Q,
  familyId: string,
  abbreviation: string,
  exceptId?: string,
): Promise<boolean> {
  const global = await q('units_of_measure').whereRaw('lower(abbreviation) = lower(?)', [abbreviation]).first('id');
  if (global) return true;
  const query = q('family_units_of_measure')
    .where({ family_id: familyId, deleted: false })
    .whereRaw('lower(abbreviation) = lower(?)', [abbreviation])
    .first('id');
  if (exceptId) query.whereNot({ id: exceptId });
  return !!(await query);
}

/** Whether a live ingredient or any live list item (removed ones included) uses the family unit. */
export async function familyUnitInUse(q: Q, familyId: string, unitId: string): Promise<boolean> {
  const where = { family_id: familyId, family_unit_of_measure_id: unitId, deleted: false };
  const ingredient = await q('recipe_ingredients').where(where).first('id');
  if (ingredient) return true;
  return !!(await q('shopping_list_items').where(where).first('id'));
}

/** True when `table` holds a row with this id (of this family and live, when familyId is given). */
export async function rowExists(q: Q, table: string, id: string, familyId?: string): Promise<boolean> {
  const query = q(table).where({ id }).first('id');
  if (familyId) query.andWhere({ family_id: familyId, deleted: false });
  return !!(await query);
}

/** Which of these ids exist, as `rowExists` decides it for one id: one query for them all. */
export async function existingIds(q: Q, table: string, ids: string[], familyId?: string): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const query = q(table).whereIn('id', ids).select('id');
  if (familyId) query.andWhere({ family_id: familyId, deleted: false });
  return new Set(((await query) as Array<{ id: string }>).map((r) => String(r.id)));
}
