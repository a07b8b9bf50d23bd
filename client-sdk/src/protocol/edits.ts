/**
 * The edit rules of items and ingredients (api-contract §4 "Item rules", §10), as pure
 * functions: given the current record and a validated patch (plus what the caller read: the
 * product's name, the section a store remembers), the next fields and the section memory to
 * write. The server's REST handlers and replication push (server/lists/items.ts,
 * server/recipes/service.ts, server/sync/bulk.ts) and the SDK's offline domain layer
 * (client-sdk/src/domain) all call these; the checks that read (a unit, product or section
 * exists) stay with each caller. Placement of a new item is `placeItem` (daily.ts).
 */

export interface UnitPair {
  unitOfMeasureId: string | null;
  familyUnitOfMeasureId: string | null;
}

export interface ProductPair {
  productId: string | null;
  familyProductId: string | null;
}

/** The pair fields of a patch (absent: left as they are). */
export interface PairPatch {
  unitOfMeasureId?: string | null;
  familyUnitOfMeasureId?: string | null;
  productId?: string | null;
  familyProductId?: string | null;
}

/** What an add or an edit of an item or ingredient says of its name, quantity, unit and
 *  product (absent: left as they are). */
export interface QuantityPatch extends PairPatch {
  /** May be left out of an add that names a product: the record takes the product's name. */
  name?: string;
  quantity?: number | null;
  isApproximate?: boolean;
  quantityNote?: string | null;
}

export const hasProduct = (p: ProductPair): boolean => p.productId != null || p.familyProductId != null;

/** Setting one id of a pair (and not sending the other) clears the other: the patch with the
 *  other side set to null. (Both set is refused by the input schemas and the reference checks.) */
export function completePairs<P extends PairPatch>(patch: P): P {
  const p = { ...patch };
  if (p.unitOfMeasureId != null && p.familyUnitOfMeasureId === undefined) p.familyUnitOfMeasureId = null;
  if (p.familyUnitOfMeasureId != null && p.unitOfMeasureId === undefined) p.unitOfMeasureId = null;
  if (p.productId != null && p.familyProductId === undefined) p.familyProductId = null;
  if (p.familyProductId != null && p.productId === undefined) p.productId = null;
  return p;
}

/** The references a (completed) patch sets, to be checked: a side not sent is null (nothing to
 *  check). */
export function patchRefs(p: PairPatch): { unit: UnitPair; product: ProductPair } {
  return {
    unit: { unitOfMeasureId: p.unitOfMeasureId ?? null, familyUnitOfMeasureId: p.familyUnitOfMeasureId ?? null },
    product: { productId: p.productId ?? null, familyProductId: p.familyProductId ?? null },
  };
}

/** The product pair after a (completed) patch: a side the patch sends, else the record's. */
export function patchedProduct(current: ProductPair, p: PairPatch): ProductPair {
  return {
    productId: p.productId !== undefined ? p.productId : current.productId,
    familyProductId: p.familyProductId !== undefined ? p.familyProductId : current.familyProductId,
  };
}

/** The name of an added item or ingredient: an explicit name wins, else the product's
 *  (the input schemas require one of the two). */
export function nameForAdd(given: string | null | undefined, productName: string | null): string {
  return given ?? productName!;
}

/**
 * What an edit does to an item's section:
 * - an explicit `sectionId` (already checked to be a section of the list's store) → that
 *   section, remembered for the item's product (when the list has a store and the item a product);
 * - none sent, and the edit changes the product to one: an item without a section takes the
 *   section the store remembers for it (`recall: true`: the caller reads it), an item in a
 *   section is a placement of that product there (remembered);
 * - else the section stays.
 * `remember`: the section to remember for (storeId, product), or null.
 */
export type SectionEdit =
  { recall: false; section: string | null; remember: string | null } | { recall: true; remember: null };

export function sectionEdit(input: {
  storeId: string | null;
  /** The item's section before the edit. */
  current: string | null;
  /** `sectionId` of the patch (undefined: not sent). */
  sectionId: string | null | undefined;
  /** The item's product after the edit. */
  product: ProductPair;
  productChanged: boolean;
}): SectionEdit {
  const { storeId, current, sectionId, product } = input;
  if (sectionId !== undefined) {
    const remember = sectionId && storeId && hasProduct(product) ? sectionId : null;
    return { recall: false, section: sectionId, remember };
  }
  if (hasProduct(product) && input.productChanged) {
    if (current == null) return { recall: true, remember: null };
    return { recall: false, section: current, remember: storeId ? current : null };
  }
  return { recall: false, section: current, remember: null };
}

/** `checked` sent and different: the new flag, `checkedAt` set to now or cleared; else null.
 *  (`now` is read only when the flag changes.) */
export function checkEdit<T>(current: boolean, checked: boolean | undefined, now: () => T): CheckedFields<T> | null {
  if (checked === undefined || checked === current) return null;
  return { checked, checkedAt: checked ? now() : null };
}

export interface CheckedFields<T> {
  checked: boolean;
  checkedAt: T | null;
}

export interface RemovalFields<T> {
  removedAt: T | null;
  removedByUserId: string | null;
}

/** Soft removal of an item: `removedAt` (now) and who removed it; null when already removed. */
export function removal<T>(currentRemovedAt: unknown, userId: string, now: T): RemovalFields<T> | null {
  return currentRemovedAt != null ? null : { removedAt: now, removedByUserId: userId };
}

/** The removal fields of an active item. */
export const ACTIVE: Readonly<RemovalFields<never>> = { removedAt: null, removedByUserId: null };

/** Restore (undo of a removal): both removal fields cleared; null when the item is active. */
export function restoration(currentRemovedAt: unknown): RemovalFields<never> | null {
  return currentRemovedAt == null ? null : { ...ACTIVE };
}
