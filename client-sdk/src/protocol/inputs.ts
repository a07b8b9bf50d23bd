/**
 * Inputs of the family-data writes: the REST request bodies (api-contract §4) and the
 * arguments of the SDK's domain calls (client.lists.create, client.items.add, …). Built from
 * the field rules of rules.ts, like the replication docs, so a value is accepted or refused
 * the same way by REST, by push and by the domain layer.
 *
 * Absent fields (`undefined`) of a patch leave the record as it is; `null` clears a nullable
 * field.
 */
import * as z from 'zod/mini';
import {
  COPY_SERVINGS_MAX,
  COPY_SERVINGS_MIN,
  PRODUCT_PAIR,
  RULES,
  UNIT_PAIR,
  uniqueItems,
  withPairRules,
} from './rules.js';

const ref = RULES.ref;

/** Quantity, unit pair, approximation, note and product pair: shared by items and ingredients. */
const quantityFields = {
  quantity: z.optional(z.nullable(RULES.quantity())),
  unitOfMeasureId: z.optional(z.nullable(ref())),
  familyUnitOfMeasureId: z.optional(z.nullable(ref())),
  isApproximate: z.optional(z.boolean()),
  quantityNote: z.optional(z.nullable(RULES.quantityNote())),
  productId: z.optional(z.nullable(ref())),
  familyProductId: z.optional(z.nullable(ref())),
};

/** The reference fields of an item or ingredient input (each names a record of the family). */
export const QUANTITY_REFS = ['unitOfMeasureId', 'familyUnitOfMeasureId', 'productId', 'familyProductId'] as const;

const PAIRS = [UNIT_PAIR, PRODUCT_PAIR];

/** Item by product (api-contract §7): `name` may be left out when a product id is given; the
 *  item (or ingredient) then takes the product's effective name. */
function nameOrProduct<T extends z.ZodMiniType>(schema: T): T {
  return schema.check(
    z.superRefine((value: unknown, ctx) => {
      const v = value as { name?: unknown; productId?: unknown; familyProductId?: unknown };
      if (v.name === undefined && v.productId == null && v.familyProductId == null) {
        ctx.addIssue({
          code: 'custom',
          input: value,
          path: ['name'],
          message: 'required unless productId or familyProductId is given',
        });
      }
    }),
  ) as T;
}

// --- lists and items -------------------------------------------------------------------------

export const listCreateInput = z.object({
  id: z.optional(ref()),
  name: RULES.listName(),
  storeId: z.optional(z.nullable(ref())),
});
export const listUpdateInput = z.object({
  name: z.optional(RULES.listName()),
  storeId: z.optional(z.nullable(ref())),
});

export const itemAddInput = nameOrProduct(
  withPairRules(
    z.object({
      id: z.optional(ref()),
      name: z.optional(RULES.itemName()),
      ...quantityFields,
      sectionId: z.optional(z.nullable(ref())),
    }),
    PAIRS,
  ),
);
export const itemUpdateInput = withPairRules(
  z.object({
    name: z.optional(RULES.itemName()),
    ...quantityFields,
    sectionId: z.optional(z.nullable(ref())),
    checked: z.optional(z.boolean()),
  }),
  PAIRS,
);

// --- stores and sections ---------------------------------------------------------------------

export const storeCreateInput = z.object({ id: z.optional(ref()), name: RULES.storeName() });
export const storeUpdateInput = z.object({ name: RULES.storeName() });
export const sectionAddInput = z.object({
  id: z.optional(ref()),
  name: RULES.sectionName(),
  position: z.optional(RULES.position()),
  category: z.optional(RULES.shopCategory()),
});
/** `PATCH` of a section: its name, its category (§10), or both. */
export const sectionUpdateInput = z
  .object({ name: z.optional(RULES.sectionName()), category: z.optional(RULES.shopCategory()) })
  .check(
    z.refine((b) => b.name !== undefined || b.category !== undefined, {
      message: 'set name or category',
      path: ['name'],
    }),
  );
/** Repeats are refused with the store's ids ("exactly the store's section ids, each once"). */
export const sectionOrderInput = z.object({ sectionIds: uniqueItems(z.array(ref()).check(z.maxLength(1000))) });

// --- recipes and ingredients -----------------------------------------------------------------

