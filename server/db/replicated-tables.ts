// Which table holds each replication collection's rows (api-contract §6). The family write uses
// it to name the collections a commit wrote (`Changed.collections`), replication to read and
// write them.
//
// Every insert or update of these tables must carry the version its transaction took from the
// family counter (the catalog counter for GLOBAL_CATALOG_TABLES): the database refuses any other
// row (migrations/20261123200001_require_write_version.ts; server/db/family-write.ts,
// `takeFamilyVersion`). test/integration/sync/invariants.test.ts checks that the check covers
// every table named here.
import type { CollectionName } from '@family-shopping/client/protocol';

/** The seven collections backed by one family table each. */
export const FAMILY_TABLE = {
  lists: 'shopping_lists',
  items: 'shopping_list_items',
  stores: 'stores',
  sections: 'store_sections',
  recipes: 'recipes',
  ingredients: 'recipe_ingredients',
  sectionMemory: 'product_store_sections',
} as const satisfies Partial<Record<CollectionName, string>>;

/** The family's own rows of the effective catalogs (the global rows are not family writes). */
export const FAMILY_CATALOG_TABLES = {
  products: ['family_products', 'family_product_overrides'],
  units: ['family_units_of_measure'],
} as const satisfies Partial<Record<CollectionName, readonly string[]>>;

/** The global catalog tables the `products` and `units` collections also read; their rows carry
 *  `catalog_version`, taken by `catalogWrite`. */
export const GLOBAL_CATALOG_TABLES = {
  products: 'products',
  units: 'units_of_measure',
} as const satisfies Partial<Record<CollectionName, string>>;

/** Every replicated family table (each has family_id, version, deleted). */
export const REPLICATED_FAMILY_TABLES: readonly string[] = [
  ...Object.values(FAMILY_TABLE),
  ...Object.values(FAMILY_CATALOG_TABLES).flat(),
];

/** The table a doc id of a collection names when another doc refers to it (a family's own
 *  product or unit for the catalogs). */
export const REFERENCED_TABLE: Record<CollectionName, string> = {
  ...FAMILY_TABLE,
  products: 'family_products',
  units: 'family_units_of_measure',
};

/** The collection each replicated family table feeds. */
export const TABLE_COLLECTION: Record<string, CollectionName> = Object.fromEntries([
  ...Object.entries(FAMILY_TABLE).map(([c, t]) => [t, c]),
  ...Object.entries(FAMILY_CATALOG_TABLES).flatMap(([c, ts]) => ts.map((t) => [t, c])),
]);
