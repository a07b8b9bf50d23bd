/**
 * `client.recipes` and `client.ingredients`: recipes with ordered ingredients and copy-to-list,
 * offline, with the rules of `/api/recipes…` (ingredients follow the unit and product rules of
 * items; copy-to-list copies name, quantity, both unit ids, `isApproximate`, `quantityNote` and
 * both product ids, scales quantities to other servings, merges into matching items of the list
 * on request (§10) and places new items as `items.add` does).
 */
import {
  QUANTITY_MAX,
  copyToListInput,
  findMergeTarget,
  mergedFields,
  scaleQuantity,
  completePairs,
  ingredientAddInput,
  ingredientUpdateInput,
  recipeCreateInput,
  recipeUpdateInput,
  type CopyToListInput,
  type IngredientAddInput,
  type IngredientUpdateInput,
  type RecipeCreateInput,
  type RecipeUpdateInput,
} from '../protocol/index.js';
import { FamilyClientError } from '../errors.js';
import {
  DomainModule,
  invalidField,
  notFound,
  parseInput,
  plain,
  type DomainContext,
  type RecipeDoc,
  type IngredientDoc,
  type ItemDoc,
} from './context.js';
import type { Items } from './items.js';
import { checkRefs, quantityFieldsForAdd } from './refs.js';

/** A copy whose scaled or merged quantity would pass the limit (REST's paths and message). */
const tooLarge = (field: 'servings' | 'merge', name: string) =>
  invalidField(field, `the quantity of ${name} would exceed ${QUANTITY_MAX}`);

/** What `client.recipes` and `client.ingredients` both read. */
abstract class RecipeModule extends DomainModule {
  protected liveRecipe(recipeId: string) {
    return this.liveDoc('recipes', recipeId, 'Recipe');
  }

  /** Ingredients of a recipe in position order (then id). */
  protected async ingredientsOf(recipeId: string) {
    return (await this.findDocs('ingredients', { recipeId })).sort(
      (a, b) =>
        a.position - b.position ||
        Date.parse(a.createdAt) - Date.parse(b.createdAt) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
  }
}

export class Ingredients extends RecipeModule {
  /** Adds an ingredient (appended when no position). Without a name it takes its product's. */
  async add(recipeId: string, input: IngredientAddInput, prefix?: string): Promise<IngredientDoc> {
    const v = parseInput(ingredientAddInput, input, prefix);
    const recipe = await this.liveRecipe(recipeId);
    return this.insert(recipe.id, v, prefix);
  }

  /** Partial edit; as for items, setting one id of a pair while not sending the other clears the other. */
  async update(recipeId: string, ingredientId: string, patch: IngredientUpdateInput): Promise<IngredientDoc> {
    const p = completePairs(parseInput(ingredientUpdateInput, patch));
    const doc = await this.ingredient(recipeId, ingredientId);
    await checkRefs(this.ctx, p);
    return this.patchDoc(doc, p);
  }

  /** Resolves to the ingredient as it was. */
  async delete(recipeId: string, ingredientId: string): Promise<IngredientDoc> {
    const doc = await this.ingredient(recipeId, ingredientId);
    return this.removeDoc(doc);
  }

  /** @internal validated input → written ingredient (recipes.create uses it too). */
  async insert(
    recipeId: string,
    v: ReturnType<typeof ingredientAddInput.parse>,
    prefix?: string,
  ): Promise<IngredientDoc> {
    const existing = await this.existingDoc('ingredients', v.id);
    if (existing) return existing;
    const fields = await quantityFieldsForAdd(this.ctx, v, prefix);
    let position = v.position;
    if (position === undefined) {
      const existing = await this.ingredientsOf(recipeId);
      position = existing.length === 0 ? 0 : Math.max(...existing.map((i) => i.position)) + 1;
    }
    return this.insertDoc('ingredients', { id: v.id, recipeId, ...fields, position });
  }

  private async ingredient(recipeId: string, ingredientId: string) {
    const recipe = await this.liveRecipe(recipeId);
    const doc = await this.findDoc('ingredients', String(ingredientId).toLowerCase());
    if (!doc || doc.recipeId !== recipe.id) throw notFound('Ingredient');
    return doc;
  }
}

export class Recipes extends RecipeModule {
  constructor(
    ctx: DomainContext,
    private readonly ingredients: Ingredients,
    private readonly items: Items,
  ) {
    super(ctx);
  }

  /** Creates the recipe with its ingredients (positions default to their order in the input). */
  async create(input: RecipeCreateInput): Promise<RecipeDoc> {
    const v = parseInput(recipeCreateInput, input);
    const existing = await this.existingDoc('recipes', v.id);
    if (existing) return existing;
    // The ingredients' references are checked before anything is written.
    for (const [i, ing] of (v.ingredients ?? []).entries()) await checkRefs(this.ctx, ing, `ingredients.${i}`);
    const written = await this.insertDoc('recipes', {
      id: v.id,
      name: v.name,
      servings: v.servings ?? null,
      instructions: v.instructions ?? null,
    });
    for (const [i, ing] of (v.ingredients ?? []).entries()) {
      await this.ingredients.insert(written.id, { position: i, ...ing }, `ingredients.${i}`);
    }
    return written;
  }

