// Recipes with ordered ingredients, and copy-to-list (spec rule 4.1: quantity, unit ids,
// isApproximate, quantityNote and product ids copied verbatim, nothing folded into the name;
// remembered sections applied). Inner functions take a FamilyWrite `w` and the actor.
import type { Actor, Deps } from '../context.js';
import type { FamilyWrite } from '../db/family-write.js';
import { newId } from '../db/ids.js';
import { badRequest, notFound, validationFailed } from '../errors.js';
import { assertProductRef, assertUnitRef } from '../catalog/public.js';
import {
  existingForCreate,
  fieldPath,
  lower,
  updateRow,
  type Created,
  type PathOptions,
  type Row,
} from '../shared/common.js';
import {
  activeItemRows,
  createItem,
  listRow,
  quantityColumnsForAdd,
  toItem,
  updateItem,
  type ItemRecord,
} from '../lists/public.js';
import {
  QUANTITY_MAX,
  completePairs,
  findMergeTarget,
  mergedFields,
  patchRefs,
  scaleQuantity,
  QUANTITY_FIELDS,
  type QuantityPatch,
} from '@family-shopping/client/protocol';
import { changedColumns } from '../shared/record-fields.js';
import { ingredientRow, ingredientRows, maxIngredientPosition, recipeRow, recipeSummaryRows } from './queries.js';
import {
  toIngredient,
  toRecipeDetail,
  toRecipeSummary,
  type IngredientRecord,
  type RecipeDetail,
  type RecipeSummary,
} from './records.js';

type ReadDeps = Pick<Deps, 'db'>;

export interface IngredientInput extends QuantityPatch {
  id?: string;
  position?: number;
}

export type IngredientPatch = Partial<Omit<IngredientInput, 'id'>>;

export interface RecipeInput {
  id?: string;
  name: string;
  servings?: number | null;
  instructions?: string | null;
  ingredients?: IngredientInput[];
}

export interface RecipePatch {
  name?: string;
  servings?: number | null;
  instructions?: string | null;
}

export interface CopyInput {
  listId: string;
  ingredientIds?: string[];
  /** Quantities scaled from the recipe's servings to these (§10). */
  servings?: number;
  /** Add to a matching active unchecked item of the list instead of a new item (§10). */
  merge?: boolean;
}

async function liveRecipe(w: FamilyWrite, recipeId: string): Promise<Row> {
  const row = await recipeRow(w.trx, w.familyId, recipeId);
  if (!row) throw notFound('Recipe not found');
  return row;
}

async function detailIn(w: FamilyWrite, row: Row): Promise<RecipeDetail> {
  return toRecipeDetail(row, await ingredientRows(w.trx, w.familyId, String(row.id)));
}

// --- reads ---------------------------------------------------------------------------------

export async function listRecipes(deps: ReadDeps, actor: Actor): Promise<RecipeSummary[]> {
  return (await recipeSummaryRows(deps.db, actor.familyId)).map(toRecipeSummary);
}

export async function getRecipe(deps: ReadDeps, actor: Actor, recipeId: string): Promise<RecipeDetail> {
  const row = await recipeRow(deps.db, actor.familyId, recipeId);
  if (!row) throw notFound('Recipe not found');
  return toRecipeDetail(row, await ingredientRows(deps.db, actor.familyId, recipeId));
}

// --- recipes -------------------------------------------------------------------------------

/** Creates the recipe with its ingredients (positions default to their order in the input). */
export async function createRecipe(
  w: FamilyWrite,
  actor: Actor,
  input: RecipeInput,
  o: PathOptions = {},
): Promise<Created<RecipeDetail>> {
  const existing = await existingForCreate(w, 'recipes', lower(input.id));
  if (existing) return { record: await detailIn(w, existing), created: false };
  const row = await w.insert('recipes', {
    id: lower(input.id) ?? newId(),
    name: input.name,
    servings: input.servings ?? null,
    instructions: input.instructions ?? null,
  });
  for (const [i, ingredient] of (input.ingredients ?? []).entries()) {
    await addIngredient(
      w,
      actor,
      String(row.id),
      { position: i, ...ingredient },
      { prefix: fieldPath(o, `ingredients.${i}`) },
    );
  }
  return { record: await detailIn(w, row), created: true };
}

