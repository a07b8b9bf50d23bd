// Shopping-list items: structured quantities, the unit and product pairs, sections with section
// memory, check toggle, soft removal and restore (spec §3 item state table). Inner functions take
// a FamilyWrite `w` and the actor, enforce every rule and emit the live events; REST handlers and
// the replication push share them.
import type { Actor } from '../context.js';
import type { FamilyWrite } from '../db/family-write.js';
import { newId } from '../db/ids.js';
import { badRequest, notFound } from '../errors.js';
import { assertProductRef, assertUnitRef, productCategory, productName, type KnownRefs } from '../catalog/public.js';
import { recallSection, rememberSection, sectionRow, sectionRows, toPlacementSection } from '../stores/public.js';
import {
  checkEdit,
  completePairs,
  hasProduct,
  nameForAdd,
  patchedProduct,
  patchRefs,
  placeItem,
  remembersPlacement,
  removal,
  restoration,
  sectionEdit,
  type Category,
  type Placement,
  type PlacementSection,
  type RemovalFields,
  QUANTITY_FIELDS,
  type QuantityPatch,
} from '@family-shopping/client/protocol';
import { changedColumns } from '../shared/record-fields.js';
import { existingForCreate, fieldPath, lower, type Created, type PathOptions, type Row } from '../shared/common.js';
import { itemRow, listCounts } from './queries.js';
import { liveList } from './service.js';
import { toItem, type ItemRecord } from './records.js';

export interface ItemInput extends QuantityPatch {
  id?: string;
  sectionId?: string | null;
}

/** Fields absent (undefined) are left as they are. */
export interface ItemPatch extends QuantityPatch {
  sectionId?: string | null;
  checked?: boolean;
}

// --- progress events: one ListProgress per list per family write, with the final counts -------

interface PendingProgress {
  event: { type: 'ListProgress'; listId: string; itemCount: number; checkedCount: number };
  emittedBy: WeakSet<FamilyWrite>;
}

/** Emits ListProgress for a list once per write; the counts are read once, just before commit,
 *  so a write touching many items of a list counts them once (not once per item). */
export async function emitListProgress(w: FamilyWrite, listId: string): Promise<void> {
  let byList = w.scratch.get('listProgress') as Map<string, PendingProgress> | undefined;
  if (!byList) {
    w.scratch.set('listProgress', (byList = new Map()));
    const lists = byList;
    w.beforeCommit(async (trx) => {
      for (const [id, p] of lists) Object.assign(p.event, await listCounts(trx, w.familyId, id));
    });
  }
  let pending = byList.get(listId);
  if (!pending) {
    pending = { event: { type: 'ListProgress', listId, itemCount: 0, checkedCount: 0 }, emittedBy: new WeakSet() };
    byList.set(listId, pending);
  }
  // Each (child) write emits it once; a savepoint write that rolls back drops its copy.
  if (!pending.emittedBy.has(w)) {
    pending.emittedBy.add(w);
    w.emit(pending.event);
  }
}

// --- helpers ----------------------------------------------------------------------------------

async function liveItem(w: FamilyWrite, listId: string, itemId: string, allowRemoved: boolean): Promise<Row> {
  const row = await itemRow(w.trx, w.familyId, listId, itemId);
  if (!row || (!allowRemoved && row.removed_at != null)) throw notFound('Item not found');
  return row;
}

/** Live sections of the family by id → their store, read in bulk for many rows (replication
 *  push). */
export type KnownSections = ReadonlyMap<string, string>;

/** A section must be a live section of the list's store. */
export async function assertSection(
  w: FamilyWrite,
  list: Row,
  sectionId: string,
  o: PathOptions,
  known?: KnownSections,
): Promise<void> {
  const storeId = list.store_id == null ? null : String(list.store_id);
  const ok =
    storeId != null &&
    (known ? known.get(sectionId) === storeId : !!(await sectionRow(w.trx, w.familyId, storeId, sectionId)));
  if (!ok) {
    throw badRequest('section_not_found', "The section is not a section of the list's store", [
      { path: fieldPath(o, 'sectionId'), message: "not a section of the list's store" },
    ]);
  }
}

function sectionChanged(
  w: FamilyWrite,
  listId: string,
  itemId: string,
  sectionId: string | null,
  previous: string | null,
) {
  w.emit({ type: 'ItemSectionChanged', listId, itemId, sectionId, previousSectionId: previous });
}

const productOf = (r: { productId?: string | null; familyProductId?: string | null }) => ({
  productId: r.productId ?? null,
  familyProductId: r.familyProductId ?? null,
});