  async update(recipeId: string, patch: RecipeUpdateInput): Promise<RecipeDoc> {
    const v = parseInput(recipeUpdateInput, patch);
    const doc = await this.liveRecipe(recipeId);
    return this.patchDoc(doc, v);
  }

  /** Deletes the recipe and its ingredients; resolves to the recipe as it was. */
  async delete(recipeId: string): Promise<RecipeDoc> {
    const doc = await this.liveRecipe(recipeId);
    return this.removeDoc(doc, () => this.removeDocs('ingredients', { recipeId: doc.id }));
  }

  /**
   * `POST /api/recipes/{id}/copy-to-list` (§10): one new item per ingredient (all, or those
   * named in `ingredientIds`, in position order), placed as `items.add` places them. With
   * `servings` other than the recipe's, every quantity is scaled (`scaleQuantity`); a recipe
   * without servings refuses `servings` with `FamilyClientError` `recipe_servings_unset` (REST's
   * code; `errors` names `servings`). With `merge: true` an ingredient with a product adds its
   * quantity to the matching active unchecked item that was on the list before the copy
   * (`findMergeTarget`, `mergedFields`), listed in `merged` instead of a new item in `items`.
   * The domain's clock never repeats a time, so the new items' `createdAt` keeps the recipe's order.
   */
  async copyToList(recipeId: string, input: CopyToListInput): Promise<{ items: ItemDoc[]; merged: ItemDoc[] }> {
    const v = parseInput(copyToListInput, input);
    const recipe = await this.liveRecipe(recipeId);
    const list = await this.findDoc('lists', v.listId);
    if (!list) throw invalidField('listId', 'unknown list');
    let ingredients = await this.ingredientsOf(recipe.id);
    if (v.ingredientIds) {
      const known = new Set(ingredients.map((i) => i.id));
      const unknown = v.ingredientIds.findIndex((id) => !known.has(id));
      if (unknown >= 0) throw invalidField(`ingredientIds.${unknown}`, 'not an ingredient of this recipe');
      const chosen = new Set(v.ingredientIds);
      ingredients = ingredients.filter((i) => chosen.has(i.id));
    }
    if (v.servings !== undefined && recipe.servings == null) {
      const message = 'the recipe has no servings to scale from';
      throw new FamilyClientError('recipe_servings_unset', `invalid input: servings: ${message}`, {
        errors: [{ path: 'servings', message }],
      });
    }
    const scale = (q: number | null) =>
      v.servings === undefined || recipe.servings == null ? q : scaleQuantity(q, recipe.servings, v.servings);
    // Merge targets: the list's items as they were before the copy (their quantities follow the
    // merges). Planned first, so that a quantity over the limit refuses the copy before anything
    // is written (REST: one transaction).
    const before = v.merge ? (await this.findDocs('items', { listId: list.id })).map((d) => plain(d)) : [];
    const plan: { ing: IngredientDoc; quantity: number | null; target: ItemDoc | null }[] = [];
    for (const ing of ingredients) {
      const quantity = scale(ing.quantity);
      if (quantity != null && quantity > QUANTITY_MAX) throw tooLarge('servings', ing.name);
      const target = v.merge ? findMergeTarget(ing, quantity, before) : null;
      if (target && quantity != null) {
        const fields = mergedFields(target, { quantity, isApproximate: ing.isApproximate });
        if (fields.quantity > QUANTITY_MAX) throw tooLarge('merge', target.name);
        Object.assign(target, fields);
      }
      plan.push({ ing, quantity, target });
    }
    const items: ItemDoc[] = [];
    const merged = new Map<string, ItemDoc>();
    for (const { ing, quantity, target } of plan) {
      if (target) {
        const doc = await this.findDoc('items', target.id);
        const current = merged.get(target.id) ?? plain(doc!);
        const written = await this.patchDoc(
          doc!,
          mergedFields(current, { quantity: quantity!, isApproximate: ing.isApproximate }),
        );
        merged.set(written.id, written);
        continue;
      }
      items.push(
        await this.items.add(list.id, {
          name: ing.name,
          quantity,
          unitOfMeasureId: ing.unitOfMeasureId,
          familyUnitOfMeasureId: ing.familyUnitOfMeasureId,
          isApproximate: ing.isApproximate,
          quantityNote: ing.quantityNote,
          productId: ing.productId,
          familyProductId: ing.familyProductId,
        }),
      );
    }
    return { items, merged: [...merged.values()] };
  }
}