export async function updateRecipe(
  w: FamilyWrite,
  _actor: Actor,
  recipeId: string,
  patch: RecipePatch,
): Promise<RecipeDetail> {
  const row = await liveRecipe(w, recipeId);
  const change = changedColumns('recipes', ['name', 'servings', 'instructions'], row, patch);
  return detailIn(w, await updateRow(w, 'recipes', row, change));
}

/** Tombstones the recipe and its ingredients. */
export async function deleteRecipe(w: FamilyWrite, _actor: Actor, recipeId: string): Promise<void> {
  await liveRecipe(w, recipeId);
  await w.tombstone('recipe_ingredients', { recipe_id: recipeId });
  await w.tombstone('recipes', { id: recipeId });
}

// --- ingredients ---------------------------------------------------------------------------

/** Adds an ingredient (appended when no position). Same unit and product rules as items. */
export async function addIngredient(
  w: FamilyWrite,
  _actor: Actor,
  recipeId: string,
  input: IngredientInput,
  o: PathOptions = {},
): Promise<Created<IngredientRecord>> {
  await liveRecipe(w, recipeId);
  const existing = await existingForCreate(w, 'recipe_ingredients', lower(input.id));
  if (existing) return { record: toIngredient(existing), created: false };
  const { columns } = await quantityColumnsForAdd(w, input, o);
  let position = input.position;
  if (position === undefined) {
    const max = await maxIngredientPosition(w.trx, w.familyId, recipeId);
    position = max == null ? 0 : max + 1;
  }
  const row = await w.insert('recipe_ingredients', {
    id: lower(input.id) ?? newId(),
    recipe_id: recipeId,
    ...columns,
    position,
  });
  return { record: toIngredient(row), created: true };
}

/** The fields an ingredient edit writes as they come. */
const EDITED_FIELDS = [...QUANTITY_FIELDS, 'position'] as const;

/** Partial edit. As for items, setting one id of a pair while not sending the other clears it. */
export async function updateIngredient(
  w: FamilyWrite,
  _actor: Actor,
  recipeId: string,
  ingredientId: string,
  patch: IngredientPatch,
  o: PathOptions = {},
): Promise<IngredientRecord> {
  await liveRecipe(w, recipeId);
  const row = await ingredientRow(w.trx, w.familyId, recipeId, ingredientId);
  if (!row) throw notFound('Ingredient not found');
  // Setting one id of a pair (and not sending the other) switches the pair over.
  const p: IngredientPatch = completePairs({
    ...patch,
    unitOfMeasureId: lower(patch.unitOfMeasureId),
    familyUnitOfMeasureId: lower(patch.familyUnitOfMeasureId),
    productId: lower(patch.productId),
    familyProductId: lower(patch.familyProductId),
  });
  const refs = patchRefs(p);
  await assertUnitRef(w.trx, w.familyId, refs.unit, o);
  await assertProductRef(w.trx, w.familyId, refs.product, o);
  const change = changedColumns('ingredients', EDITED_FIELDS, row, p);
  return toIngredient(await updateRow(w, 'recipe_ingredients', row, change));
}

export async function deleteIngredient(
  w: FamilyWrite,
  _actor: Actor,
  recipeId: string,
  ingredientId: string,
): Promise<void> {
  await liveRecipe(w, recipeId);
  if (!(await ingredientRow(w.trx, w.familyId, recipeId, ingredientId))) throw notFound('Ingredient not found');
  await w.tombstone('recipe_ingredients', { id: ingredientId });
}

// --- copy to list --------------------------------------------------------------------------

/**
 * One new item per ingredient (all, or those named in `ingredientIds`, in position order): name,
 * quantity, both unit ids, isApproximate, quantityNote and both product ids verbatim, placed as
 * any new item (through createItem, which also emits ItemAdded, ItemSectionChanged and
 * ListProgress). With `servings` other than the recipe's, every quantity is `scaleQuantity`'d
 * (§10). With `merge`, an ingredient whose `findMergeTarget` among the items that were on the
 * list before the copy finds one adds to it instead (`mergedFields`, written by updateItem as a
 * PATCH would be, with its events); each such item is listed once in `merged`, as it ends.
 * Refusals: a list that is not the family's, 400 list_not_found; an ingredient id not of this
 * recipe, 400 ingredient_not_found; `servings` for a recipe without servings, 400
 * recipe_servings_unset; a scaled or summed quantity beyond the largest a quantity may be, 400
 * validation_failed.
 */
