// Row → REST record mapping for shopping lists and items, from the protocol's field table
// (server/shared/record-fields.ts). Replication docs are these records
// (the list doc without its counts) plus `_deleted`, so they carry nothing else.
import type { DocData, ItemGroup, ListDetail, ListSummary } from '@family-shopping/client/protocol';
import type { Row } from '../shared/common.js';
import { recordMapper } from '../shared/record-fields.js';

/** The list doc, the REST list summary and detail, and the item: the protocol's shapes. */
export type ListRecord = DocData<'lists'>;
export type ItemRecord = DocData<'items'>;
export type { ListSummary, ListDetail, ItemGroup };

export interface ListCounts {
  itemCount: number;
  checkedCount: number;
}

export const toList: (row: Row) => ListRecord = recordMapper('lists');

/** Summary from a list row; counts from `counts` or the row's `item_count` / `checked_count`.
 *  The list record's keys in its order, the counts before `createdAt` (views.ts `listSummary`). */
export function toListSummary(row: Row, counts?: ListCounts): ListSummary {
  const { createdAt, updatedAt, ...list } = toList(row);
  return {
    ...list,
    itemCount: counts ? counts.itemCount : Number(row.item_count ?? 0),
    checkedCount: counts ? counts.checkedCount : Number(row.checked_count ?? 0),
    createdAt,
    updatedAt,
  };
}

/** The item record: the protocol's field table read from the row (no special case). */
export const toItem: (row: Row) => ItemRecord = recordMapper('items');
