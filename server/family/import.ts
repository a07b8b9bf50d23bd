// Family import (contract §11 "Backup and restore"): a document of `GET /api/family/export`
// (export.ts declares it) written into a family that has no data of its own yet, in one family
// write: one commit, one family version, every row stamped, and the `Changed` nudge after commit,
// so live clients and replication pulls see the imported records like any other change.
//
// Order of the checks (each refuses the whole document, nothing is written):
//   1. the router validates the document's shape and field rules (400 `validation_failed`);
//   2. references: every reference must name a record of the document, or a record of this
//      server's global catalog (global units and products): 400 with the `*_not_found` code of
//      the first one (`store_not_found`, `section_not_found`, …) and every dangling reference
//      in `errors[]` by path;
//   3. the rest: duplicate ids in a collection, the pair rules, names and abbreviations that
//      must be unique, section memory naming exactly one product: 400 `validation_failed`;
//   4. the family must have no live store, list, recipe, family product, override or family
//      unit: else 409 `family_not_empty`.
// Ids are kept unless a row of the same table (in any family, tombstones included, or the global
// catalog for products and units) already holds them: such a record gets a new id and every
// reference to it in the document follows. A section-memory row whose id was derived from its
// store and product (protocol `sectionMemoryId`) gets the id derived from the imported ones.
import { z } from 'zod';
import * as zm from 'zod/mini';
import { PRODUCT_PAIR, UNIT_PAIR, fieldErrors, sectionMemoryId, withPairRules } from '@family-shopping/client/protocol';
import type { Actor, Deps } from '../context.js';
import { familyWrite, type FamilyWrite } from '../db/family-write.js';
import { newId } from '../db/ids.js';
import { REFERENCED_TABLE } from '../db/replicated-tables.js';
import { badRequest, conflict, validationFailed, type CodeWithStatus, type FieldError } from '../errors.js';
import { flagsToBits } from '../catalog/public.js';
import { named } from '../openapi/responses.js';
import { DOCUMENT_COLLECTIONS, type DocumentCollection, type FamilyDocument } from './export.js';
import { familyHasData, globalUnitAbbreviations, idsInUse, memberIds } from './queries.js';

export type ImportCounts = Record<DocumentCollection, number>;

/** `200` of the import: how many records of each collection were written. */
export const ImportResult = named(
  z.object({
    imported: z.object(
      Object.fromEntries(DOCUMENT_COLLECTIONS.map((c) => [c, z.int().min(0)])) as Record<DocumentCollection, z.ZodInt>,
    ),
  }),
  'FamilyImportResult',
);

interface RefError extends FieldError {
  code: CodeWithStatus<400>;
}

interface Globals {
  products: Set<string>;
  units: Set<string>;
  abbreviations: Set<string>;
}

/** What a reference may name: a record of the document, or of this server's global catalog. */
type Target = 'store' | 'section' | 'list' | 'recipe' | 'familyUnit' | 'familyProduct' | 'globalUnit' | 'globalProduct';

const TARGETS: Record<Target, { code: CodeWithStatus<400>; message: string }> = {
  store: { code: 'store_not_found', message: 'must name a store of the document' },
  section: { code: 'section_not_found', message: 'must name a section of the document' },
  list: { code: 'list_not_found', message: 'must name a list of the document' },
  recipe: { code: 'recipe_not_found', message: 'must name a recipe of the document' },
  familyUnit: { code: 'unit_not_found', message: 'must name a unit of the document' },
  familyProduct: { code: 'product_not_found', message: 'must name a family product of the document' },
  globalUnit: { code: 'unit_not_found', message: 'must name a global unit of this server' },
  globalProduct: { code: 'product_not_found', message: 'must name a global product of this server' },
};

const quantityRefs = [
  ['unitOfMeasureId', 'globalUnit'],
  ['familyUnitOfMeasureId', 'familyUnit'],
  ['productId', 'globalProduct'],
  ['familyProductId', 'familyProduct'],
] as const;

/** Every reference field of the document and what it must name (null: no reference). A section
 *  memory's `sectionId` must moreover be a section of its own store. */
