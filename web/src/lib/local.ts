/** Live reads of the local database for what the domain API has no view of (stores with
 * their sections, recipes with ingredients, lists to pick from). */
import type { FamilyClient } from '@family-shopping/client';
import { combineLatest, map, type Observable } from 'rxjs';
import type { Ingredient, Recipe, Section, Store } from './domain.ts';

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
