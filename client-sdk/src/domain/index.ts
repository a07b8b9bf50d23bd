/**
 * The offline domain layer (api-contract §8): every call validates with the protocol's rules,
 * applies the same behaviour as the REST endpoint locally and writes the local database only;
 * replication carries the writes to the server.
 */
import type { FamilyDatabase } from '../database.js';
import { Products, Units } from './catalog.js';
import type { DomainContext, DomainSession } from './context.js';
import { Items } from './items.js';
import { Lists } from './lists.js';
import { Ingredients, Recipes } from './recipes.js';
import { Sections, Stores } from './stores.js';

export { Lists, Items, Stores, Sections, Recipes, Ingredients, Products, Units };
export type { DomainSession };
export type {
  ListDoc,
  ItemDoc,
  StoreDoc,
  SectionDoc,
  RecipeDoc,
  IngredientDoc,
  ProductDoc,
  UnitDoc,
} from './context.js';

export interface Domain {
  readonly lists: Lists;
  readonly items: Items;
  readonly stores: Stores;
  readonly sections: Sections;
  readonly recipes: Recipes;
  readonly ingredients: Ingredients;
  readonly products: Products;
  readonly units: Units;
}

/** A clock that never repeats or goes back: writes made within one millisecond still get
 *  distinct, increasing times, so items keep the order they were added in. */
export function monotonicNow(): () => string {
  let last = 0;
  return () => {
    last = Math.max(Date.now(), last + 1);
    return new Date(last).toISOString();
  };
}

export function createDomain(
  db: FamilyDatabase,
  session: () => DomainSession | null,
  now: () => string = monotonicNow(),
  rest?: DomainContext['rest'],
): Domain {
  const ctx: DomainContext = { db, session, now, rest };
  const items = new Items(ctx);
  const ingredients = new Ingredients(ctx);
  return {
    lists: new Lists(ctx),
    items,
    stores: new Stores(ctx),
    sections: new Sections(ctx),
    recipes: new Recipes(ctx, ingredients, items),
    ingredients,
    products: new Products(ctx),
    units: new Units(ctx),
  };
}