export const DOCUMENT_REFS: ReadonlyArray<readonly [DocumentCollection, string, Target]> = [
  ['sections', 'storeId', 'store'],
  ['lists', 'storeId', 'store'],
  ['items', 'listId', 'list'],
  ['items', 'sectionId', 'section'],
  ...quantityRefs.map(([field, target]) => ['items', field, target] as const),
  ['ingredients', 'recipeId', 'recipe'],
  ...quantityRefs.map(([field, target]) => ['ingredients', field, target] as const),
  ['sectionMemory', 'storeId', 'store'],
  ['sectionMemory', 'sectionId', 'section'],
  ['sectionMemory', 'productId', 'globalProduct'],
  ['sectionMemory', 'familyProductId', 'familyProduct'],
];

const pairCheck = withPairRules(zm.looseObject({}), [UNIT_PAIR, PRODUCT_PAIR]);

/** Refuses a document whose references or other rules do not hold (checks 2 and 3). */
function checkDocument(doc: FamilyDocument, globals: Globals): void {
  const refErrors: RefError[] = [];
  const errors: FieldError[] = [];
  const at = (c: DocumentCollection, i: number, field: string) => `body.${c}.${i}.${field}`;
  const ids = (rows: Array<{ id: string }>) => new Set(rows.map((r) => r.id));
  const sectionStore = new Map(doc.sections.map((s) => [s.id, s.storeId]));
  const known: Record<Target, Set<string>> = {
    store: ids(doc.stores),
    section: new Set(sectionStore.keys()),
    list: ids(doc.lists),
    recipe: ids(doc.recipes),
    familyUnit: ids(doc.units.filter((u) => u.kind === 'family')),
    familyProduct: ids(doc.products.filter((p) => p.kind === 'family')),
    globalUnit: globals.units,
    globalProduct: globals.products,
  };
  const rowsOf = (c: DocumentCollection) => doc[c] as unknown as Array<Record<string, unknown>>;
  const refuse = (path: string, target: Target, message = TARGETS[target].message) =>
    refErrors.push({ path, message, code: TARGETS[target].code });
  const unique = (
    c: DocumentCollection,
    key: (r: Record<string, unknown>) => unknown,
    field: string,
    message: string,
  ) => {
    const seen = new Set<string>();
    rowsOf(c).forEach((r, i) => {
      const k = key(r);
      if (k == null) return;
      const text = String(k).toLowerCase();
      if (seen.has(text)) errors.push({ path: at(c, i, field), message });
      seen.add(text);
    });
  };

  // References (check 2)
  for (const [c, field, target] of DOCUMENT_REFS) {
    rowsOf(c).forEach((r, i) => {
      const id = r[field] as string | null;
      if (id != null && !known[target].has(id)) refuse(at(c, i, field), target);
    });
  }
  doc.sectionMemory.forEach((m, i) => {
    const store = sectionStore.get(m.sectionId);
    if (store !== undefined && store !== m.storeId)
      refuse(at('sectionMemory', i, 'sectionId'), 'section', 'must name a section of its own store');
  });
  doc.products.forEach((p, i) => {
    if (p.kind === 'global' && !globals.products.has(p.id)) refuse(at('products', i, 'id'), 'globalProduct');
  });

  // The rest (check 3)
  for (const c of DOCUMENT_COLLECTIONS) unique(c, (r) => r.id, 'id', 'is the id of an earlier entry');
  for (const c of ['items', 'ingredients'] as const) {
    rowsOf(c).forEach((r, i) => {
      const result = zm.safeParse(pairCheck, r);
      if (!result.success) errors.push(...fieldErrors(result.error, `body.${c}.${i}`));
    });
  }
  unique('stores', (s) => s.name, 'name', 'is the name of an earlier store');
  unique('products', (p) => (p.kind === 'family' ? p.name : null), 'name', 'is the name of an earlier family product');
  unique('units', (u) => u.abbreviation, 'abbreviation', 'is the abbreviation of an earlier unit');
  doc.units.forEach((u, i) => {
    if (u.kind !== 'family')
      errors.push({ path: at('units', i, 'kind'), message: "must be 'family' (global units are not imported)" });
    else if (globals.abbreviations.has(u.abbreviation.toLowerCase()))
      errors.push({ path: at('units', i, 'abbreviation'), message: 'is the abbreviation of a global unit' });
  });
  doc.sectionMemory.forEach((m, i) => {
    if ((m.productId == null) === (m.familyProductId == null))
      errors.push({
        path: at('sectionMemory', i, 'productId'),
        message: 'exactly one of productId and familyProductId must be set',
      });
  });
  unique(
    'sectionMemory',
    (m) => `${String(m.storeId)}:${String(m.productId)}:${String(m.familyProductId)}`,
    'storeId',
    'remembers the same store and product as an earlier entry',
  );

  if (refErrors.length) {
    throw badRequest(
      refErrors[0]!.code,
      'The document refers to records it does not hold',
      refErrors.map(({ path, message }) => ({ path, message })),
    );
  }
  if (errors.length) throw validationFailed(errors, 'The document is not valid');
}

