// The front door of server/recipes: what other features may use. Import it as
// '../recipes/public.js'; the files behind it are this feature's own (docs/architecture.md).
export { recipeRow } from './queries.js';
export { toIngredient, toRecipe } from './records.js';
export {
  addIngredient,
  createRecipe,
  deleteIngredient,
  deleteRecipe,
  updateIngredient,
  updateRecipe,
  type IngredientPatch,
} from './service.js';
