// Row → REST record mapping for shopping lists and items. Replication docs are these records
// (the list doc without its counts) plus `_deleted`, so they carry nothing else.
import type { DocData, ItemGroup, ListDetail, ListSummary } from '@family-shopping/client/protocol';
import { iso, isoOrNull, quantityOut, str, strOrNull, type Row } from '../shared/common.js';

/** The list doc, the REST list summary and detail, and the item: the protocol's shapes. */
export type ListRecord = DocData<'lists'>;
export type ItemRecord = DocData<'items'>;
export type { ListSummary, ListDetail, ItemGroup };

export interface ListCounts {
  itemCount: number;
  checkedCount: number;
}

export function toList(row: Row): ListRecord {
  return {
    id: str(row.id),
    name: str(row.name),
    storeId: strOrNull(row.store_id),
    archivedAt: isoOrNull(row.archived_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** Summary from a list row; counts from `counts` or the row's `item_count` / `checked_count`. */
export function toListSummary(row: Row, counts?: ListCounts): ListSummary {
  return {
    id: str(row.id),
    name: str(row.name),
    storeId: strOrNull(row.store_id),
    archivedAt: isoOrNull(row.archived_at),
    itemCount: counts ? counts.itemCount : Number(row.item_count ?? 0),
    checkedCount: counts ? counts.checkedCount : Number(row.checked_count ?? 0),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toItem(row: Row): ItemRecord {
  return {
    id: str(row.id),
    listId: str(row.list_id),
    name: str(row.name),
    quantity: quantityOut(row.quantity),
    unitOfMeasureId: strOrNull(row.unit_of_measure_id),
    familyUnitOfMeasureId: strOrNull(row.family_unit_of_measure_id),
    isApproximate: !!row.is_approximate,
    quantityNote: strOrNull(row.quantity_note),
    productId: strOrNull(row.product_id),
    familyProductId: strOrNull(row.family_product_id),
    sectionId: strOrNull(row.section_id),
    checked: !!row.checked,
    checkedAt: isoOrNull(row.checked_at),
    removedAt: isoOrNull(row.removed_at),
    removedByUserId: strOrNull(row.removed_by_user_id),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
