// Applies one accepted push row through the features' inner functions, so a push obeys every
// rule REST obeys and emits the same live events. `server` is the family's current doc (null for
// an insert), `next` the validated new state; only fields that differ on the client side are sent
// to the features. Errors are AppErrors (the push turns them into `rejected` rows).
import type { Actor } from '../context.js';
import type { FamilyWrite } from '../db/family-write.js';
import { AppError, badRequest, validationFailed } from '../errors.js';
import {
  fieldEqual,
  QUANTITY_FIELDS,
  type Category,
  type CollectionName,
  type Doc,
  type QuantityPatch,
} from '@family-shopping/client/protocol';
import * as lists from '../lists/public.js';
import {
  createSection,
  createStore,
  deleteSection,
  renameStore,
  requireSectionAdmin,
  updateSection,
  storeRow,
} from '../stores/public.js';
import * as recipes from '../recipes/public.js';
import {
  clearOverride,
  createFamilyProduct,
  createFamilyUnit,
  deleteFamilyUnit,
  setOverride,
  updateFamilyProduct,
  updateFamilyUnit,
  bitsToFlags,
  type UnitCategoryName,
} from '../catalog/public.js';
import { baseGlobalProduct } from './queries.js';
import type { Row, WireDoc } from './docs.js';

/** Field paths of a push's errors name the pushed doc. */
const PUSHED = { prefix: 'newDocumentState' } as const;

/** What the rows of one push share: the live lists read so far (item rows never change or
 *  delete a list, so within one push a list is read once). */
export interface PushContext {
  liveLists: Map<string, Row>;
}

export const newPushContext = (): PushContext => ({ liveLists: new Map() });

export const readOnly = (message: string) => new AppError(400, 'read_only', message);

export const cannotMove = (field: string) =>
  validationFailed([{ path: `newDocumentState.${field}`, message: `cannot change once created` }]);

/** Fields (of `fields`) whose value differs between the server doc and the new state. */
function changes<T extends object, K extends keyof T & string>(server: T, next: T, fields: readonly K[]): Partial<T> {
  const patch: Partial<T> = {};
  for (const f of fields) if (!fieldEqual(f, server[f], next[f])) patch[f] = next[f];
  return patch;
}

/** Both ids of a pair go together when either changed (so the feature never "switches over"). */
function withPairs<T extends object>(
  patch: Partial<T>,
  next: T,
  pairs: ReadonlyArray<readonly [keyof T & string, keyof T & string]>,
): Partial<T> {
  for (const [a, b] of pairs) {
    if (a in patch || b in patch) {
      patch[a] = next[a];
      patch[b] = next[b];
    }
  }
  return patch;
}

const PAIRS = [
  ['unitOfMeasureId', 'familyUnitOfMeasureId'],
  ['productId', 'familyProductId'],
] as const;

/** The name and quantity fields of a pushed item or ingredient doc, as an add takes them. */
const quantityValues = (n: Doc<'items'> | Doc<'ingredients'>): QuantityPatch =>
  Object.fromEntries(QUANTITY_FIELDS.map((k) => [k, n[k]]));

/** The live list row, read once per push (`ctx.liveLists`). */
export async function requireList(w: FamilyWrite, ctx: PushContext, listId: string): Promise<Row> {
  const known = ctx.liveLists;
  const cached = known.get(listId);
  if (cached) return cached;
  const row = await lists.listRow(w.trx, w.familyId, listId);
  if (!row) {
    throw badRequest('list_not_found', 'The list does not exist', [
      { path: 'newDocumentState.listId', message: 'unknown list' },
    ]);
  }
  known.set(listId, row);
  return row;
}

async function requireStore(w: FamilyWrite, storeId: string): Promise<void> {
  if (!(await storeRow(w.trx, w.familyId, storeId))) {
    throw badRequest('store_not_found', 'The store does not exist', [
      { path: 'newDocumentState.storeId', message: 'unknown store' },
    ]);
  }
}

async function requireRecipe(w: FamilyWrite, recipeId: string): Promise<void> {
  if (!(await recipes.recipeRow(w.trx, w.familyId, recipeId))) {
    throw badRequest('recipe_not_found', 'The recipe does not exist', [
      { path: 'newDocumentState.recipeId', message: 'unknown recipe' },
    ]);
  }
}

