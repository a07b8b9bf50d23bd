/**
 * Inputs of the family-data writes: the REST request bodies (api-contract §4) and the
 * arguments of the SDK's domain calls (client.lists.create, client.items.add, …). Built from
 * the field rules of rules.ts, like the replication docs, so a value is accepted or refused
 * the same way by REST, by push and by the domain layer.
 *
 * Absent fields (`undefined`) of a patch leave the record as it is; `null` clears a nullable
 * field.
 */
import { z } from 'zod';
import { PRODUCT_PAIR, RULES, UNIT_PAIR, withPairRules } from './rules.js';

const ref = RULES.ref;

/** Quantity, unit pair, approximation, note and product pair: shared by items and ingredients. */
const quantityFields = {
  quantity: RULES.quantity().nullable().optional(),
  unitOfMeasureId: ref().nullable().optional(),
  familyUnitOfMeasureId: ref().nullable().optional(),
  isApproximate: z.boolean().optional(),
  quantityNote: RULES.quantityNote().nullable().optional(),
  productId: ref().nullable().optional(),
  familyProductId: ref().nullable().optional(),
};

/** The reference fields of an item or ingredient input (each names a record of the family). */
export const QUANTITY_REFS = ['unitOfMeasureId', 'familyUnitOfMeasureId', 'productId', 'familyProductId'] as const;

const PAIRS = [UNIT_PAIR, PRODUCT_PAIR];

/** Item by product (api-contract §7): `name` may be left out when a product id is given; the
 *  item (or ingredient) then takes the product's effective name. */
function nameOrProduct<T extends z.ZodType>(schema: T): T {
  return schema.superRefine((value: unknown, ctx) => {
    const v = value as { name?: unknown; productId?: unknown; familyProductId?: unknown };
    if (v.name === undefined && v.productId == null && v.familyProductId == null) {
      ctx.addIssue({ code: 'custom', path: ['name'], message: 'required unless productId or familyProductId is given' });
    }
  }) as unknown as T;
}

// --- lists and items -------------------------------------------------------------------------

export const listCreateInput = z.object({
  id: ref().optional(),
  name: RULES.listName(),
  storeId: ref().nullable().optional(),
});
export const listUpdateInput = z.object({
  name: RULES.listName().optional(),
  storeId: ref().nullable().optional(),
});

export const itemAddInput = nameOrProduct(
  withPairRules(
    z.object({
      id: ref().optional(),
      name: RULES.itemName().optional(),
      ...quantityFields,
      sectionId: ref().nullable().optional(),
    }),
    PAIRS,
  ),
);
export const itemUpdateInput = withPairRules(
  z.object({
    name: RULES.itemName().optional(),
    ...quantityFields,
    sectionId: ref().nullable().optional(),
    checked: z.boolean().optional(),
  }),
  PAIRS,
);

// --- stores and sections ---------------------------------------------------------------------

export const storeCreateInput = z.object({ id: ref().optional(), name: RULES.storeName() });
export const storeUpdateInput = z.object({ name: RULES.storeName() });
export const sectionAddInput = z.object({
  id: ref().optional(),
  name: RULES.sectionName(),
  position: RULES.position().optional(),
});
export const sectionRenameInput = z.object({ name: RULES.sectionName() });
export const sectionOrderInput = z.object({ sectionIds: z.array(ref()).max(1000) });

// --- recipes and ingredients -----------------------------------------------------------------

export const ingredientAddInput = nameOrProduct(
  withPairRules(
    z.object({
      id: ref().optional(),
      name: RULES.ingredientName().optional(),
      ...quantityFields,
      position: RULES.position().optional(),
    }),
    PAIRS,
  ),
);
export const ingredientUpdateInput = withPairRules(
  z.object({
    name: RULES.ingredientName().optional(),
    ...quantityFields,
    position: RULES.position().optional(),
  }),
  PAIRS,
);
export const recipeCreateInput = z.object({
  id: ref().optional(),
  name: RULES.recipeName(),
  servings: RULES.servings().nullable().optional(),
  instructions: RULES.instructions().nullable().optional(),
  ingredients: z.array(ingredientAddInput).max(500).optional(),
});
export const recipeUpdateInput = z.object({
  name: RULES.recipeName().optional(),
  servings: RULES.servings().nullable().optional(),
  instructions: RULES.instructions().nullable().optional(),
});
export const copyToListInput = z.object({
  listId: ref(),
  ingredientIds: z.array(ref()).max(500).optional(),
});

