// Reference checks for the unit and product id pairs carried by list items and recipe
// ingredients (spec rule 4.3): the id must name a global row or a live row of the caller's
// family (at most one of each pair: the protocol's pair rule, checked with the input). Another
// family's id behaves exactly like an unknown one.
// Used inside a family write (REST and replication push alike), so it only reads through `trx`.
import type { Trx } from '../db/knex.js';
import { badRequest, validationFailed } from '../errors.js';
import { fieldPath, type PathOptions } from '../shared/common.js';
import type { Category } from '@family-shopping/client/protocol';
import { effectiveProductById, effectiveProductCategories, existingIds, rowExists } from './queries.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface UnitRef {
  unitOfMeasureId?: string | null;
  familyUnitOfMeasureId?: string | null;
}

export interface ProductRef {
  productId?: string | null;
  familyProductId?: string | null;
}

/** The ids of the units and products some rows name that exist (global ones, and live ones of
 *  the family), read in one query per table for all the rows (replication push). */
export type KnownRefs = Record<RefTable, ReadonlySet<string>>;
type RefTable = 'units_of_measure' | 'family_units_of_measure' | 'products' | 'family_products';

const REF_COLUMNS: ReadonlyArray<readonly [RefTable, keyof UnitRef | keyof ProductRef, boolean]> = [
  ['units_of_measure', 'unitOfMeasureId', false],
  ['family_units_of_measure', 'familyUnitOfMeasureId', true],
  ['products', 'productId', false],
  ['family_products', 'familyProductId', true],
];

export async function knownRefs(trx: Trx, familyId: string, refs: Array<UnitRef & ProductRef>): Promise<KnownRefs> {
  const known = {} as Record<RefTable, ReadonlySet<string>>;
  for (const [table, field, ofFamily] of REF_COLUMNS) {
    const ids = [...new Set(refs.map((r) => r[field]).filter((id): id is string => id != null && UUID.test(id)))];
    known[table] = await existingIds(trx, table, ids, ofFamily ? familyId : undefined);
  }
  return known;
}

async function exists(trx: Trx, table: RefTable, id: string, familyId?: string, known?: KnownRefs): Promise<boolean> {
  if (!UUID.test(id)) return false;
  if (known) return known[table].has(id);
  return rowExists(trx, table, id, familyId);
}

/**
 * Throws 400 `unit_not_found` when the id names no global unit / no live unit of this family.
 * At most one id of the pair is set: the protocol's pair rule (withPairRules) refuses both in
 * every input and pushed doc, and an edit that sets one clears the other (completePairs).
 */
export async function assertUnitRef(
  trx: Trx,
  familyId: string,
  ref: UnitRef,
  options: PathOptions = {},
  known?: KnownRefs,
): Promise<void> {
  const { unitOfMeasureId, familyUnitOfMeasureId } = ref;
  if (unitOfMeasureId != null && !(await exists(trx, 'units_of_measure', unitOfMeasureId, undefined, known))) {
    throw badRequest('unit_not_found', 'The unit does not exist', [
      { path: fieldPath(options, 'unitOfMeasureId'), message: 'unknown unit' },
    ]);
  }
  if (
    familyUnitOfMeasureId != null &&
    !(await exists(trx, 'family_units_of_measure', familyUnitOfMeasureId, familyId, known))
  ) {
    throw badRequest('unit_not_found', 'The unit does not exist', [
      { path: fieldPath(options, 'familyUnitOfMeasureId'), message: 'unknown unit' },
    ]);
  }
}

/**
 * Throws 400 `product_not_found` when the id names no global product / no live product of this
 * family (at most one id of the pair is set, as for units).
 */
export async function assertProductRef(
  trx: Trx,
  familyId: string,
  ref: ProductRef,
  options: PathOptions = {},
  known?: KnownRefs,
): Promise<void> {
  const { productId, familyProductId } = ref;
  if (productId != null && !(await exists(trx, 'products', productId, undefined, known))) {
    throw badRequest('product_not_found', 'The product does not exist', [
      { path: fieldPath(options, 'productId'), message: 'unknown product' },
    ]);
  }
  if (familyProductId != null && !(await exists(trx, 'family_products', familyProductId, familyId, known))) {
    throw badRequest('product_not_found', 'The product does not exist', [
      { path: fieldPath(options, 'familyProductId'), message: 'unknown product' },
    ]);
  }
}

/**
 * Item by product (api-contract §7): the name an item or ingredient takes when its input names
 * a product and no name. The product's effective name (a family's override of a global product
 * applies); call after assertProductRef.
 */
export async function productName(trx: Trx, familyId: string, ref: ProductRef): Promise<string> {
  const id = ref.productId ?? ref.familyProductId;
  const row = id ? await effectiveProductById(trx, familyId, id) : undefined;
  if (!row)
    throw validationFailed([{ path: 'body.name', message: 'required unless productId or familyProductId is given' }]);
  return row.name;
}

/**
 * The product's effective shop category (a family's override of a global product applies), or
 * null: without a product, without a category, or an unknown product. Placement by category
 * (api-contract §10) reads it; call after assertProductRef.
 */
export async function productCategory(trx: Trx, familyId: string, ref: ProductRef): Promise<Category | null> {
  const id = ref.productId ?? ref.familyProductId;
  if (!id || !UUID.test(id)) return null;
  const row = await effectiveProductById(trx, familyId, id);
  return (row?.category ?? null) as Category | null;
}

/** `productCategory` for many products in one query (replication push): product id → its
 *  effective category (products without one are left out). */
export async function productCategories(
  trx: Trx,
  familyId: string,
  refs: ProductRef[],
): Promise<ReadonlyMap<string, Category>> {
  const ids = [
    ...new Set(
      refs
        .map((r) => r.productId ?? r.familyProductId)
        .filter((id): id is string => id != null && UUID.test(id))
        .map((id) => id.toLowerCase()),
    ),
  ];
  return (await effectiveProductCategories(trx, familyId, ids)) as ReadonlyMap<string, Category>;
}
