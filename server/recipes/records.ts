// Row → REST record mapping for recipes and ingredients, from the protocol's field table
// (server/shared/record-fields.ts). Replication docs are the recipe (without its ingredients) and
// the ingredient records plus `_deleted`, so they carry nothing else.
import type { DocData } from '@family-shopping/client/protocol';
import type { Row } from '../shared/common.js';
import { recordMapper, withChildren } from '../shared/record-fields.js';

/** The recipe doc (replication `recipes`) and the ingredient: the protocol's shapes. */
export type RecipeRecord = DocData<'recipes'>;
export type IngredientRecord = DocData<'ingredients'>;

/** The REST recipe: with its ingredients in position order. */
export type RecipeDetail = RecipeRecord & { ingredients: IngredientRecord[] };

export interface RecipeSummary {
  id: string;
  name: string;
  servings: number | null;
  ingredientCount: number;
  createdAt: string;
  updatedAt: string;
}

export const toRecipe: (row: Row) => RecipeRecord = recordMapper('recipes');

export function toRecipeDetail(row: Row, ingredientRows: Row[]): RecipeDetail {
  return withChildren(toRecipe(row), 'ingredients', ingredientRows.map(toIngredient));
}

export function toRecipeSummary(row: Row): RecipeSummary {
  const { id, name, servings, createdAt, updatedAt } = toRecipe(row);
  return { id, name, servings, ingredientCount: Number(row.ingredient_count ?? 0), createdAt, updatedAt };
}

export const toIngredient: (row: Row) => IngredientRecord = recordMapper('ingredients');
