// Records for the protocol's unit tests: an item with every field at its plain value.
import type { DocData } from '@family-shopping/client/protocol';

export const ITEM_ID = 'c0ffee00-0000-4000-8000-000000000001';
export const LIST_ID = 'c0ffee00-0000-4000-8000-0000000000aa';
export const T0 = '2024-05-01T09:00:00.000Z';

/** An active, unchecked item "Milk" of LIST_ID, created at T0, with `over` applied. */
export function itemRecord(over: Partial<DocData<'items'>> = {}): DocData<'items'> {
  return {
    id: ITEM_ID,
    listId: LIST_ID,
    name: 'Milk',
    quantity: 1,
    unitOfMeasureId: null,
    familyUnitOfMeasureId: null,
    isApproximate: false,
    quantityNote: null,
    productId: null,
    familyProductId: null,
    sectionId: null,
    checked: false,
    checkedAt: null,
    removedAt: null,
    removedByUserId: null,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

/** The list LIST_ID "Weekly", without a store, created at T0, with `over` applied. */
export function listRecord(over: Partial<DocData<'lists'>> = {}): DocData<'lists'> {
  return { id: LIST_ID, name: 'Weekly', storeId: null, archivedAt: null, createdAt: T0, updatedAt: T0, ...over };
}
