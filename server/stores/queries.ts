// SQL for stores, sections and section memory. Every read filters by family and `deleted`.
import type { Db, Trx } from '../db/knex.js';
import type { FamilyWrite } from '../db/family-write.js';
import type { Row } from '../shared/common.js';
import { maxPosition } from '../shared/queries.js';

type Q = Db | Trx;

export async function storeRows(db: Q, familyId: string): Promise<Row[]> {
  return db('stores').where({ family_id: familyId, deleted: false }).orderByRaw('lower(name), id');
}

export async function storeRow(db: Q, familyId: string, storeId: string): Promise<Row | undefined> {
  return db('stores').where({ family_id: familyId, id: storeId, deleted: false }).first();
}

/** A live store of this family with the given name (case-insensitive), other than `exceptId`. */
export async function storeByName(db: Q, familyId: string, name: string, exceptId?: string): Promise<Row | undefined> {
  const q = db('stores').where({ family_id: familyId, deleted: false }).whereRaw('lower(name) = lower(?)', [name]);
  if (exceptId) q.whereNot({ id: exceptId });
  return q.first();
}

/** Sections of the given stores in walking order. */
export async function sectionRows(db: Q, familyId: string, storeIds: string[]): Promise<Row[]> {
  if (storeIds.length === 0) return [];
  return db('store_sections')
    .where({ family_id: familyId, deleted: false })
    .whereIn('store_id', storeIds)
    .orderBy([{ column: 'position' }, { column: 'created_at' }, { column: 'id' }]);
}

export async function sectionRow(
  db: Q,
  familyId: string,
  storeId: string,
  sectionId: string,
): Promise<Row | undefined> {
  return db('store_sections').where({ family_id: familyId, store_id: storeId, id: sectionId, deleted: false }).first();
}

/** The live sections of the family with these ids, whatever their store (one query for many). */
export async function sectionRowsByIds(db: Q, familyId: string, sectionIds: string[]): Promise<Row[]> {
  if (sectionIds.length === 0) return [];
  return db('store_sections').where({ family_id: familyId, deleted: false }).whereIn('id', sectionIds);
}

export const maxSectionPosition = (db: Q, familyId: string, storeId: string) =>
  maxPosition(db, 'store_sections', familyId, { store_id: storeId });

/** Makes room for a section inserted at `position`. */
export async function shiftSectionsFrom(w: FamilyWrite, storeId: string, position: number): Promise<void> {
  await w
    .trx('store_sections')
    .where({ family_id: w.familyId, store_id: storeId, deleted: false })
    .andWhere('position', '>=', position)
    .update({ position: w.trx.raw('position + 1'), ...w.stamp('store_sections') });
}

/** Clears the section of every item (removed ones too) in the given sections; returns the items before. */
export async function clearItemSections(w: FamilyWrite, sectionIds: string[]): Promise<Row[]> {
  if (sectionIds.length === 0) return [];
  const before = (await w
    .trx('shopping_list_items')
    .where({ family_id: w.familyId, deleted: false })
    .whereIn('section_id', sectionIds)
    .select('id', 'list_id', 'section_id')) as Row[];
  if (before.length === 0) return [];
  await w
    .trx('shopping_list_items')
    .where({ family_id: w.familyId, deleted: false })
    .whereIn('section_id', sectionIds)
    .update({ section_id: null, ...w.stamp('shopping_list_items') });
  return before;
}

/** Tombstones the memory rows pointing at any of the given sections. Stamps (and so names
 *  `sectionMemory` in the commit's Changed frame) only when there is one. */
export async function forgetSections(w: FamilyWrite, sectionIds: string[]): Promise<void> {
  if (sectionIds.length === 0) return;
  const held = () =>
    w.trx('product_store_sections').where({ family_id: w.familyId, deleted: false }).whereIn('section_id', sectionIds);
  if (!(await held().first('id'))) return;
  await held().update({ deleted: true, ...w.stamp('product_store_sections') });
}

// --- section memory ------------------------------------------------------------------------

export interface ProductKey {
  productId?: string | null;
  familyProductId?: string | null;
}

export async function memoryRow(
  db: Q,
  familyId: string,
  storeId: string,
  product: ProductKey,
): Promise<Row | undefined> {
  const q = db('product_store_sections').where({ family_id: familyId, store_id: storeId, deleted: false });
  if (product.productId) q.andWhere({ product_id: product.productId });
  else if (product.familyProductId) q.andWhere({ family_product_id: product.familyProductId });
  else return undefined;
  return q.first();
}

/** The live memory rows of these stores for these products (global or family): what
 *  `memoryRow` reads, for many (store, product) pairs in one query. */
export async function memoryRowsFor(
  db: Q,
  familyId: string,
  storeIds: string[],
  products: ProductKey[],
): Promise<Row[]> {
  const productIds = [...new Set(products.map((p) => p.productId).filter((id): id is string => !!id))];
  const familyProductIds = [
    ...new Set(
      products
        .filter((p) => !p.productId)
        .map((p) => p.familyProductId)
        .filter((id): id is string => !!id),
    ),
  ];
  if (storeIds.length === 0 || productIds.length + familyProductIds.length === 0) return [];
  return db('product_store_sections')
    .where({ family_id: familyId, deleted: false })
    .whereIn('store_id', storeIds)
    .andWhere((q) => {
      if (productIds.length) q.orWhereIn('product_id', productIds);
      if (familyProductIds.length) q.orWhereIn('family_product_id', familyProductIds);
    });
}

/** Whether a row with this id exists in the table (any family, tombstones too). */
export async function existingRowId(w: FamilyWrite, table: string, id: string): Promise<boolean> {
  return !!(await w.trx(table).where({ id }).first('id'));
}

/** A row of this family with this id (tombstones too), e.g. a forgotten memory row to revive. */
export async function ownRowById(w: FamilyWrite, table: string, id: string): Promise<Row | undefined> {
  return w.trx(table).where({ id }).first();
}