export async function copyRecipeToList(
  w: FamilyWrite,
  actor: Actor,
  recipeId: string,
  input: CopyInput,
  o: PathOptions = {},
): Promise<{ items: ItemRecord[]; merged: ItemRecord[] }> {
  const recipe = await liveRecipe(w, recipeId);
  const listId = input.listId.toLowerCase();
  if (!(await listRow(w.trx, w.familyId, listId))) {
    throw badRequest('list_not_found', 'The list does not exist', [
      { path: fieldPath(o, 'listId'), message: 'unknown list' },
    ]);
  }
  let ingredients = await ingredientRows(w.trx, w.familyId, recipeId);
  if (input.ingredientIds) {
    const wanted = input.ingredientIds.map((id) => id.toLowerCase());
    const known = new Set(ingredients.map((i) => String(i.id)));
    const unknown = wanted.findIndex((id) => !known.has(id));
    if (unknown >= 0) {
      throw badRequest('ingredient_not_found', 'The ingredient is not part of this recipe', [
        { path: fieldPath(o, `ingredientIds.${unknown}`), message: 'not an ingredient of this recipe' },
      ]);
    }
    const chosen = new Set(wanted);
    ingredients = ingredients.filter((i) => chosen.has(String(i.id)));
  }
  const recipeServings = recipe.servings == null ? null : Number(recipe.servings);
  if (input.servings !== undefined && recipeServings == null) {
    throw badRequest('recipe_servings_unset', 'The recipe has no servings to scale from', [
      { path: fieldPath(o, 'servings'), message: 'the recipe has no servings to scale from' },
    ]);
  }
  const scale = (q: number | null) =>
    input.servings === undefined || recipeServings == null ? q : scaleQuantity(q, recipeServings, input.servings);
  const tooLarge = (field: string, what: string) =>
    validationFailed([{ path: fieldPath(o, field), message: `${what} would exceed ${QUANTITY_MAX}` }]);

  // Merge targets: the list's items as they were before the copy; their quantities follow the
  // merges made (two ingredients of one product and unit both add to the same item).
  const before = input.merge ? (await activeItemRows(w.trx, w.familyId, listId)).map(toItem) : [];
  const copied = ingredients.map(toIngredient);
  const items: ItemRecord[] = [];
  const merged = new Map<string, ItemRecord>();
  // One write has one time: new items are 1 ms apart (the last at the write's time, so createdAt
  // never exceeds updatedAt) and keep the recipe's order by createdAt.
  const toAdd = copied.filter((ing) => !(input.merge && findMergeTarget(ing, scale(ing.quantity), before)));
  let n = 0;
  for (const ing of copied) {
    const quantity = scale(ing.quantity);
    if (quantity != null && quantity > QUANTITY_MAX) throw tooLarge('servings', `the quantity of ${ing.name}`);
    const target = input.merge ? findMergeTarget(ing, quantity, before) : null;
    if (target && quantity != null) {
      const fields = mergedFields(target, { quantity, isApproximate: ing.isApproximate });
      if (fields.quantity > QUANTITY_MAX) throw tooLarge('merge', `the quantity of ${target.name}`);
      const item = await updateItem(w, actor, listId, target.id, fields);
      Object.assign(target, item);
      merged.set(item.id, item);
      continue;
    }
    const itemInput = {
      name: ing.name,
      quantity,
      unitOfMeasureId: ing.unitOfMeasureId,
      familyUnitOfMeasureId: ing.familyUnitOfMeasureId,
      isApproximate: ing.isApproximate,
      quantityNote: ing.quantityNote,
      productId: ing.productId,
      familyProductId: ing.familyProductId,
    };
    const createdAt = new Date(w.now.getTime() - (toAdd.length - 1 - n++));
    const { record } = await createItem(w, actor, listId, itemInput, { createdAt });
    items.push(record);
  }
  return { items, merged: [...merged.values()] };
}
