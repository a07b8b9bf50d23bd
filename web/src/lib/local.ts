/** Live reads of the local database for what the domain API has no view of (stores with
 * their sections, recipes with ingredients, where a new item would be placed). */
import { placeItem, type FamilyClient, type Placement } from '@family-shopping/client';
import { combineLatest, map, of, type Observable } from 'rxjs';
import type { Ingredient, Product, Recipe, Section, Store } from './domain.ts';

const byName = (a: { name: string }, b: { name: string }) =>
  a.name.localeCompare(b.name, undefined, { sensitivity: 'base' });

export type StoreWithSections = Store & { sections: Section[] };

export function stores$(c: FamilyClient): Observable<StoreWithSections[]> {
  return combineLatest([c.db.stores.find().$, c.db.sections.find().$]).pipe(
    map(([stores, sections]) => {
      const all = sections.map((s) => s.toJSON() as Section);
      return stores
        .map((s) => s.toJSON() as Store)
        .sort(byName)
        .map((s) => ({
          ...s,
          sections: all
            .filter((x) => x.storeId === s.id)
            .sort((a, b) => a.position - b.position || a.name.localeCompare(b.name)),
        }));
    }),
  );
}

export function recipes$(c: FamilyClient): Observable<(Recipe & { ingredientCount: number })[]> {
  return combineLatest([c.db.recipes.find().$, c.db.ingredients.find().$]).pipe(
    map(([recipes, ingredients]) =>
      recipes
        .map((r) => r.toJSON() as Recipe)
        .sort(byName)
        .map((r) => ({ ...r, ingredientCount: ingredients.filter((i) => i.recipeId === r.id).length })),
    ),
  );
}

export function recipe$(c: FamilyClient, id: string): Observable<(Recipe & { ingredients: Ingredient[] }) | null> {
  return combineLatest([c.db.recipes.findOne(id).$, c.db.ingredients.find({ selector: { recipeId: id } }).$]).pipe(
    map(([r, ings]) =>
      r
        ? {
            ...(r.toJSON() as Recipe),
            ingredients: ings
              .map((i) => i.toJSON() as Ingredient)
              .sort((a, b) => a.position - b.position || a.createdAt.localeCompare(b.createdAt)),
          }
        : null,
    ),
  );
}

const NOWHERE: Placement = { sectionId: null, by: 'none' };

/**
 * Where the SDK's `items.add` places a new item with `product` on a list of store `storeId`
 * when no section is given (contract §10): the protocol's `placeItem` over the local sections
 * of the store, the store's section memory for the product and the product's category. The
 * add form preselects it; it updates live as sections, memory or the product change.
 */
export function placement$(c: FamilyClient, storeId: string | null, product: Product | null): Observable<Placement> {
  if (!storeId) return of(NOWHERE);
  const memory$ = product
    ? c.db.sectionMemory.find({
        selector:
          product.kind === 'global' ? { storeId, productId: product.id } : { storeId, familyProductId: product.id },
      }).$
    : of([]);
  return combineLatest([c.db.sections.find({ selector: { storeId } }).$, memory$]).pipe(
    map(([docs, memory]) => {
      const sections = docs.map((s) => s.toJSON() as Section);
      // As the SDK recalls it: the most recently updated memory row, if its section still exists.
      const newest = memory.map((m) => m.toJSON()).sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt))[0];
      const remembered = newest && sections.some((s) => s.id === newest.sectionId) ? newest.sectionId : null;
      return placeItem({ remembered, productCategory: product?.category ?? null, sections });
    }),
  );
}
