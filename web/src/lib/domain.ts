/** Record shapes the pages show, and the SDK's offline domain API. */
import type { FamilyClient, DocData } from '@family-shopping/client';

export type List = DocData<'lists'>;
export type Item = DocData<'items'>;
export type Store = DocData<'stores'>;
export type Section = DocData<'sections'>;
export type Recipe = DocData<'recipes'>;
export type Ingredient = DocData<'ingredients'>;
export type Product = DocData<'products'>;
export type Unit = DocData<'units'>;

export interface ListSummary {
  id: string;
  name: string;
  storeId: string | null;
  archivedAt: string | null;
  itemCount: number;
  checkedCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface ListGroup {
  sectionId: string | null;
  name: string;
  position: number | null;
  items: Item[];
}

export interface ListDetail {
  id: string;
  name: string;
  storeId: string | null;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
  groups: ListGroup[];
}

/** The SDK's domain API (contract §8): every call writes the local database and works offline. */
export function domain(c: FamilyClient) {
  return c;
}
