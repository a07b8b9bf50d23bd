// Row → REST record mapping for stores, sections and section memory. Replication docs are these
// records plus `_deleted`, so they carry nothing else.
import type { Category, DocData, PlacementSection } from '@family-shopping/client/protocol';
import { iso, str, strOrNull, type Row } from '../shared/common.js';

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
export function toStore(row: Row): StoreRecord {
  return { id: str(row.id), name: str(row.name), createdAt: iso(row.created_at), updatedAt: iso(row.updated_at) };
}

/** The REST store with its sections (rows in walking order). */
export function toStoreWithSections(row: Row, sectionRows: Row[]): StoreWithSections {
  return {
    id: str(row.id),
    name: str(row.name),
    sections: sectionRows.map(toSection),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toSection(row: Row): SectionRecord {
  return {
    id: str(row.id),
    storeId: str(row.store_id),
    name: str(row.name),
    position: Number(row.position),
    category: (row.category ?? null) as Category | null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** A section row as placement by category reads it (protocol `placeItem`). */
export function toPlacementSection(row: Row): PlacementSection {
  const s = toSection(row);
  return { id: s.id, position: s.position, category: s.category, createdAt: s.createdAt };
}

export function toSectionMemory(row: Row): SectionMemoryRecord {
  return {
    id: str(row.id),
    storeId: str(row.store_id),
    productId: strOrNull(row.product_id),
    familyProductId: strOrNull(row.family_product_id),
    sectionId: str(row.section_id),
    updatedAt: iso(row.updated_at),
  };
}
