// Row → REST record mapping for recipes and ingredients. Replication docs are the recipe (without
// its ingredients) and the ingredient records plus `_deleted`, so they carry nothing else.
import type { DocData } from '@family-shopping/client/protocol';
import { iso, quantityOut, str, strOrNull, type Row } from '../shared/common.js';

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

const servingsOut = (v: unknown) => (v == null ? null : Number(v));

export function toRecipe(row: Row): RecipeRecord {
  return {
    id: str(row.id),
    name: str(row.name),
    servings: servingsOut(row.servings),
    instructions: strOrNull(row.instructions),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toRecipeDetail(row: Row, ingredientRows: Row[]): RecipeDetail {
  return {
    id: str(row.id),
    name: str(row.name),
    servings: servingsOut(row.servings),
    instructions: strOrNull(row.instructions),
    ingredients: ingredientRows.map(toIngredient),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toRecipeSummary(row: Row): RecipeSummary {
  return {
    id: str(row.id),
    name: str(row.name),
    servings: servingsOut(row.servings),
    ingredientCount: Number(row.ingredient_count ?? 0),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toIngredient(row: Row): IngredientRecord {
  return {
    id: str(row.id),
    recipeId: str(row.recipe_id),
    name: str(row.name),
    quantity: quantityOut(row.quantity),
    unitOfMeasureId: strOrNull(row.unit_of_measure_id),
    familyUnitOfMeasureId: strOrNull(row.family_unit_of_measure_id),
    isApproximate: !!row.is_approximate,
    quantityNote: strOrNull(row.quantity_note),
    productId: strOrNull(row.product_id),
    familyProductId: strOrNull(row.family_product_id),
    position: Number(row.position),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
