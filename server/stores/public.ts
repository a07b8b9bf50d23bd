// The front door of server/stores: what other features may use. Import it as
// '../stores/public.js'; the files behind it are this feature's own (docs/architecture.md).
export { recallSection, rememberSection } from './memory.js';
export { memoryRowsFor, sectionRow, sectionRows, sectionRowsByIds, storeRow } from './queries.js';
export { toPlacementSection, toSection, toSectionMemory, toStore } from './records.js';
export {
  createSection,
  createStore,
  deleteSection,
  deleteStore,
  renameStore,
  requireSectionAdmin,
  updateSection,
} from './service.js';
