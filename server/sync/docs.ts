// Row → replication doc mapping (api-contract §6): a doc is the REST record shape without
// `familyId`, plus `_deleted` (true for a tombstone row). The feature mappers (records.ts of
// each feature) build the record from the protocol's field table (server/shared/record-fields.ts),
// so it has exactly the wire schema's fields; this module only adds `_deleted`.
import type { CollectionName, Doc, DocData } from '@family-shopping/client/protocol';
import { toItem, toList } from '../lists/public.js';
import { toSection, toSectionMemory, toStore } from '../stores/public.js';
import { toIngredient, toRecipe } from '../recipes/public.js';
import { toProduct, toUnit, type EffectiveProductRow, type EffectiveUnitRow } from '../catalog/public.js';

export type Row = Record<string, unknown>;
export type WireDoc = Record<string, unknown> & { id: string; _deleted: boolean };

import { FAMILY_TABLE } from '../db/replicated-tables.js';

export { FAMILY_TABLE };

export type FamilyCollection = keyof typeof FAMILY_TABLE;

export function isFamilyCollection(c: CollectionName): c is FamilyCollection {
  return c in FAMILY_TABLE;
}

const MAPPERS: { [C in FamilyCollection]: (row: Row) => DocData<C> } = {
  lists: toList,
  items: toItem,
  stores: toStore,
  sections: toSection,
  recipes: toRecipe,
  ingredients: toIngredient,
  sectionMemory: toSectionMemory,
};

/** Doc of a row of a family table; a tombstone row gives its last state with `_deleted: true`. */
export function familyDoc<C extends FamilyCollection>(collection: C, row: Row): Doc<C> & WireDoc {
  // The record of C plus `_deleted` is Doc<C>; TypeScript cannot follow that through generic C.
  return { ...MAPPERS[collection](row), _deleted: !!row.deleted } as Doc<C> & WireDoc;
}

/** Doc of a row of the effective product catalog (the REST product record). */
export function productDoc(row: EffectiveProductRow, deleted = false): WireDoc {
  return { ...toProduct(row), _deleted: deleted };
}

/** Doc of a row of the effective unit catalog. */
export function unitDoc(row: EffectiveUnitRow, deleted = false): WireDoc {
  return { ...toUnit(row), _deleted: deleted };
}
