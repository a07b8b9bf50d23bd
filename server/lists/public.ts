// The front door of server/lists: what other features may use. Import it as
// '../lists/public.js'; the files behind it are this feature's own (docs/architecture.md).
export {
  createItem,
  emitItemAdded,
  emitItemUpdated,
  emitListProgress,
  planCreateItem,
  planUpdateItem,
  quantityColumnsForAdd,
  removalColumns,
  removeItem,
  restoreItem,
  updateItem,
  type ItemInput,
  type ItemPatch,
  type ItemUpdatePlan,
  type KnownItemRefs,
} from './items.js';
export { ITEM_DOC_JSON, itemRows as activeItemRows, listRow, listRowsByIds } from './queries.js';
export { toItem, toList, type ItemRecord } from './records.js';
export { ItemSchema, QUANTITY_REFS } from './schemas.js';
export {
  archiveList,
  createList,
  deleteList,
  deleteProductAndUnlinkItems,
  deleteStoreAndDetachLists,
  unarchiveList,
  updateList,
} from './service.js';
