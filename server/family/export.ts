// Family export (contract §11 "Backup and restore"): the family's own records in their REST
// shapes, as one JSON document that `POST /api/family/import` (import.ts) takes back, on this
// server or another. The document's schema is declared here, once: it is the export's response
// schema and the import's request body.
//
// What the document holds (docs/api.md "Family export and import"):
// - `stores`, `sections`, `lists`, `items` (removed ones included), `recipes`, `ingredients`,
//   `units` (the family's own units) and `sectionMemory`: the records as the REST API and the
//   replication docs show them (the protocol's record shapes, `recordSchemas`);
// - `products`: the family's own products (`kind: "family"`), and the global products the
//   family overrides (`kind: "global"`, `overridden: true`, the effective name and flags) with
//   `override`, the override as stored (`null`: that field follows the global product);
// - never a user, a token, an invitation or a secret. `removedByUserId` of a removed item is the
//   only user id in it (as the item record shows it).
// A reference to a record the family no longer has (an item in a section deleted since) is
// exported as null, so the document never refers outside itself and the global catalog.
import { z } from 'zod';
import { recordSchemas, RULES, timestampSchema, compareSections, type DocData } from '@family-shopping/client/protocol';
import type { Actor, Deps } from '../context.js';
import { FamilyName } from '../auth/public.js';
import { named } from '../openapi/responses.js';
import { bitsToFlags, toProduct, toUnit, type EffectiveProductRow, type EffectiveUnitRow } from '../catalog/public.js';
import { toItem, toList } from '../lists/public.js';
import { toIngredient, toRecipe } from '../recipes/public.js';
import { toSection, toSectionMemory, toStore } from '../stores/public.js';
import { findFamily, liveFamilyRows, liveOverrides } from './queries.js';
import { notFound } from '../errors.js';

export const EXPORT_FORMAT = 'family-shopping';
export const EXPORT_VERSION = 1;

/** The document's collections, in the order they are written on import (referenced first). */
export const DOCUMENT_COLLECTIONS = [
  'units',
  'products',
  'stores',
  'sections',
  'lists',
  'items',
  'recipes',
  'ingredients',
  'sectionMemory',
] as const;
export type DocumentCollection = (typeof DOCUMENT_COLLECTIONS)[number];

// Rows are the protocol's record shapes (their field rules); the pair rules ("at most one of
// unitOfMeasureId / familyUnitOfMeasureId", …) are applied by the import after it has checked
// the references, so a reference to nothing is reported as such whatever else is wrong.
const rows = <S extends z.core.$ZodType>(schema: S) => z.array(schema);

/** A product entry: the REST product record, plus the stored override of a global product. */
// `category` (schema 2, §10) may be left out on import: a document exported before it imports
// with no categories (null), as its records had none.
const category = () => z.optional(RULES.shopCategory());

const ProductEntry = z.object({
  ...recordSchemas.products.shape,
  category: category(),
  // Derived (schema 3, §12): a document exported before it imports without it; the import reads
  // it not.
  englishName: z.optional(recordSchemas.products.shape.englishName),
  override: z
    .object({
      name: z.nullable(RULES.productName()),
      unitCategoryFlags: z.nullable(RULES.unitCategoryFlags()),
      category: category(),
    })
    .optional()
    .meta({
      description:
        'Global products only: the family override as stored (null: that field follows the global product). ' +
        "Left out: the entry's name and flags are the override.",
    }),
});

const ItemEntry = z.object({
  ...recordSchemas.items.shape,
  // A user of the exporting server, not a record of the document: kept on import when it names
  // a member of the importing family, else null (so it is not checked as a reference).
  removedByUserId: z.string().max(36).nullable(),
});

export const FamilyDocument = named(
  z.object({
    format: z.literal(EXPORT_FORMAT),
    version: z.literal(EXPORT_VERSION),
    exportedAt: timestampSchema,
    family: z.strictObject({ name: FamilyName }),
    stores: rows(z.object(recordSchemas.stores.shape)),
    sections: rows(z.object({ ...recordSchemas.sections.shape, category: category() })),
    lists: rows(z.object(recordSchemas.lists.shape)),
    items: rows(ItemEntry),
    recipes: rows(z.object(recordSchemas.recipes.shape)),
    ingredients: rows(z.object(recordSchemas.ingredients.shape)),
    products: rows(ProductEntry),
    units: rows(z.object(recordSchemas.units.shape)),
    sectionMemory: rows(z.object(recordSchemas.sectionMemory.shape)),
  }),
  'FamilyExport',
);
export type FamilyDocument = z.output<typeof FamilyDocument>;
export type ProductEntry = z.output<typeof ProductEntry>;