/** The server doc and the new state of a row of collection C (push.ts validated both). */
type Pair<C extends CollectionName> = [s: Doc<C> | null, n: Doc<C>];
const docsOf = <C extends CollectionName>(_c: C, server: WireDoc | null, next: WireDoc): Pair<C> => [
  server as unknown as Doc<C> | null,
  next as unknown as Doc<C>,
];

export async function applyRow(
  w: FamilyWrite,
  ctx: PushContext,
  actor: Actor,
  collection: CollectionName,
  server: WireDoc | null,
  next: WireDoc,
): Promise<void> {
  switch (collection) {
    case 'lists':
      return applyList(w, actor, ...docsOf('lists', server, next));
    case 'items':
      return applyItem(w, ctx, actor, ...docsOf('items', server, next));
    case 'stores': {
      const [s, n] = docsOf('stores', server, next);
      // As in REST: any member's new store gets the default sections (they reach clients by pull).
      if (!s) return void (await createStore(w, actor, { id: n.id, name: n.name }));
      if (n._deleted) return lists.deleteStoreAndDetachLists(w, actor, n.id);
      if (!fieldEqual('name', s.name, n.name)) await renameStore(w, actor, n.id, { name: n.name });
      return;
    }
    case 'sections':
      return applySection(w, actor, ...docsOf('sections', server, next));
    case 'recipes': {
      const [s, n] = docsOf('recipes', server, next);
      if (!s) {
        await recipes.createRecipe(
          w,
          actor,
          { id: n.id, name: n.name, servings: n.servings, instructions: n.instructions },
          PUSHED,
        );
        return;
      }
      if (n._deleted) return recipes.deleteRecipe(w, actor, n.id);
      const patch = changes(s, n, ['name', 'servings', 'instructions']);
      if (Object.keys(patch).length) await recipes.updateRecipe(w, actor, n.id, patch);
      return;
    }
    case 'ingredients':
      return applyIngredient(w, actor, ...docsOf('ingredients', server, next));
    case 'products':
      return applyProduct(w, actor, ...docsOf('products', server, next));
    case 'units':
      return applyUnit(w, actor, ...docsOf('units', server, next));
    case 'sectionMemory':
      throw readOnly('Section memory is derived by the server from where items are placed');
  }
}

async function applyList(w: FamilyWrite, actor: Actor, s: Doc<'lists'> | null, n: Doc<'lists'>): Promise<void> {
  if (!s) {
    await lists.createList(w, actor, { id: n.id, name: n.name, storeId: n.storeId }, PUSHED);
    if (n.archivedAt != null) await archiveWithTime(w, actor, n.id, n.archivedAt);
    return;
  }
  if (n._deleted) return lists.deleteList(w, actor, n.id);
  const patch = changes(s, n, ['name', 'storeId']);
  if (Object.keys(patch).length) await lists.updateList(w, actor, n.id, patch, PUSHED);
  if (!fieldEqual('archivedAt', s.archivedAt, n.archivedAt)) {
    if (n.archivedAt == null) await lists.unarchiveList(w, actor, n.id);
    else await archiveWithTime(w, actor, n.id, n.archivedAt);
  }
}

/** Archives a list at the pushed time (a client-controlled field, as `removedAt`): the server
 *  keeps what the client has, so the two never stay apart (two devices archiving the same list
 *  offline end with the later push's time on both). */
async function archiveWithTime(w: FamilyWrite, actor: Actor, listId: string, archivedAt: string): Promise<void> {
  const at = pushedInstant('archivedAt', archivedAt);
  const list = await lists.archiveList(w, actor, listId);
  if (!fieldEqual('archivedAt', list.archivedAt, archivedAt)) {
    await w.update('shopping_lists', { id: listId, deleted: false }, { archived_at: at });
  }
}

/**
 * A time pushed by a client, to be stored as is. ISO 8601 admits years the database cannot hold
 * alike on every backend (year 0 is 1 BC on PostgreSQL and an error on the embedded one), so
 * only the years 1 to 9999 (UTC) are taken; anything else is validation_failed.
 */
