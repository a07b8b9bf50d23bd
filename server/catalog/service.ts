// Catalog rules: family products, overrides of global products, family units. The write
// functions work on a FamilyWrite `w` (one transaction, one family version) so REST handlers
// and replication push share them; reads take the database handle directly.
import type { Actor } from '../context.js';
import type { Db } from '../db/knex.js';
import type { FamilyWrite } from '../db/family-write.js';
import { newId } from '../db/ids.js';
import { FAMILY_CATALOG_TABLES } from '../db/replicated-tables.js';
import { conflict, notFound } from '../errors.js';
import { flagsToBits, type UnitCategoryName } from './flags.js';
import * as q from './queries.js';
import { toProduct, toUnit, type ProductRecord, type UnitRecord } from './records.js';
import {
  CATALOG_REFUSALS,
  searchProducts as searchEffective,
  sortUnits,
  type Category,
} from '@family-shopping/client/protocol';

export interface FamilyProductInput {
  id?: string;
  name: string;
  unitCategoryFlags?: UnitCategoryName[];
  category?: Category | null;
}

export interface FamilyProductPatch {
  name?: string;
  unitCategoryFlags?: UnitCategoryName[];
  category?: Category | null;
}

/** An override replaces the family's previous one; a field left out (or null) follows the
 *  global product. */
export interface OverrideInput {
  name?: string | null;
  unitCategoryFlags?: UnitCategoryName[] | null;
  category?: Category | null;
}

export interface FamilyUnitInput {
  id?: string;
  name: string;
  abbreviation: string;
  category: UnitCategoryName;
}

export interface FamilyUnitPatch {
  name?: string;
  abbreviation?: string;
  category?: UnitCategoryName;
}

/** A create's outcome: `created` false when a client-chosen id already named this family's record. */
export interface Created<T> {
  record: T;
  created: boolean;
}

const productNotFound = () => notFound('Product not found');
const unitNotFound = () => notFound('Unit not found');
const { idTaken, duplicateProductName, abbreviationTaken: taken, unitInUse } = CATALOG_REFUSALS;
const idConflict = () => conflict(idTaken.code, idTaken.message);
const duplicateName = () => conflict(duplicateProductName.code, duplicateProductName.message);
const abbreviationTaken = () => conflict(taken.code, taken.message);

function sameFamily(w: FamilyWrite, actor: Actor | null): void {
  if (actor && actor.familyId !== w.familyId) throw new Error('actor and family write disagree');
}

async function effectiveProduct(w: FamilyWrite, id: string): Promise<ProductRecord> {
  const row = await q.effectiveProductById(w.trx, w.familyId, id);
  if (!row) throw productNotFound();
  return toProduct(row);
}

// Reads

/** Case-insensitive substring match, prefix matches first, then by name: the protocol's
 *  `searchProducts` over the effective catalog (the SDK's products.search$ is the same function).
 *  The effective name is in the family's locale; a global product the family did not rename is
 *  also found by its English name, the record's `englishName` (api-contract §12). */
export async function searchProducts(db: Db, familyId: string, text: string, limit: number): Promise<ProductRecord[]> {
  return searchEffective((await q.allEffectiveProducts(db, familyId)).map(toProduct), text, limit);
}

/** Global units, then the family's, each by category then name: the protocol's `sortUnits`. */
export async function listUnits(db: Db, familyId: string): Promise<UnitRecord[]> {
  return sortUnits((await q.effectiveUnits(db, familyId)).map(toUnit));
}

// Family products

export async function createFamilyProduct(
  w: FamilyWrite,
  actor: Actor | null,
  input: FamilyProductInput,
): Promise<Created<ProductRecord>> {
  sameFamily(w, actor);
  const id = input.id?.toLowerCase() ?? newId();
  if (input.id) {
    const existing = await q.familyProductAnyFamily(w.trx, id);
    if (existing) {
      if (existing.family_id === w.familyId && !existing.deleted) {
        return { record: await effectiveProduct(w, id), created: false };
      }
      throw idConflict();
    }
    // Global and family products share one id space (the replicated `products` collection).
    if (await q.globalProductExists(w.trx, id)) throw idConflict();
  }
  if (await q.familyProductNameTaken(w.trx, w.familyId, input.name)) throw duplicateName();
  await w.insert('family_products', {
    id,
    name: input.name,
    unit_category_flags: flagsToBits(input.unitCategoryFlags ?? []),
    category: input.category ?? null,
    deleted: false,
  });
  return { record: await effectiveProduct(w, id), created: true };
}

export async function updateFamilyProduct(
  w: FamilyWrite,
  actor: Actor | null,
  id: string,
  patch: FamilyProductPatch,
): Promise<ProductRecord> {
  sameFamily(w, actor);
  const row = await q.liveFamilyProduct(w.trx, w.familyId, id);
  if (!row) throw productNotFound();
  const changes: Record<string, unknown> = {};
  if (patch.name !== undefined) {
    if (await q.familyProductNameTaken(w.trx, w.familyId, patch.name, row.id)) throw duplicateName();
    changes.name = patch.name;
  }
  if (patch.unitCategoryFlags !== undefined) changes.unit_category_flags = flagsToBits(patch.unitCategoryFlags);
  if (patch.category !== undefined) changes.category = patch.category;
  await w.update('family_products', { id: row.id }, changes);
  return effectiveProduct(w, row.id);
}