// --- inner operations -------------------------------------------------------------------------

/** Adds an item, placed as api-contract §10 says (protocol `placeItem`): an explicit `sectionId`
 *  (remembered for the product) → the section the list's store remembers for the product → the
 *  first section in walking order of that store whose category is the product's effective
 *  category (not remembered) → none. Re-sending a known id → the
 *  existing item with `created: false`. `createdAt` (default: the write's time) lets a caller
 *  that adds several items in one write keep their order. Events: ItemAdded, ItemSectionChanged (when it got a
 *  section), ListProgress. */
export async function createItem(
  w: FamilyWrite,
  _actor: Actor,
  listId: string,
  input: ItemInput,
  o: PathOptions & {
    createdAt?: Date;
    /** The live list row, when the caller has already read it in this write (replication). */
    list?: Row;
    /** The caller has checked that no row has this id (replication push). */
    idIsFree?: boolean;
    /** A device's insert (replication push): its `sectionId` may be the device's own placement. */
    pushed?: boolean;
  } = {},
): Promise<Created<ItemRecord>> {
  const list = o.list ?? (await liveList(w, listId));
  const existing = o.idIsFree ? null : await existingForCreate(w, 'shopping_list_items', lower(input.id));
  if (existing) return { record: toItem(existing), created: false };

  const plan = await planCreateItem(w, listId, list, input, o);
  if (plan.remember) await rememberSection(w, ...plan.remember);
  const row = await w.insert('shopping_list_items', plan.row);
  const item = toItem(row);
  await emitItemAdded(w, listId, item);
  return { record: item, created: true };
}

/** References read in bulk for many rows of one write (replication push): the rules check
 *  against them instead of reading each reference. */
export interface KnownItemRefs {
  refs: KnownRefs;
  sections: KnownSections;
  /** The section a store remembers for a product (what `recallSection` reads). */
  recall(storeId: string | null, product: { productId: string | null; familyProductId: string | null }): string | null;
  /** The product's effective category (what `productCategory` reads). */
  category(product: { productId: string | null; familyProductId: string | null }): Category | null;
  /** The live sections of a store (what placement by category reads). */
  storeSections(storeId: string): readonly PlacementSection[];
}

type Remember = [
  storeId: string | null,
  product: { productId: string | null; familyProductId: string | null },
  sectionId: string | null,
];

/**
 * The name, quantity, unit and product columns of a new item or ingredient, with the unit and
 * product checked (ids in any letter case; the name: the product's when none is given); and
 * the product pair, which placement reads.
 */
export async function quantityColumnsForAdd(w: FamilyWrite, input: QuantityPatch, o: PathOptions, refs?: KnownRefs) {
  const unit = {
    unitOfMeasureId: lower(input.unitOfMeasureId) ?? null,
    familyUnitOfMeasureId: lower(input.familyUnitOfMeasureId) ?? null,
  };
  const product = productOf({ productId: lower(input.productId), familyProductId: lower(input.familyProductId) });
  await assertUnitRef(w.trx, w.familyId, unit, o, refs);
  await assertProductRef(w.trx, w.familyId, product, o, refs);
  const name = nameForAdd(input.name, input.name == null ? await productName(w.trx, w.familyId, product) : null);
  const columns = {
    name,
    quantity: input.quantity ?? null,
    unit_of_measure_id: unit.unitOfMeasureId,
    family_unit_of_measure_id: unit.familyUnitOfMeasureId,
    is_approximate: input.isApproximate ?? false,
    quantity_note: input.quantityNote ?? null,
    product_id: product.productId,
    family_product_id: product.familyProductId,
  };
  return { columns, product };
}

/** The checks of an item insert and the row to insert; `remember`: the placement to remember
 *  (section memory), when there is one. Writes nothing. */
export async function planCreateItem(
  w: FamilyWrite,
  listId: string,
  list: Row,
  input: ItemInput,
  o: PathOptions & { createdAt?: Date; pushed?: boolean },
  known?: KnownItemRefs,
): Promise<{ row: Row; remember: Remember | null }> {
  const { columns, product } = await quantityColumnsForAdd(w, input, o, known?.refs);
  const storeId = list.store_id == null ? null : String(list.store_id);
  const placement = await placeNewItem(w, list, storeId, product, lower(input.sectionId) ?? null, o, known);
  const remember: Remember | null = remembersPlacement(placement, storeId, product)
    ? [storeId, product, placement.sectionId]
    : null;
  const sectionId = placement.sectionId;

  const row: Row = {
    id: lower(input.id) ?? newId(),
    list_id: listId,
    ...columns,
    section_id: sectionId,
    ...(o.createdAt ? { created_at: o.createdAt } : {}),
  };
  return { row, remember };
}

