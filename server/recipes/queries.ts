// SQL for recipes and ingredients. Every read filters by family and `deleted`.
import type { Db, Trx } from '../db/knex.js';
import type { Row } from '../shared/common.js';
import { maxPosition } from '../shared/queries.js';

type Q = Db | Trx;

export async function recipeSummaryRows(db: Q, familyId: string): Promise<Row[]> {
  const count = db('recipe_ingredients as i')
    .count('*')
    .whereRaw('i.recipe_id = r.id')
    .andWhereRaw('i.family_id = r.family_id')
    .andWhere({ 'i.deleted': false });
  return db('recipes as r')
    .select('r.*', count.as('ingredient_count'))
    .where({ 'r.family_id': familyId, 'r.deleted': false })
    .orderByRaw('lower(r.name), r.id');
}

export async function recipeRow(db: Q, familyId: string, recipeId: string): Promise<Row | undefined> {
  return db('recipes').where({ family_id: familyId, id: recipeId, deleted: false }).first();
}

/** Ingredients of a recipe in position order. */
export async function ingredientRows(db: Q, familyId: string, recipeId: string): Promise<Row[]> {
  return db('recipe_ingredients')
    .where({ family_id: familyId, recipe_id: recipeId, deleted: false })
    .orderBy([{ column: 'position' }, { column: 'created_at' }, { column: 'id' }]);
}

export async function ingredientRow(
  db: Q,
  familyId: string,
  recipeId: string,
  ingredientId: string,
): Promise<Row | undefined> {
  return db('recipe_ingredients')
    .where({ family_id: familyId, recipe_id: recipeId, id: ingredientId, deleted: false })
    .first();
}

export const maxIngredientPosition = (db: Q, familyId: string, recipeId: string) =>
  maxPosition(db, 'recipe_ingredients', familyId, { recipe_id: recipeId });
