// Row → REST record mapping for stores, sections and section memory, from the protocol's field
// table (server/shared/record-fields.ts). Replication docs are these records plus `_deleted`, so
// they carry nothing else.
import type { DocData, PlacementSection } from '@family-shopping/client/protocol';
import type { Row } from '../shared/common.js';
import { recordMapper, withChildren } from '../shared/record-fields.js';

/** The store, section and section-memory docs: the protocol's shapes. */
export type StoreRecord = DocData<'stores'>;
export type SectionRecord = DocData<'sections'>;
export type SectionMemoryRecord = DocData<'sectionMemory'>;

/** The REST store: `{ id, name, sections, createdAt, updatedAt }`. */
export interface StoreWithSections {
  id: string;
  name: string;
  sections: SectionRecord[];
  createdAt: string;
  updatedAt: string;
}

/** The store doc (replication `stores`): the REST store without its sections. */
export const toStore: (row: Row) => StoreRecord = recordMapper('stores');

/** The REST store with its sections (rows in walking order). */
export function toStoreWithSections(row: Row, sectionRows: Row[]): StoreWithSections {
  return withChildren(toStore(row), 'sections', sectionRows.map(toSection));
}

export const toSection: (row: Row) => SectionRecord = recordMapper('sections');

/** A section row as placement by category reads it (protocol `placeItem`). */
export function toPlacementSection(row: Row): PlacementSection {
  const s = toSection(row);
  return { id: s.id, position: s.position, category: s.category, createdAt: s.createdAt };
}

export const toSectionMemory: (row: Row) => SectionMemoryRecord = recordMapper('sectionMemory');