/** Where a new item goes (§10, protocol `placeItem`); reads only what the step reached needs:
 *  the memory without an explicit section, the category and the store's sections without
 *  either. A pushed insert's `sectionId` is kept; when it is the section the device's own
 *  placement gives (memory or category: the SDK places offline as the server does), it counts
 *  as that placement, so a placement by category is not remembered on either side. */
async function placeNewItem(
  w: FamilyWrite,
  list: Row,
  storeId: string | null,
  product: { productId: string | null; familyProductId: string | null },
  explicit: string | null,
  o: PathOptions & { pushed?: boolean },
  known?: KnownItemRefs,
): Promise<Placement> {
  if (explicit) await assertSection(w, list, explicit, o, known?.sections);
  if (explicit && !o.pushed)
    return placeItem({ sectionId: explicit, remembered: null, productCategory: null, sections: [] });
  const remembered = known ? known.recall(storeId, product) : await recallSection(w, storeId, product);
  let category: Category | null = null;
  let sections: readonly PlacementSection[] = [];
  if (!remembered && storeId && hasProduct(product)) {
    category = known ? known.category(product) : await productCategory(w.trx, w.familyId, product);
    if (category != null) {
      sections = known
        ? known.storeSections(storeId)
        : (await sectionRows(w.trx, w.familyId, [storeId])).map(toPlacementSection);
    }
  }
  const own = placeItem({ sectionId: null, remembered, productCategory: category, sections });
  if (!explicit || own.sectionId === explicit) return own;
  return placeItem({ sectionId: explicit, remembered: null, productCategory: null, sections: [] });
}

/** The events of an added item: ItemAdded, ItemSectionChanged (when it got a section),
 *  ListProgress. */
export async function emitItemAdded(w: FamilyWrite, listId: string, item: ItemRecord): Promise<void> {
  w.emit({ type: 'ItemAdded', listId, item });
  if (item.sectionId) sectionChanged(w, listId, item.id, item.sectionId, null);
  await emitListProgress(w, listId);
}

/** The fields an item edit writes as they come (section and checked have rules of their own). */
const EDITED_FIELDS = QUANTITY_FIELDS;

/**
 * Edits an item (a removed one: 404 unless `allowRemoved`, which replication uses so an edit
 * concurrent with a removal is kept). Setting one id of a pair to a value while not sending the
 * other clears the other; sending both set is 400. `sectionId` must be a section of the list's
 * store and is remembered for the item's product; a product set on an item without a section
 * takes the remembered section, and on an item in a section is remembered there. Events: ItemUpdated (field edits), ItemSectionChanged,
 * ItemChecked, ListProgress.
 */
export async function updateItem(
  w: FamilyWrite,
  _actor: Actor,
  listId: string,
  itemId: string,
  patch: ItemPatch,
  options: PathOptions & { allowRemoved?: boolean } = {},
): Promise<ItemRecord> {
  const list = await liveList(w, listId);
  const row = await liveItem(w, listId, itemId, options.allowRemoved ?? false);
  const plan = await planUpdateItem(w, list, row, patch, options);
  if (plan.remember) await rememberSection(w, ...plan.remember);
  if (Object.keys(plan.change).length === 0) return toItem(row);
  const [updated] = await w.update('shopping_list_items', { id: itemId, deleted: false }, plan.change);
  const item = toItem(updated!);
  await emitItemUpdated(w, listId, plan, item);
  return item;
}

export interface ItemUpdatePlan {
  /** The columns to write (none: nothing changes). */
  change: Row;
  fieldsChanged: boolean;
  section: string | null;
  previousSection: string | null;
  checkedChanged: boolean;
  /** The placement to remember (section memory), when there is one. */
  remember: Remember | null;
}

