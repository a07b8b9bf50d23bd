/**
 * The reference rules items and ingredients share with REST (api-contract §4 "Item rules"):
 * a unit or product id must name a unit or product of the family's effective catalog (a
 * global one as `unitOfMeasureId`/`productId`, a family one as the `family…` id); a section
 * must be a section of the list's store. Plus section memory: recall and remember, on the
 * local `sectionMemory` collection, as the server does; and the placement of a new item (§10).
 */
import {
  hasProduct,
  nameForAdd,
  patchRefs,
  placeItem,
  sectionMemoryId,
  type DocData,
  type PairPatch,
  type QuantityPatch,
  type Placement,
  type ProductPair as ProductRef,
  type UnitPair as UnitRef,
} from '../protocol/index.js';
import { collection, findDoc, findDocs, invalidField, plain, type DomainContext } from './context.js';

export { hasProduct, type ProductRef, type UnitRef };

const join = (prefix: string | undefined, field: string) => (prefix ? `${prefix}.${field}` : field);

/** Each id of the pair that is given must name a doc of its kind: `global` for the first field,
 *  `family` for the second. The last doc found, or null when neither id is given. */
async function assertPair<C extends 'units' | 'products'>(
  ctx: DomainContext,
  name: C,
  ref: Record<string, string | null | undefined>,
  fields: readonly [global: string, family: string],
  message: string,
  prefix?: string,
): Promise<DocData<C> | null> {
  let found: DocData<C> | null = null;
  for (const [field, kind] of [
    [fields[0], 'global'],
    [fields[1], 'family'],
  ] as const) {
    const id = ref[field];
    if (id == null) continue;
    const doc = await findDoc(ctx, name, id);
    if (!doc || doc.kind !== kind) throw invalidField(join(prefix, field), message);
    found = doc;
  }
  return found;
}

export async function assertUnitRef(ctx: DomainContext, ref: UnitRef, prefix?: string): Promise<void> {
  await assertPair(ctx, 'units', { ...ref }, ['unitOfMeasureId', 'familyUnitOfMeasureId'], 'unknown unit', prefix);
}

/** Checks the product reference; the product's effective name, or null when none is given. */
export async function assertProductRef(ctx: DomainContext, ref: ProductRef, prefix?: string): Promise<string | null> {
  const product = await assertPair(
    ctx,
    'products',
    { ...ref },
    ['productId', 'familyProductId'],
    'unknown product',
    prefix,
  );
  return product?.name ?? null;
}

/** Checks the unit and product an add or a patch names (the protocol's `patchRefs`: null where
 *  absent); both pairs and the product's name. */
export async function checkRefs(ctx: DomainContext, p: PairPatch, prefix?: string) {
  const { unit, product } = patchRefs(p);
  await assertUnitRef(ctx, unit, prefix);
  return { unit, product, productName: await assertProductRef(ctx, product, prefix) };
}

/**
 * The fields a new item and a new ingredient share, in their doc order, with the unit and
 * product checked: the name (the product's when none is given), quantity, both unit ids,
 * `isApproximate`, `quantityNote` and both product ids.
 */
export async function quantityFieldsForAdd(ctx: DomainContext, v: QuantityPatch, prefix?: string) {
  const { unit, product, productName } = await checkRefs(ctx, v, prefix);
  return {
    name: nameForAdd(v.name, productName),
    quantity: v.quantity ?? null,
    ...unit,
    isApproximate: v.isApproximate ?? false,
    quantityNote: v.quantityNote ?? null,
    ...product,
  };
}

/** A section must be a live section of the list's store. */
export async function assertSection(
  ctx: DomainContext,
  storeId: string | null,
  sectionId: string,
  prefix?: string,
): Promise<void> {
  const section = storeId ? await findDoc(ctx, 'sections', sectionId) : null;
  if (!section || section.storeId !== storeId)
    throw invalidField(join(prefix, 'sectionId'), "not a section of the list's store");
}

async function memoryDocs(ctx: DomainContext, storeId: string, product: ProductRef) {
  const selector = product.productId
    ? { storeId, productId: product.productId }
    : { storeId, familyProductId: product.familyProductId };
  const docs = await findDocs(ctx, 'sectionMemory', selector);
  // The most recently updated first (rows written before ids were derived may double up).
  return docs.sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt));
}

/** The section the store remembers for the product, or null. */
export async function recallSection(
  ctx: DomainContext,
  storeId: string | null,
  product: ProductRef,
): Promise<string | null> {
  if (!storeId || !hasProduct(product)) return null;
  const [doc] = await memoryDocs(ctx, storeId, product);
  if (!doc) return null;
  // A remembered section that no longer exists is no placement.
  return (await findDoc(ctx, 'sections', doc.sectionId)) ? doc.sectionId : null;
}

/**
 * Records locally that the product was placed in the section of that store (last placement
 * wins), as the server does when it receives the item. The local row is never pushed (section
 * memory is the server's to derive); the server's own row replaces it on the next pull.
 */
export async function rememberSection(
  ctx: DomainContext,
  storeId: string | null,
  product: ProductRef,
  sectionId: string | null,
): Promise<void> {
  if (!storeId || !sectionId || !hasProduct(product)) return;
  const [doc, ...stale] = await memoryDocs(ctx, storeId, product);
  for (const s of stale) await s.remove();
  if (doc) {
    if (doc.sectionId !== sectionId) await doc.incrementalPatch({ sectionId, updatedAt: ctx.now() });
    return;
  }
  const row: DocData<'sectionMemory'> = {
    id: sectionMemoryId(storeId, product),
    storeId,
    productId: product.productId ?? null,
    familyProductId: product.productId ? null : (product.familyProductId ?? null),
    sectionId,
    updatedAt: ctx.now(),
  };
  await collection(ctx, 'sectionMemory').upsert(row);
}

/**
 * Where a new item goes (api-contract §10, the protocol's `placeItem`): the explicit `sectionId`
 * (already checked), else the section the list's store remembers for the product, else the first
 * section of the store in walking order whose category is the product's effective category (the
 * local `products` doc carries the family's override), else none.
 */
export async function placeNewItem(
  ctx: DomainContext,
  storeId: string | null,
  product: ProductRef,
  sectionId: string | null,
): Promise<Placement> {
  const remembered = sectionId ? null : await recallSection(ctx, storeId, product);
  let productCategory = null;
  let sections: DocData<'sections'>[] = [];
  if (!sectionId && !remembered && storeId && hasProduct(product)) {
    const doc = await findDoc(ctx, 'products', product.productId ?? product.familyProductId);
    productCategory = doc?.category ?? null;
    if (productCategory != null) sections = (await findDocs(ctx, 'sections', { storeId })).map((d) => plain(d));
  }
  return placeItem({ sectionId, remembered, productCategory, sections });
}