// --- catalog -----------------------------------------------------------------------------------

export const productCreateInput = z.object({
  id: ref().optional(),
  name: RULES.productName(),
  unitCategoryFlags: RULES.unitCategoryFlags().optional(),
});
export const productUpdateInput = z.object({
  name: RULES.productName().optional(),
  unitCategoryFlags: RULES.unitCategoryFlags().optional(),
});
/** The family's override of a global product; a field left out (or null) follows the global product. */
export const productOverrideInput = z
  .object({
    name: RULES.productName().nullable().optional(),
    unitCategoryFlags: RULES.unitCategoryFlags().nullable().optional(),
  })
  .refine((b) => b.name != null || b.unitCategoryFlags != null, {
    message: 'set name or unitCategoryFlags (DELETE the override to drop it)',
    path: ['name'],
  });
export const unitCreateInput = z.object({
  id: ref().optional(),
  name: RULES.unitName(),
  abbreviation: RULES.abbreviation(),
  category: RULES.category(),
});
export const unitUpdateInput = z.object({
  name: RULES.unitName().optional(),
  abbreviation: RULES.abbreviation().optional(),
  category: RULES.category().optional(),
});

/** Every input schema by name (the field-rule property test walks them). */
export const inputSchemas = {
  listCreate: listCreateInput,
  listUpdate: listUpdateInput,
  itemAdd: itemAddInput,
  itemUpdate: itemUpdateInput,
  storeCreate: storeCreateInput,
  storeUpdate: storeUpdateInput,
  sectionAdd: sectionAddInput,
  sectionRename: sectionRenameInput,
  sectionOrder: sectionOrderInput,
  recipeCreate: recipeCreateInput,
  recipeUpdate: recipeUpdateInput,
  ingredientAdd: ingredientAddInput,
  ingredientUpdate: ingredientUpdateInput,
  copyToList: copyToListInput,
  productCreate: productCreateInput,
  productUpdate: productUpdateInput,
  productOverride: productOverrideInput,
  unitCreate: unitCreateInput,
  unitUpdate: unitUpdateInput,
} as const;

export type ListCreateInput = z.input<typeof listCreateInput>;
export type ListUpdateInput = z.input<typeof listUpdateInput>;
export type ItemAddInput = z.input<typeof itemAddInput>;
export type ItemUpdateInput = z.input<typeof itemUpdateInput>;
export type StoreCreateInput = z.input<typeof storeCreateInput>;
export type StoreUpdateInput = z.input<typeof storeUpdateInput>;
export type SectionAddInput = z.input<typeof sectionAddInput>;
export type SectionRenameInput = z.input<typeof sectionRenameInput>;
export type RecipeCreateInput = z.input<typeof recipeCreateInput>;
export type RecipeUpdateInput = z.input<typeof recipeUpdateInput>;
export type IngredientAddInput = z.input<typeof ingredientAddInput>;
export type IngredientUpdateInput = z.input<typeof ingredientUpdateInput>;
export type CopyToListInput = z.input<typeof copyToListInput>;
export type ProductCreateInput = z.input<typeof productCreateInput>;
export type ProductUpdateInput = z.input<typeof productUpdateInput>;
export type UnitCreateInput = z.input<typeof unitCreateInput>;
export type UnitUpdateInput = z.input<typeof unitUpdateInput>;

/** A field error of a refused input: `path` names the field (`name`, `ingredients.0.name`). */
export interface FieldError {
  path: string;
  message: string;
}

/** Field errors of a zod error, paths joined with dots after `prefix` (`body`, or none). */
export function fieldErrors(error: z.ZodError, prefix?: string): FieldError[] {
  return error.issues.map((i) => ({
    path: [prefix, ...i.path.map(String)].filter(Boolean).join('.') || '(root)',
    message: i.message,
  }));
}