/** The checks of an item edit and the columns it changes (see updateItem). Writes nothing. */
export async function planUpdateItem(
  w: FamilyWrite,
  list: Row,
  row: Row,
  patch: ItemPatch,
  options: PathOptions,
  known?: KnownItemRefs,
): Promise<ItemUpdatePlan> {
  // Setting one id of a pair (and not sending the other) switches the pair over.
  const p: ItemPatch = completePairs({
    ...patch,
    unitOfMeasureId: lower(patch.unitOfMeasureId),
    familyUnitOfMeasureId: lower(patch.familyUnitOfMeasureId),
    productId: lower(patch.productId),
    familyProductId: lower(patch.familyProductId),
    sectionId: lower(patch.sectionId),
  });
  const refs = patchRefs(p);
  await assertUnitRef(w.trx, w.familyId, refs.unit, options, known?.refs);
  await assertProductRef(w.trx, w.familyId, refs.product, options, known?.refs);
  const before = {
    productId: (row.product_id as string | null) ?? null,
    familyProductId: (row.family_product_id as string | null) ?? null,
  };
  const product = patchedProduct(before, p);
  const storeId = list.store_id == null ? null : String(list.store_id);

  const change = changedColumns('items', EDITED_FIELDS, row, p);
  const fieldsChanged = Object.keys(change).length > 0;

  const previousSection = row.section_id == null ? null : String(row.section_id);
  if (p.sectionId) await assertSection(w, list, p.sectionId, options, known?.sections);
  const edit = sectionEdit({
    storeId,
    current: previousSection,
    sectionId: p.sectionId,
    product,
    productChanged: change.product_id !== undefined || change.family_product_id !== undefined,
  });
  const section = edit.recall
    ? known
      ? known.recall(storeId, product)
      : await recallSection(w, storeId, product)
    : edit.section;
  const remember: Remember | null = edit.remember ? [storeId, product, edit.remember] : null;
  if (section !== previousSection) change.section_id = section;

  const checked = checkEdit(!!row.checked, p.checked, () => w.now);
  const checkedChanged = checked !== null;
  if (checked) {
    change.checked = checked.checked;
    change.checked_at = checked.checkedAt;
  }
  return { change, fieldsChanged, section, previousSection, checkedChanged, remember };
}

/** The events of an edited item (`item`: as the edit left it): ItemUpdated (field edits),
 *  ItemSectionChanged, ItemChecked, ListProgress. */
export async function emitItemUpdated(w: FamilyWrite, listId: string, plan: ItemUpdatePlan, item: ItemRecord) {
  if (plan.fieldsChanged) w.emit({ type: 'ItemUpdated', listId, item });
  if (plan.section !== plan.previousSection) sectionChanged(w, listId, item.id, plan.section, plan.previousSection);
  if (plan.checkedChanged) {
    w.emit({ type: 'ItemChecked', listId, itemId: item.id, checked: item.checked });
    if (item.removedAt == null) await emitListProgress(w, listId);
  }
}

/** Flips `checked` (and sets/clears `checkedAt`) of an active item; a removed one is 404. */
export async function toggleItem(w: FamilyWrite, actor: Actor, listId: string, itemId: string): Promise<ItemRecord> {
  await liveList(w, listId);
  const row = await liveItem(w, listId, itemId, false);
  return updateItem(w, actor, listId, itemId, { checked: !row.checked });
}

/** The columns of an item's removal fields (protocol `removal` / `restoration`). */
export function removalColumns(f: RemovalFields<Date>): Row {
  return { removed_at: f.removedAt, removed_by_user_id: f.removedByUserId };
}

/** Soft removal: the row stays (for undo), with removedAt and removedByUserId set. Already
 *  removed: unchanged, no event. Events: ItemRemoved, ListProgress. */
export async function removeItem(w: FamilyWrite, actor: Actor, listId: string, itemId: string): Promise<ItemRecord> {
  await liveList(w, listId);
  const row = await liveItem(w, listId, itemId, true);
  const removed = removal(row.removed_at, actor.userId, w.now);
  if (!removed) return toItem(row);
  const [updated] = await w.update('shopping_list_items', { id: itemId, deleted: false }, removalColumns(removed));
  w.emit({ type: 'ItemRemoved', listId, itemId, removedByUserId: actor.userId });
  await emitListProgress(w, listId);
  return toItem(updated!);
}

/** Undo of a removal. Already active: unchanged, no event. Events: ItemRestored, ListProgress. */
export async function restoreItem(w: FamilyWrite, _actor: Actor, listId: string, itemId: string): Promise<ItemRecord> {
  await liveList(w, listId);
  const row = await liveItem(w, listId, itemId, true);
  const restored = restoration(row.removed_at);
  if (!restored) return toItem(row);
  const [updated] = await w.update('shopping_list_items', { id: itemId, deleted: false }, removalColumns(restored));
  const item = toItem(updated!);
  w.emit({ type: 'ItemRestored', listId, item });
  await emitListProgress(w, listId);
  return item;
}