export function pushedInstant(field: string, value: string): Date {
  const at = new Date(value);
  const year = at.getUTCFullYear();
  if (Number.isNaN(at.getTime()) || year < 1 || year > 9999) {
    throw validationFailed([
      { path: `newDocumentState.${field}`, message: 'Must be a time between the years 1 and 9999 (UTC)' },
    ]);
  }
  return at;
}

async function applyItem(
  w: FamilyWrite,
  ctx: PushContext,
  actor: Actor,
  s: Doc<'items'> | null,
  n: Doc<'items'>,
): Promise<void> {
  if (!s) {
    const list = await requireList(w, ctx, n.listId);
    await lists.createItem(
      w,
      actor,
      n.listId,
      itemInput(n),
      // `s` is null: no row has this id (push read it in this transaction). Items added offline
      // keep the order they were added in: the device's createdAt when it is earlier than now
      // (otherwise every item of one push would share the push's time and sort by id).
      { ...PUSHED, list, idIsFree: true, pushed: true, createdAt: pushedCreatedAt(w, n.createdAt) },
    );
    if (n.checked) await lists.updateItem(w, actor, n.listId, n.id, { checked: true }, PUSHED);
    if (n.removedAt != null) await removeWithTime(w, actor, n.listId, n.id, n.removedAt);
    return;
  }
  if (n._deleted) {
    // Items have no hard delete in REST: the push tombstones the row directly.
    const [row] = await w.tombstone('shopping_list_items', { id: n.id });
    if (row && row.removed_at == null) {
      w.emit({ type: 'ItemRemoved', listId: s.listId, itemId: n.id, removedByUserId: actor.userId });
      await lists.emitListProgress(w, s.listId);
    }
    return;
  }
  if (!fieldEqual('listId', s.listId, n.listId)) throw cannotMove('listId');
  await requireList(w, ctx, s.listId);
  // Restore first (an edit may come with it), remove last (the edit is kept on the removed item).
  if (s.removedAt != null && n.removedAt == null) await lists.restoreItem(w, actor, s.listId, n.id);
  const patch = itemPatch(s, n);
  if (Object.keys(patch).length)
    await lists.updateItem(w, actor, s.listId, n.id, patch, { ...PUSHED, allowRemoved: true });
  if (s.removedAt == null && n.removedAt != null) await removeWithTime(w, actor, s.listId, n.id, n.removedAt);
}

/** The insert of a pushed item doc. */
export function itemInput(n: Doc<'items'>): lists.ItemInput {
  return { id: n.id, ...quantityValues(n), sectionId: n.sectionId };
}

/** The edit a pushed item doc makes to the server's doc (removal and restore aside). */
export function itemPatch(s: Doc<'items'>, n: Doc<'items'>): lists.ItemPatch {
  return withPairs(changes(s, n, [...QUANTITY_FIELDS, 'sectionId', 'checked']), n, PAIRS);
}

/** The creation time of a pushed insert: the device's, when it is a valid time earlier than the
 *  write's; else the write's. */
export function pushedCreatedAt(w: FamilyWrite, createdAt: unknown): Date | undefined {
  const at = typeof createdAt === 'string' ? new Date(createdAt) : null;
  if (!at || Number.isNaN(at.getTime()) || at.getUTCFullYear() < 1 || at >= w.now) return undefined;
  return at;
}

/** Removal through push keeps the client's removal time, so a later restore from that client
 *  (based on the doc it pushed) is "a restore by a client that saw the removal". */
async function removeWithTime(
  w: FamilyWrite,
  actor: Actor,
  listId: string,
  itemId: string,
  removedAt: string,
): Promise<void> {
  const at = pushedInstant('removedAt', removedAt);
  const item = await lists.removeItem(w, actor, listId, itemId);
  if (!fieldEqual('removedAt', item.removedAt, removedAt)) {
    await w.update('shopping_list_items', { id: itemId, deleted: false }, { removed_at: at });
  }
}

