// The rows of the replicated family tables, as the database returns them (bigint and numeric as
// text, times as Date) and as the family write takes them (`FamilyWrite.insert`/`update`, typed
// by table name: a wrong table or column fails to compile). Declared once from the migrations'
// schema (information_schema.columns); a migration that adds a column adds it here.

export interface FamilyTableRows {
  family_product_overrides: FamilyProductOverridesRow;
  family_products: FamilyProductsRow;
  family_units_of_measure: FamilyUnitsOfMeasureRow;
  product_store_sections: ProductStoreSectionsRow;
  recipe_ingredients: RecipeIngredientsRow;
  recipes: RecipesRow;
  shopping_list_items: ShoppingListItemsRow;
  shopping_lists: ShoppingListsRow;
  store_sections: StoreSectionsRow;
  stores: StoresRow;
}

export type FamilyTable = keyof FamilyTableRows;

export type FamilyProductOverridesRow = {
  id: string;
  product_id: string;
  name: string | null;
  unit_category_flags: number | null;
  family_id: string;
  version: string;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
  category: string | null;
};

export type FamilyProductsRow = {
  id: string;
  name: string;
  unit_category_flags: number;
  family_id: string;
  version: string;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
  category: string | null;
};

export type FamilyUnitsOfMeasureRow = {
  id: string;
  name: string;
  abbreviation: string;
  category: string;
  family_id: string;
  version: string;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
};

export type ProductStoreSectionsRow = {
  id: string;
  store_id: string;
  product_id: string | null;
  family_product_id: string | null;
  section_id: string;
  family_id: string;
  version: string;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
};

export type RecipeIngredientsRow = {
  id: string;
  recipe_id: string;
  name: string;
  quantity: string | null;
  unit_of_measure_id: string | null;
  family_unit_of_measure_id: string | null;
  is_approximate: boolean;
  quantity_note: string | null;
  product_id: string | null;
  family_product_id: string | null;
  position: number;
  family_id: string;
  version: string;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
};

export type RecipesRow = {
  id: string;
  name: string;
  servings: number | null;
  instructions: string | null;
  family_id: string;
  version: string;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
};

export type ShoppingListItemsRow = {
  id: string;
  list_id: string;
  name: string;
  quantity: string | null;
  unit_of_measure_id: string | null;
  family_unit_of_measure_id: string | null;
  is_approximate: boolean;
  quantity_note: string | null;
  product_id: string | null;
  family_product_id: string | null;
  section_id: string | null;
  checked: boolean;
  checked_at: Date | null;
  removed_at: Date | null;
  removed_by_user_id: string | null;
  family_id: string;
  version: string;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
  record_json_open: string | null;
};

export type ShoppingListsRow = {
  id: string;
  name: string;
  store_id: string | null;
  archived_at: Date | null;
  family_id: string;
  version: string;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
};

export type StoreSectionsRow = {
  id: string;
  store_id: string;
  name: string;
  position: number;
  family_id: string;
  version: string;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
  category: string | null;
};

export type StoresRow = {
  id: string;
  name: string;
  family_id: string;
  version: string;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
};

/** The columns a write may set on a table (the write stamps family, version and times). */
export type FamilyTableWrite<T extends FamilyTable> = Partial<{
  [K in keyof FamilyTableRows[T]]: WriteValue<FamilyTableRows[T][K]>;
}>;

/** What a column takes: its read type, a number for text-encoded numbers, text for a time. */
type WriteValue<V> = V extends Date ? V | string : V extends string ? V | number : V;

/** The columns a write's `where` names (values as read, so a row's own id may be passed on). */
export type FamilyTableWhere<T extends FamilyTable> = Partial<Record<keyof FamilyTableRows[T], unknown>>;
