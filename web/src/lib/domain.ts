/**
 * The SDK's offline domain API (contract §8), typed for the pages. Every call writes the
 * local database and works offline; replication sends it on.
 */
import type { FamilyClient, DocData } from '@family-shopping/client';
import type { Observable } from 'rxjs';

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

export interface ItemInput {
  name?: string;
  quantity?: number | null;
  unitOfMeasureId?: string | null;
  familyUnitOfMeasureId?: string | null;
  isApproximate?: boolean;
  quantityNote?: string | null;
  productId?: string | null;
  familyProductId?: string | null;
  sectionId?: string | null;
}

export interface IngredientInput extends Omit<ItemInput, 'sectionId'> {
  position?: number;
}

export interface Domain {
  lists: {
    create(input: { name: string; storeId?: string | null }): Promise<List>;
    update(listId: string, patch: { name?: string; storeId?: string | null }): Promise<List>;
    archive(listId: string): Promise<List>;
    unarchive(listId: string): Promise<List>;
    delete(listId: string): Promise<unknown>;
    summaries$(options?: { archived?: boolean }): Observable<ListSummary[]>;
    detail$(listId: string): Observable<ListDetail | null>;
  };
  items: {
    add(listId: string, input: ItemInput): Promise<Item>;
    update(listId: string, itemId: string, patch: ItemInput & { checked?: boolean }): Promise<Item>;
    toggle(listId: string, itemId: string): Promise<Item>;
    remove(listId: string, itemId: string): Promise<Item>;
    restore(listId: string, itemId: string): Promise<Item>;
  };
  stores: {
    create(input: { name: string }): Promise<Store>;
    update(storeId: string, patch: { name: string }): Promise<Store>;
    delete(storeId: string): Promise<unknown>;
  };
  sections: {
    add(storeId: string, input: { name: string; position?: number }): Promise<Section>;
    rename(storeId: string, sectionId: string, input: { name: string }): Promise<Section>;
    reorder(storeId: string, sectionIds: string[]): Promise<unknown>;
    delete(storeId: string, sectionId: string): Promise<unknown>;
  };
  recipes: {
    create(input: { name: string; servings?: number | null; instructions?: string | null; ingredients?: IngredientInput[] }): Promise<Recipe>;
    update(recipeId: string, patch: { name?: string; servings?: number | null; instructions?: string | null }): Promise<Recipe>;
    delete(recipeId: string): Promise<unknown>;
    copyToList(recipeId: string, input: { listId: string; ingredientIds?: string[] }): Promise<unknown>;
  };
  ingredients: {
    add(recipeId: string, input: IngredientInput): Promise<Ingredient>;
    update(recipeId: string, ingredientId: string, patch: IngredientInput): Promise<Ingredient>;
    delete(recipeId: string, ingredientId: string): Promise<unknown>;
  };
  products: { search$(q: string, options?: { limit?: number }): Observable<Product[]> };
  units: { all$(): Observable<Unit[]> };
}

export function domain(c: FamilyClient): Domain {
  return c as unknown as Domain;
}