export const ingredientAddInput = nameOrProduct(
  withPairRules(
    z.object({
      id: z.optional(ref()),
      name: z.optional(RULES.ingredientName()),
      ...quantityFields,
      position: z.optional(RULES.position()),
    }),
    PAIRS,
  ),
);
export const ingredientUpdateInput = withPairRules(
  z.object({
    name: z.optional(RULES.ingredientName()),
    ...quantityFields,
    position: z.optional(RULES.position()),
  }),
  PAIRS,
);
export const recipeCreateInput = z.object({
  id: z.optional(ref()),
  name: RULES.recipeName(),
  servings: z.optional(z.nullable(RULES.servings())),
  instructions: z.optional(z.nullable(RULES.instructions())),
  ingredients: z.optional(z.array(ingredientAddInput).check(z.maxLength(500))),
});
export const recipeUpdateInput = z.object({
  name: z.optional(RULES.recipeName()),
  servings: z.optional(z.nullable(RULES.servings())),
  instructions: z.optional(z.nullable(RULES.instructions())),
});
export const copyToListInput = z.object({
  listId: ref(),
  ingredientIds: z.optional(z.array(ref()).check(z.maxLength(500))),
  /** §10: quantities scaled from the recipe's servings to these. */
  servings: z.optional(z.int().check(z.minimum(COPY_SERVINGS_MIN), z.maximum(COPY_SERVINGS_MAX))),
  /** §10: add to a matching active unchecked item of the list instead of a new item. */
  merge: z.optional(z.boolean()),
});

/** `POST /api/lists/{listId}/restore-items` (§10). */
export const restoreItemsInput = z.object({
  itemIds: z.array(ref()).check(z.minLength(1), z.maxLength(500)),
});

// --- catalog -----------------------------------------------------------------------------------

export const productCreateInput = z.object({
  id: z.optional(ref()),
  name: RULES.productName(),
  unitCategoryFlags: z.optional(RULES.unitCategoryFlags()),
  category: z.optional(RULES.shopCategory()),
});
export const productUpdateInput = z.object({
  name: z.optional(RULES.productName()),
  unitCategoryFlags: z.optional(RULES.unitCategoryFlags()),
  category: z.optional(RULES.shopCategory()),
});
/** The family's override of a global product; a field left out (or null) follows the global product. */
export const productOverrideInput = z
  .object({
    name: z.optional(z.nullable(RULES.productName())),
    unitCategoryFlags: z.optional(z.nullable(RULES.unitCategoryFlags())),
    category: z.optional(RULES.shopCategory()),
  })
  .check(
    z.refine((b) => b.name != null || b.unitCategoryFlags != null || b.category != null, {
      message: 'set name, unitCategoryFlags or category (DELETE the override to drop it)',
      path: ['name'],
    }),
  );
export const unitCreateInput = z.object({
  id: z.optional(ref()),
  name: RULES.unitName(),
  abbreviation: RULES.abbreviation(),
  category: RULES.category(),
});
export const unitUpdateInput = z.object({
  name: z.optional(RULES.unitName()),
  abbreviation: z.optional(RULES.abbreviation()),
  category: z.optional(RULES.category()),
});

/** The catalog's refusals, worded once for REST, push and the SDK's domain layer (which refuses
 *  the same writes locally, before anything is written). */
export const CATALOG_REFUSALS = {
  idTaken: { code: 'id_conflict', message: 'That id is already taken' },
  duplicateProductName: { code: 'duplicate_name', message: 'A product with that name already exists' },
  abbreviationTaken: { code: 'abbreviation_taken', message: 'That abbreviation is already used' },
  unitInUse: { code: 'unit_in_use', message: 'The unit is used by a recipe ingredient or a list item' },
} as const;

/** Every input schema by name (the field-rule property test walks them). */
export const inputSchemas = {
  listCreate: listCreateInput,
  listUpdate: listUpdateInput,
  itemAdd: itemAddInput,
  itemUpdate: itemUpdateInput,
  storeCreate: storeCreateInput,
  storeUpdate: storeUpdateInput,
  sectionAdd: sectionAddInput,
  sectionUpdate: sectionUpdateInput,
  sectionOrder: sectionOrderInput,
  recipeCreate: recipeCreateInput,
  recipeUpdate: recipeUpdateInput,
  ingredientAdd: ingredientAddInput,
  ingredientUpdate: ingredientUpdateInput,
  copyToList: copyToListInput,
  restoreItems: restoreItemsInput,
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
export type SectionUpdateInput = z.input<typeof sectionUpdateInput>;
export type SectionOrderInput = z.input<typeof sectionOrderInput>;
export type RecipeCreateInput = z.input<typeof recipeCreateInput>;
export type RecipeUpdateInput = z.input<typeof recipeUpdateInput>;
export type IngredientAddInput = z.input<typeof ingredientAddInput>;
export type IngredientUpdateInput = z.input<typeof ingredientUpdateInput>;
export type CopyToListInput = z.input<typeof copyToListInput>;
export type RestoreItemsInput = z.input<typeof restoreItemsInput>;
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
export function fieldErrors(error: z.core.$ZodError, prefix?: string): FieldError[] {
  return error.issues.map((i) => ({
    path: [prefix, ...i.path.map(String)].filter(Boolean).join('.') || '(root)',
    message: i.message,
  }));
}