/** The whole family as one document, read in one transaction (one consistent state). */
export async function exportFamily(deps: Deps, actor: Actor): Promise<FamilyDocument> {
  const familyId = actor.familyId;
  return deps.db.transaction(
    async (trx) => {
      const family = await findFamily(trx, familyId);
      if (!family) throw notFound('Family not found');
      const read = (table: string) => liveFamilyRows(trx, table, familyId);

      const units = (await read('family_units_of_measure')).map((r) =>
        toUnit({ ...r, kind: 'family', code: null } as unknown as EffectiveUnitRow),
      );
      const familyProducts: ProductEntry[] = (await read('family_products')).map((r) =>
        toProduct({ ...r, kind: 'family', overridden: false } as unknown as EffectiveProductRow),
      );
      const overrides: ProductEntry[] = (await liveOverrides(trx, familyId)).map((o) => ({
        ...toProduct(o),
        override: {
          name: o.override_name,
          unitCategoryFlags: o.override_flags == null ? null : bitsToFlags(o.override_flags),
          category: o.override_category as ProductEntry['category'],
        },
      }));

      const stores = (await read('stores')).map(toStore);
      const storeIds = new Set(stores.map((s) => s.id));
      // Sections store by store, each store's in walking order.
      const sections = (await read('store_sections')).map(toSection).filter((s) => storeIds.has(s.storeId));
      const byStore = new Map<string, DocData<'sections'>[]>();
      for (const s of sections) byStore.set(s.storeId, [...(byStore.get(s.storeId) ?? []), s]);
      const orderedSections = stores.flatMap((s) => (byStore.get(s.id) ?? []).sort(compareSections));
      const sectionIds = new Set(orderedSections.map((s) => s.id));
      const unitIds = new Set(units.map((u) => u.id));
      const productIds = new Set(familyProducts.map((p) => p.id));

      // Nullable references to a record the family no longer has: null (see the header).
      const kept = (id: string | null, ids: Set<string>) => (id != null && ids.has(id) ? id : null);
      const quantityRefs = <T extends { familyUnitOfMeasureId: string | null; familyProductId: string | null }>(
        r: T,
      ): T => ({
        ...r,
        familyUnitOfMeasureId: kept(r.familyUnitOfMeasureId, unitIds),
        familyProductId: kept(r.familyProductId, productIds),
      });

      const lists = (await read('shopping_lists'))
        .map(toList)
        .map((l) => ({ ...l, storeId: kept(l.storeId, storeIds) }));
      const listIds = new Set(lists.map((l) => l.id));
      const items = (await read('shopping_list_items'))
        .map(toItem)
        .filter((i) => listIds.has(i.listId))
        .map((i) => ({ ...quantityRefs(i), sectionId: kept(i.sectionId, sectionIds) }));

      const recipes = (await read('recipes')).map(toRecipe);
      const recipeIds = new Set(recipes.map((r) => r.id));
      const ingredients = (await read('recipe_ingredients'))
        .map(toIngredient)
        .filter((i) => recipeIds.has(i.recipeId))
        .map(quantityRefs);

      const sectionStore = new Map(orderedSections.map((s) => [s.id, s.storeId]));
      const sectionMemory = (await read('product_store_sections'))
        .map(toSectionMemory)
        .filter(
          (m) =>
            sectionStore.get(m.sectionId) === m.storeId &&
            (m.productId != null || (m.familyProductId != null && productIds.has(m.familyProductId))),
        );

      return {
        format: EXPORT_FORMAT,
        version: EXPORT_VERSION,
        exportedAt: deps.clock.now().toISOString(),
        family: { name: family.name },
        stores,
        sections: orderedSections,
        lists,
        items,
        recipes,
        ingredients,
        products: [...familyProducts, ...overrides],
        units,
        sectionMemory,
      };
    },
    { isolationLevel: 'repeatable read' },
  );
}
