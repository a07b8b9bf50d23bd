// Section memory (spec 1.7, rule 4.2): per store, the section in which a product (global or
// family) was last placed. One live row per (store, product); written through the family write
// so every change is version-stamped and replicated (collection `sectionMemory`).
import type { FamilyWrite } from '../db/family-write.js';
import { newId } from '../db/ids.js';
import { memoryRow, ownRowById, type ProductKey } from './queries.js';
import { sectionMemoryId } from '@family-shopping/client/protocol';

const hasProduct = (p: ProductKey) => p.productId != null || p.familyProductId != null;

/** The section the store remembers for the product, or null. */
export async function recallSection(
  w: FamilyWrite,
  storeId: string | null,
  product: ProductKey,
): Promise<string | null> {
  if (!storeId || !hasProduct(product)) return null;
  const row = await memoryRow(w.trx, w.familyId, storeId, product);
  return row ? String(row.section_id) : null;
}

/** Records that the product was placed in the section of that store (last placement wins). */
export async function rememberSection(
  w: FamilyWrite,
  storeId: string | null,
  product: ProductKey,
  sectionId: string | null,
): Promise<void> {
  if (!storeId || !sectionId || !hasProduct(product)) return;
  const row = await memoryRow(w.trx, w.familyId, storeId, product);
  if (row) {
    if (row.section_id !== sectionId)
      await w.update('product_store_sections', { id: row.id }, { section_id: sectionId });
    return;
  }
  const values = {
    store_id: storeId,
    product_id: product.productId ?? null,
    family_product_id: product.productId ? null : (product.familyProductId ?? null),
    section_id: sectionId,
  };
  // The row's id is derived from (store, product), as the SDK derives it when it remembers a
  // placement offline, so both write the same document. A forgotten row of this family with
  // that id comes back; an id held by another family's row falls back to a random one.
  const derived = sectionMemoryId(storeId, product);
  const held = await ownRowById(w, 'product_store_sections', derived);
  if (held && held.family_id === w.familyId) {
    await w.update('product_store_sections', { id: derived }, { ...values, deleted: false });
    return;
  }
  await w.insert('product_store_sections', { id: held ? newId() : derived, ...values });
}
