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
import { uuid, writeAs } from '../shared/common.js';
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
const TAG = 'Recipes';
const notFound = { description: 'Not found' };
const refsInvalid = { description: 'Invalid; unit_not_found or product_not_found' };

export function registerRecipeRoutes(api: ApiRouter, deps: Deps): void {
  api.add(
    {
      method: 'get',
      path: '/recipes',
      summary: "The family's recipes",
      tag: TAG,
      access: 'member',
      responses: { 200: { description: 'Recipes', schema: z.array(RecipeSummarySchema) } },
    },
    async (ctx, { actor }) => {
      ctx.body = await listRecipes(deps, actor);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/recipes',
      summary: 'Create a recipe, optionally with ingredients',
      tag: TAG,
      access: 'member',
      body: RecipeBody,
      // Nested ingredient refs (`ingredients.N.unitOfMeasureId`, ...) follow the ingredient rules.
      responses: {
        201: { description: 'Created', schema: RecipeSchema },
        200: { description: 'A recipe with that id already exists in the family', schema: RecipeSchema },
        400: refsInvalid,
        409: { description: 'Id taken elsewhere (id_conflict)' },
      },
    },
    async (ctx, { actor, body }) => {
      const r = await writeAs(deps, actor, (w) => createRecipe(w, actor, body));
      ctx.status = r.created ? 201 : 200;
      ctx.body = r.record;
    },
  );

  api.add(
    {
      method: 'get',
      path: '/recipes/:recipeId',
      summary: 'A recipe with its ingredients in position order',
      tag: TAG,
      access: 'member',
      params: RecipeParams,
      responses: { 200: { description: 'Recipe', schema: RecipeSchema }, 404: notFound },
    },
    async (ctx, { actor, params }) => {
      ctx.body = await getRecipe(deps, actor, params.recipeId);
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/recipes/:recipeId',
      summary: 'Edit a recipe',
      tag: TAG,
      access: 'member',
      params: RecipeParams,
      body: RecipePatchBody,
      responses: { 200: { description: 'Recipe', schema: RecipeSchema }, 404: notFound },
    },
    async (ctx, { actor, params, body }) => {
      ctx.body = await writeAs(deps, actor, (w) => updateRecipe(w, actor, params.recipeId, body));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/recipes/:recipeId',
      summary: 'Delete a recipe and its ingredients',
      tag: TAG,
      access: 'member',
      params: RecipeParams,
      responses: { 204: { description: 'Deleted' }, 404: notFound },
    },
    async (ctx, { actor, params }) => {
      await writeAs(deps, actor, (w) => deleteRecipe(w, actor, params.recipeId));
      ctx.status = 204;
    },
  );

  api.add(
    {
      method: 'post',
      path: '/recipes/:recipeId/ingredients',
      summary: 'Add an ingredient (appended when no position)',
      tag: TAG,
      access: 'member',
      params: RecipeParams,
      body: IngredientBody,
      bodyRefs: QUANTITY_REFS,
      responses: {
        201: { description: 'Created', schema: IngredientSchema },
        200: { description: 'An ingredient with that id already exists in the family', schema: IngredientSchema },
        400: refsInvalid,
        404: notFound,
        409: { description: 'Id taken elsewhere (id_conflict)' },
      },
    },
    async (ctx, { actor, params, body }) => {
      const r = await writeAs(deps, actor, (w) => addIngredient(w, actor, params.recipeId, body));
      ctx.status = r.created ? 201 : 200;
      ctx.body = r.record;
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/recipes/:recipeId/ingredients/:ingredientId',
      summary: 'Edit an ingredient (partial)',
      tag: TAG,
      access: 'member',
      params: IngredientParams,
      body: IngredientPatchBody,
      bodyRefs: QUANTITY_REFS,
      responses: { 200: { description: 'Ingredient', schema: IngredientSchema }, 400: refsInvalid, 404: notFound },
    },
    async (ctx, { actor, params, body }) => {
      ctx.body = await writeAs(deps, actor, (w) =>
        updateIngredient(w, actor, params.recipeId, params.ingredientId, body),
      );
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/recipes/:recipeId/ingredients/:ingredientId',
      summary: 'Delete an ingredient',
      tag: TAG,
      access: 'member',
      params: IngredientParams,
      responses: { 204: { description: 'Deleted' }, 404: notFound },
    },
    async (ctx, { actor, params }) => {
      await writeAs(deps, actor, (w) => deleteIngredient(w, actor, params.recipeId, params.ingredientId));
      ctx.status = 204;
    },
  );

  api.add(
    {
      method: 'post',
      path: '/recipes/:recipeId/copy-to-list',
      summary:
        'Copy the ingredients (all or some) onto a list as items, verbatim or scaled to other servings, optionally merged into matching items',
      tag: TAG,
      access: 'member',
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
        404: notFound,
      },
    },
    async (ctx, { actor, params, body }) => {
      ctx.body = await writeAs(deps, actor, (w) => copyRecipeToList(w, actor, params.recipeId, body));
      ctx.status = 201;
    },
  );
}
