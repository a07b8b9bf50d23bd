// HTTP for recipes, ingredients and copy-to-list (contract §4 "Recipes").
import { z } from 'zod';
import type { Deps } from '../context.js';
import type { ApiRouter } from '../http/route.js';
import {
  copyToListInput,
  ingredientAddInput,
  ingredientUpdateInput,
  recipeCreateInput,
  recipeUpdateInput,
  recordSchemas,
} from '@family-shopping/client/protocol';
import { uuid } from '../shared/common.js';
import { featureRoutes } from '../http/feature-routes.js';
import { createdById, deleted, NOT_FOUND } from '../openapi/responses.js';
import { ItemSchema, QUANTITY_REFS } from '../lists/public.js';
import {
  addIngredient,
  copyRecipeToList,
  createRecipe,
  deleteIngredient,
  deleteRecipe,
  getRecipe,
  listRecipes,
  updateIngredient,
  updateRecipe,
} from './service.js';

// Bodies and records: the protocol's inputs and shapes (the rules push and the SDK apply too).
const IngredientBody = ingredientAddInput;
const IngredientPatchBody = ingredientUpdateInput;
const RecipeBody = recipeCreateInput;
const RecipePatchBody = recipeUpdateInput;
const CopyBody = copyToListInput;

export const IngredientSchema = recordSchemas.ingredients;
export const RecipeSchema = z.object({
  ...recordSchemas.recipes.shape,
  ingredients: z.array(recordSchemas.ingredients),
});
const RecipeSummarySchema = z.object({
  id: recordSchemas.recipes.shape.id,
  name: recordSchemas.recipes.shape.name,
  servings: recordSchemas.recipes.shape.servings,
  ingredientCount: z.int().min(0),
  createdAt: recordSchemas.recipes.shape.createdAt,
  updatedAt: recordSchemas.recipes.shape.updatedAt,
});

const CopyResult = z.object({
  items: z.array(ItemSchema).meta({ description: 'New items, in ingredient order' }),
  merged: z
    .array(ItemSchema)
    .meta({ description: 'Items that were on the list and took an ingredient’s quantity (merge), as they end' }),
});

const RecipeParams = z.object({ recipeId: uuid() });
const IngredientParams = z.object({ recipeId: uuid(), ingredientId: uuid() });
const refsInvalid = { description: 'Invalid; unit_not_found or product_not_found' };

export function registerRecipeRoutes(api: ApiRouter, deps: Deps): void {
  const routes = featureRoutes(api, deps, 'Recipes');

  routes.read(
    {
      method: 'get',
      path: '/recipes',
      summary: "The family's recipes",
      responses: { 200: { description: 'Recipes', schema: z.array(RecipeSummarySchema) } },
    },
    ({ actor }) => listRecipes(deps, actor),
  );

  routes.create(
    {
      method: 'post',
      path: '/recipes',
      summary: 'Create a recipe, optionally with ingredients',
      body: RecipeBody,
      // Nested ingredient refs (`ingredients.N.unitOfMeasureId`, ...) follow the ingredient rules.
      responses: createdById(RecipeSchema, 'A recipe', { 400: refsInvalid }),
    },
    (w, { actor, body }) => createRecipe(w, actor, body),
  );

  routes.read(
    {
      method: 'get',
      path: '/recipes/:recipeId',
      summary: 'A recipe with its ingredients in position order',
      params: RecipeParams,
      responses: { 200: { description: 'Recipe', schema: RecipeSchema }, 404: NOT_FOUND },
    },
    ({ actor, params }) => getRecipe(deps, actor, params.recipeId),
  );

  routes.write(
    {
      method: 'patch',
      path: '/recipes/:recipeId',
      summary: 'Edit a recipe',
      params: RecipeParams,
      body: RecipePatchBody,
      responses: { 200: { description: 'Recipe', schema: RecipeSchema }, 404: NOT_FOUND },
    },
    (w, { actor, params, body }) => updateRecipe(w, actor, params.recipeId, body),
  );

  routes.remove(
    {
      method: 'delete',
      path: '/recipes/:recipeId',
      summary: 'Delete a recipe and its ingredients',
      params: RecipeParams,
      responses: deleted(),
    },
    (w, { actor, params }) => deleteRecipe(w, actor, params.recipeId),
  );

  routes.create(
    {
      method: 'post',
      path: '/recipes/:recipeId/ingredients',
      summary: 'Add an ingredient (appended when no position)',
      params: RecipeParams,
      body: IngredientBody,
      bodyRefs: QUANTITY_REFS,
      responses: createdById(IngredientSchema, 'An ingredient', { 400: refsInvalid, 404: NOT_FOUND }),
    },
    (w, { actor, params, body }) => addIngredient(w, actor, params.recipeId, body),
  );

  routes.write(
    {
      method: 'patch',
      path: '/recipes/:recipeId/ingredients/:ingredientId',
      summary: 'Edit an ingredient (partial)',
      params: IngredientParams,
      body: IngredientPatchBody,
      bodyRefs: QUANTITY_REFS,
      responses: { 200: { description: 'Ingredient', schema: IngredientSchema }, 400: refsInvalid, 404: NOT_FOUND },
    },
    (w, { actor, params, body }) => updateIngredient(w, actor, params.recipeId, params.ingredientId, body),
  );

  routes.remove(
    {
      method: 'delete',
      path: '/recipes/:recipeId/ingredients/:ingredientId',
      summary: 'Delete an ingredient',
      params: IngredientParams,
      responses: deleted(),
    },
    (w, { actor, params }) => deleteIngredient(w, actor, params.recipeId, params.ingredientId),
  );

  routes.write(
    {
      method: 'post',
      path: '/recipes/:recipeId/copy-to-list',
      summary:
        'Copy the ingredients (all or some) onto a list as items, verbatim or scaled to other servings, optionally merged into matching items',
      params: RecipeParams,
      body: CopyBody,
      bodyRefs: ['listId', 'ingredientIds'],
      responses: {
        201: {
          description: 'The new items, and the items of the list the copy added to (merge)',
          schema: CopyResult,
        },
        400: {
          description:
            'Invalid; list_not_found, ingredient_not_found, or recipe_servings_unset (servings asked of a recipe without servings)',
        },
        404: NOT_FOUND,
      },
    },
    (w, { actor, params, body }) => copyRecipeToList(w, actor, params.recipeId, body),
    201,
  );
}