/**
 * Tombstones the family product; ingredients that link it keep their name and lose the link;
 * the stores forget their remembered section for it. Items lose the link in the lists feature,
 * which builds on the catalog: call `deleteProductAndUnlinkItems` (lists/service.ts). The id
 * as stored.
 */
export async function deleteFamilyProduct(w: FamilyWrite, actor: Actor | null, id: string): Promise<string> {
  sameFamily(w, actor);
  const row = await q.liveFamilyProduct(w.trx, w.familyId, id);
  if (!row) throw productNotFound();
  await w.tombstone('family_products', { id: row.id });
  await w.update('recipe_ingredients', { family_product_id: row.id, deleted: false }, { family_product_id: null });
  await w.tombstone('product_store_sections', { family_product_id: row.id });
  return String(row.id);
}

// Overrides of global products

export async function setOverride(
  w: FamilyWrite,
  actor: Actor | null,
  productId: string,
  input: OverrideInput,
): Promise<ProductRecord> {
  sameFamily(w, actor);
  if (!(await q.globalProductExists(w.trx, productId))) throw productNotFound();
  const values = {
    name: input.name ?? null,
    unit_category_flags: input.unitCategoryFlags == null ? null : flagsToBits(input.unitCategoryFlags),
    category: input.category ?? null,
  };
  const existing = await q.liveOverride(w.trx, w.familyId, productId);
  if (existing) await w.update('family_product_overrides', { id: existing.id }, values);
  else await w.insert('family_product_overrides', { id: newId(), product_id: productId, deleted: false, ...values });
  return effectiveProduct(w, productId);
}

export async function clearOverride(w: FamilyWrite, actor: Actor | null, productId: string): Promise<void> {
  sameFamily(w, actor);
  if (!(await q.globalProductExists(w.trx, productId))) throw productNotFound();
  await w.tombstone('family_product_overrides', { product_id: productId });
}

// The family's locale (api-contract §12)

/**
 * Call in the family write that changes the family's locale: every global product's effective
 * name follows it, so the commit's `Changed` names `products` and the family's online devices
 * pull it at once. Their pull, seeing a global cursor read in another locale, reads the global
 * catalog again from the start in the new one (server/sync/pull.ts); no row is stamped here, the
 * family version this write took is the change devices see.
 */
export function onFamilyLocaleChanged(w: FamilyWrite): void {
  w.stamp(FAMILY_CATALOG_TABLES.products[0]);
}

// Family units

export async function createFamilyUnit(
  w: FamilyWrite,
  actor: Actor | null,
  input: FamilyUnitInput,
): Promise<Created<UnitRecord>> {
  sameFamily(w, actor);
  const id = input.id?.toLowerCase() ?? newId();
  if (input.id) {
    const existing = await q.familyUnitAnyFamily(w.trx, id);
    if (existing) {
      const own = existing.family_id === w.familyId && !existing.deleted;
      if (!own) throw idConflict();
      return { record: toUnit((await q.liveFamilyUnit(w.trx, w.familyId, id))!), created: false };
    }
    if (await q.globalUnitExists(w.trx, id)) throw idConflict();
  }
  if (await q.abbreviationTaken(w.trx, w.familyId, input.abbreviation)) throw abbreviationTaken();
  await w.insert('family_units_of_measure', {
    id,
    name: input.name,
    abbreviation: input.abbreviation,
    category: input.category,
    deleted: false,
  });
  return { record: toUnit((await q.liveFamilyUnit(w.trx, w.familyId, id))!), created: true };
}

export async function updateFamilyUnit(
  w: FamilyWrite,
  actor: Actor | null,
  id: string,
  patch: FamilyUnitPatch,
): Promise<UnitRecord> {
  sameFamily(w, actor);
  const row = await q.liveFamilyUnit(w.trx, w.familyId, id);
  if (!row) throw unitNotFound();
  const changes: Record<string, unknown> = {};
  if (patch.name !== undefined) changes.name = patch.name;
  if (patch.category !== undefined) changes.category = patch.category;
  if (patch.abbreviation !== undefined) {
    if (await q.abbreviationTaken(w.trx, w.familyId, patch.abbreviation, row.id)) throw abbreviationTaken();
    changes.abbreviation = patch.abbreviation;
  }
  await w.update('family_units_of_measure', { id: row.id }, changes);
  return toUnit((await q.liveFamilyUnit(w.trx, w.familyId, row.id))!);
}

/** Blocked (409 unit_in_use) while a live ingredient or any live list item, removed ones too, uses it. */
export async function deleteFamilyUnit(w: FamilyWrite, actor: Actor | null, id: string): Promise<void> {
  sameFamily(w, actor);
  const row = await q.liveFamilyUnit(w.trx, w.familyId, id);
  if (!row) throw unitNotFound();
  if (await q.familyUnitInUse(w.trx, w.familyId, row.id)) {
    throw conflict(unitInUse.code, unitInUse.message);
  }
  await w.tombstone('family_units_of_measure', { id: row.id });
}