async function applySection(
  w: FamilyWrite,
  actor: Actor,
  s: Doc<'sections'> | null,
  n: Doc<'sections'>,
): Promise<void> {
  // The store first: a new store's default sections, pushed (by any member) before the store
  // itself, wait for it (parent_missing) and then equal the sections the store brings.
  if (!s) await requireStore(w, n.storeId);
  requireSectionAdmin(actor);
  if (!s) {
    await createSection(w, actor, n.storeId, { id: n.id, name: n.name, position: n.position, category: n.category });
    return;
  }
  if (n._deleted) return deleteSection(w, actor, s.storeId, n.id);
  if (!fieldEqual('storeId', s.storeId, n.storeId)) throw cannotMove('storeId');
  const patch = changes(s, n, ['name', 'position', 'category']);
  if (Object.keys(patch).length) await updateSection(w, actor, s.storeId, n.id, patch);
}

async function applyIngredient(
  w: FamilyWrite,
  actor: Actor,
  s: Doc<'ingredients'> | null,
  n: Doc<'ingredients'>,
): Promise<void> {
  if (!s) {
    await requireRecipe(w, n.recipeId);
    await recipes.addIngredient(w, actor, n.recipeId, { id: n.id, ...quantityValues(n), position: n.position }, PUSHED);
    return;
  }
  if (n._deleted) return recipes.deleteIngredient(w, actor, s.recipeId, n.id);
  if (!fieldEqual('recipeId', s.recipeId, n.recipeId)) throw cannotMove('recipeId');
  const patch: recipes.IngredientPatch = withPairs(changes(s, n, [...QUANTITY_FIELDS, 'position']), n, PAIRS);
  if (Object.keys(patch).length) await recipes.updateIngredient(w, actor, s.recipeId, n.id, patch, PUSHED);
}

async function applyProduct(
  w: FamilyWrite,
  actor: Actor,
  s: Doc<'products'> | null,
  n: Doc<'products'>,
): Promise<void> {
  if (n.kind === 'global' || s?.kind === 'global') {
    if (!s) throw readOnly('Global products cannot be created; create a family product (kind "family")');
    if (n.kind !== s.kind) throw cannotMove('kind');
    if (n._deleted) throw readOnly('Global products cannot be deleted');
    // A global doc's name, flags and category are the family's override of the product. A
    // category the override cannot hold (null while the global product has one) follows the
    // global product: the doc comes back with the effective one.
    const base = (await baseGlobalProduct(w.trx, w.familyId, n.id))!;
    const nameDiffers = n.name !== base.name;
    const flagsDiffer = !fieldEqual(
      'unitCategoryFlags',
      n.unitCategoryFlags,
      bitsToFlags(Number(base.unit_category_flags)),
    );
    const categoryDiffers = n.category != null && n.category !== base.category;
    if (!nameDiffers && !flagsDiffer && !categoryDiffers) {
      if (s.overridden) await clearOverride(w, actor, n.id);
      return;
    }
    await setOverride(w, actor, n.id, {
      name: nameDiffers ? n.name : null,
      unitCategoryFlags: flagsDiffer ? (n.unitCategoryFlags as UnitCategoryName[]) : null,
      category: categoryDiffers ? (n.category as Category) : null,
    });
    return;
  }
  if (!s) {
    await createFamilyProduct(w, actor, {
      id: n.id,
      name: n.name,
      unitCategoryFlags: n.unitCategoryFlags,
      category: n.category,
    });
    return;
  }
  if (n._deleted) return lists.deleteProductAndUnlinkItems(w, actor, n.id);
  const patch = changes(s, n, ['name', 'unitCategoryFlags', 'category']);
  if (Object.keys(patch).length) await updateFamilyProduct(w, actor, n.id, patch);
}

async function applyUnit(w: FamilyWrite, actor: Actor, s: Doc<'units'> | null, n: Doc<'units'>): Promise<void> {
  if (n.kind === 'global' || s?.kind === 'global') throw readOnly('Global units are read-only');
  if (!s) {
    await createFamilyUnit(w, actor, { id: n.id, name: n.name, abbreviation: n.abbreviation, category: n.category });
    return;
  }
  if (n._deleted) return deleteFamilyUnit(w, actor, n.id);
  const patch = changes(s, n, ['name', 'abbreviation', 'category']);
  if (Object.keys(patch).length) await updateFamilyUnit(w, actor, n.id, patch);
}
