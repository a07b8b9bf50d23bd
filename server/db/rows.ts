// The rows of the replicated family tables, as the database returns them (bigint and numeric as
// text, times as Date) and as the family write takes them (`FamilyWrite.insert`/`update`, typed
// by table name: a wrong table or column fails to compile). Declared once from the migrations'
// schema (information_schema.columns); a migration that adds a column adds it here. The columns
// all tables (or items and ingredients) share are declared once and joined in.

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

/** The columns every replicated family table has: its id, its family, the family version of
 *  its last write, the tombstone flag and the times. */
export type ReplicatedColumns = {
  id: string;
  family_id: string;
  version: string;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
};

/** The columns items and ingredients share: the name, quantity, unit and product. */
export type QuantityColumns = {
  name: string;
  quantity: string | null;
  unit_of_measure_id: string | null;
  family_unit_of_measure_id: string | null;
  is_approximate: boolean;
  quantity_note: string | null;
  product_id: string | null;
  family_product_id: string | null;
};

export type FamilyProductOverridesRow = ReplicatedColumns & {
  product_id: string;
  name: string | null;
  unit_category_flags: number | null;
  category: string | null;
};

export type FamilyProductsRow = ReplicatedColumns & {
  name: string;
  unit_category_flags: number;
  category: string | null;
};

export type FamilyUnitsOfMeasureRow = ReplicatedColumns & {
  name: string;
  abbreviation: string;
  category: string;
};

export type ProductStoreSectionsRow = ReplicatedColumns & {
  store_id: string;
  product_id: string | null;
  family_product_id: string | null;
  section_id: string;
};

export type RecipeIngredientsRow = ReplicatedColumns &
  QuantityColumns & {
    recipe_id: string;
    position: number;
  };

export type RecipesRow = ReplicatedColumns & {
  name: string;
  servings: number | null;
  instructions: string | null;
};

export type ShoppingListItemsRow = ReplicatedColumns &
  QuantityColumns & {
    list_id: string;
    section_id: string | null;
    checked: boolean;
    checked_at: Date | null;
    removed_at: Date | null;
    removed_by_user_id: string | null;
    record_json_open: string | null;
  };

export type ShoppingListsRow = ReplicatedColumns & {
  name: string;
  store_id: string | null;
  archived_at: Date | null;
};

export type StoreSectionsRow = ReplicatedColumns & {
  store_id: string;
  name: string;
  position: number;
  category: string | null;
};

export type StoresRow = ReplicatedColumns & {
  name: string;
};

/** The columns a write may set on a table (the write stamps family, version and times). */
export type FamilyTableWrite<T extends FamilyTable> = Partial<{
  [K in keyof FamilyTableRows[T]]: WriteValue<FamilyTableRows[T][K]>;
}>;

/** What a column takes: its read type, a number for text-encoded numbers, text for a time. */
type WriteValue<V> = V extends Date ? V | string : V extends string ? V | number : V;

/** The columns a write's `where` names (values as read, so a row's own id may be passed on). */
export type FamilyTableWhere<T extends FamilyTable> = Partial<Record<keyof FamilyTableRows[T], unknown>>;