/** Old id → the id the record is imported with (the same unless a row already holds it). */
async function allocateIds(
  w: FamilyWrite,
  table: string,
  ids: string[],
  alsoIn?: string,
): Promise<Map<string, string>> {
  const taken = await idsInUse(w.trx, table, ids);
  if (alsoIn) for (const id of await idsInUse(w.trx, alsoIn, ids)) taken.add(id);
  return new Map(ids.map((id) => [id, taken.has(id) ? newId() : id]));
}

const GLOBAL_TABLE = { products: 'products', units: 'units_of_measure' } as const;

/** Writes the document into the caller's family (see the header for the rules). */
export async function importFamily(deps: Deps, actor: Actor, doc: FamilyDocument): Promise<{ imported: ImportCounts }> {
  return familyWrite(deps, actor.familyId, async (w) => {
    const trx = w.trx;
    const productRefs = [
      ...doc.products.filter((p) => p.kind === 'global').map((p) => p.id),
      ...[...doc.items, ...doc.ingredients, ...doc.sectionMemory].map((r) => r.productId),
    ].filter((id): id is string => id != null);
    const unitRefs = [...doc.items, ...doc.ingredients]
      .map((r) => r.unitOfMeasureId)
      .filter((id): id is string => id != null);
    checkDocument(doc, {
      products: await idsInUse(trx, GLOBAL_TABLE.products, [...new Set(productRefs)]),
      units: await idsInUse(trx, GLOBAL_TABLE.units, [...new Set(unitRefs)]),
      abbreviations: await globalUnitAbbreviations(trx),
    });
    if (await familyHasData(trx, w.familyId)) {
      throw conflict('family_not_empty', 'The family already has stores, lists, recipes or catalog entries');
    }

    // Ids
    const familyProducts = doc.products.filter((p) => p.kind === 'family');
    const overrides = doc.products.filter((p) => p.kind === 'global');
    const ids = async (c: DocumentCollection, rows: Array<{ id: string }>) =>
      allocateIds(
        w,
        REFERENCED_TABLE[c],
        rows.map((r) => r.id),
        c === 'products' || c === 'units' ? GLOBAL_TABLE[c] : undefined,
      );
    const unitId = await ids('units', doc.units);
    const productId = await ids('products', familyProducts);
    const storeId = await ids('stores', doc.stores);
    const sectionId = await ids('sections', doc.sections);
    const listId = await ids('lists', doc.lists);
    const itemId = await ids('items', doc.items);
    const recipeId = await ids('recipes', doc.recipes);
    const ingredientId = await ids('ingredients', doc.ingredients);
    const to = (map: Map<string, string>, id: string) => map.get(id)!;
    const toOrNull = (map: Map<string, string>, id: string | null) => (id == null ? null : map.get(id)!);

    // Section memory keeps a derived id derived (from the imported store and product).
    const memory = doc.sectionMemory.map((m) => {
      const product = { productId: m.productId, familyProductId: toOrNull(productId, m.familyProductId) };
      const store = to(storeId, m.storeId);
      const derived = m.id === sectionMemoryId(m.storeId, m);
      return { m, store, product, id: derived ? sectionMemoryId(store, product) : m.id };
    });
    const memoryTaken = await idsInUse(
      trx,
      REFERENCED_TABLE.sectionMemory,
      memory.map((x) => x.id),
    );

    const members = await memberIds(trx, w.familyId);
    const quantity = (r: FamilyDocument['items'][number] | FamilyDocument['ingredients'][number]) => ({
      name: r.name,
      quantity: r.quantity,
      unit_of_measure_id: r.unitOfMeasureId,
      family_unit_of_measure_id: toOrNull(unitId, r.familyUnitOfMeasureId),
      is_approximate: r.isApproximate,
      quantity_note: r.quantityNote,
      product_id: r.productId,
      family_product_id: toOrNull(productId, r.familyProductId),
      created_at: r.createdAt,
    });

    // Writes, referenced tables first.
    const units = await w.insertMany(
      'family_units_of_measure',
      doc.units.map((u) => ({
        id: to(unitId, u.id),
        name: u.name,
        abbreviation: u.abbreviation,
        category: u.category,
        created_at: u.createdAt,
      })),
    );
    const products = await w.insertMany(
      'family_products',
      familyProducts.map((p) => ({
        id: to(productId, p.id),
        name: p.name,
        unit_category_flags: flagsToBits(p.unitCategoryFlags),
        category: p.category ?? null,
        created_at: p.createdAt,
      })),
    );
    const overridden = await w.insertMany(
      'family_product_overrides',
      overrides.map((p) => {
        const o = p.override ?? { name: p.name, unitCategoryFlags: p.unitCategoryFlags, category: p.category };
        return {
          id: newId(),
          product_id: p.id,
          name: o.name,
          unit_category_flags: o.unitCategoryFlags == null ? null : flagsToBits(o.unitCategoryFlags),
          category: o.category ?? null,
        };
      }),
    );
    const stores = await w.insertMany(
      'stores',
      doc.stores.map((s) => ({ id: to(storeId, s.id), name: s.name, created_at: s.createdAt })),
    );
    const sections = await w.insertMany(
      'store_sections',
      doc.sections.map((s) => ({
        id: to(sectionId, s.id),
        store_id: to(storeId, s.storeId),
        name: s.name,
        position: s.position,
        category: s.category ?? null,
        created_at: s.createdAt,
      })),
    );
    const lists = await w.insertMany(
      'shopping_lists',
      doc.lists.map((l) => ({
        id: to(listId, l.id),
        name: l.name,
        store_id: toOrNull(storeId, l.storeId),
        archived_at: l.archivedAt,
        created_at: l.createdAt,
      })),
    );
    const items = await w.insertMany(
      'shopping_list_items',
      doc.items.map((i) => ({
        id: to(itemId, i.id),
        list_id: to(listId, i.listId),
        ...quantity(i),
        section_id: toOrNull(sectionId, i.sectionId),
        checked: i.checked,
        checked_at: i.checkedAt,
        removed_at: i.removedAt,
        removed_by_user_id: i.removedByUserId != null && members.has(i.removedByUserId) ? i.removedByUserId : null,
      })),
    );
    const recipes = await w.insertMany(
      'recipes',
      doc.recipes.map((r) => ({
        id: to(recipeId, r.id),
        name: r.name,
        servings: r.servings,
        instructions: r.instructions,
        created_at: r.createdAt,
      })),
    );
    const ingredients = await w.insertMany(
      'recipe_ingredients',
      doc.ingredients.map((i) => ({
        id: to(ingredientId, i.id),
        recipe_id: to(recipeId, i.recipeId),
        ...quantity(i),
        position: i.position,
      })),
    );
    const remembered = await w.insertMany(
      'product_store_sections',
      memory.map((x) => ({
        id: memoryTaken.has(x.id) ? newId() : x.id,
        store_id: x.store,
        product_id: x.product.productId,
        family_product_id: x.product.familyProductId,
        section_id: to(sectionId, x.m.sectionId),
      })),
    );

    return {
      imported: {
        units: units.length,
        products: products.length + overridden.length,
        stores: stores.length,
        sections: sections.length,
        lists: lists.length,
        items: items.length,
        recipes: recipes.length,
        ingredients: ingredients.length,
        sectionMemory: remembered.length,
      },
    };
  });
}
