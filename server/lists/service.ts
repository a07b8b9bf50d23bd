// Shopping lists: optional store of the same family, archive/unarchive, summaries with counts of
// active items and the detail view grouped by section in walking order. Inner functions take a
// FamilyWrite `w` and the actor (shared with the replication push).
import type { Actor, Deps } from '../context.js';
import type { FamilyWrite } from '../db/family-write.js';
import { newId } from '../db/ids.js';
import { badRequest, notFound } from '../errors.js';
import { tokenMembership } from '../auth/public.js';
import { cached, type DetailOf, type DetailRead, type DetailReader } from './detail-cache.js';
import { recallSection, storeRow, deleteStore } from '../stores/public.js';
import { deleteFamilyProduct } from '../catalog/public.js';
import { existingForCreate, fieldPath, lower, type Created, type PathOptions, type Row } from '../shared/common.js';
import {
  itemRows,
  listDetailForToken,
  listRow,
  listRowsOfStore,
  listSummaryRow,
  listSummaryRows,
  tombstoneItemsOfList,
} from './queries.js';
import { toItem, toListSummary, type ListSummary } from './records.js';
import { compareLists } from '@family-shopping/client/protocol';

type ReadDeps = Pick<Deps, 'db'>;

export interface ListInput {
  id?: string;
  name: string;
  storeId?: string | null;
}

export interface ListPatch {
  name?: string;
  storeId?: string | null;
}

async function assertStore(w: FamilyWrite, storeId: string, o: PathOptions): Promise<void> {
  if (!(await storeRow(w.trx, w.familyId, storeId))) {
    throw badRequest('store_not_found', 'The store does not exist', [
      { path: fieldPath(o, 'storeId'), message: 'unknown store' },
    ]);
  }
}

/** The family's live list with this id, or 404 `List not found`. */
export async function liveList(w: FamilyWrite, listId: string): Promise<Row> {
  const row = await listRow(w.trx, w.familyId, listId);
  if (!row) throw notFound('List not found');
  return row;
}

async function summaryIn(w: FamilyWrite, listId: string): Promise<ListSummary> {
  return toListSummary((await listSummaryRow(w.trx, w.familyId, listId))!);
}

// --- reads ---------------------------------------------------------------------------------

export async function listLists(deps: ReadDeps, actor: Actor, archived: boolean): Promise<ListSummary[]> {
  // The protocol's order, which the SDK's lists.summaries$ uses too.
  return (await listSummaryRows(deps.db, actor.familyId, archived)).map((r) => toListSummary(r)).sort(compareLists);
}

/** Active items grouped by section of the list's store in walking order; items without a
 *  section (every item of a list without a store) in a last "Uncategorized" group. Within a
 *  group: unchecked before checked, then by createdAt. The grouping is the protocol's
 *  `listDetail` (which the SDK's lists.detail$ uses too), here as JSON text built by the
 *  database (`listDetailJson`, its SQL twin, held to the same bytes by
 *  test/integration/lists/detail-sql.test.ts), which the REST handler passes through.
 *
 *  The one function that reads a detail: with it, in the same statement (one round trip), the
 *  membership the reader's token names and the family's version (`listDetailForToken`; on
 *  PGlite through the statement's function). It judges nothing: the route layer does
 *  (server/http/route.ts `memberRead`). */
export async function listDetailOf(
  deps: Pick<Deps, 'db' | 'statementFunctions'>,
  who: DetailReader,
  listId: string,
): Promise<DetailRead> {
  const r = await listDetailForToken(deps.db, { ...who, listId }, { viaFunction: deps.statementFunctions === true });
  if (!r) return { membership: undefined, body: null };
  const { body, ...membership } = r;
  return { membership, body: body === null ? null : Buffer.from(body) };
}

/** `listDetailOf` for these deps, behind the copies of `deps.listDetailCache` when there are
 *  (detail-cache.ts `cached`, whose membership read is `tokenMembership`'s). */
export function listDetailReader(
  deps: Pick<Deps, 'db' | 'statementFunctions' | 'listDetailCache' | 'readCache'>,
): DetailOf {
  const detailOf: DetailOf = (who, listId) => listDetailOf(deps, who, listId);
  const copies = deps.listDetailCache;
  return copies ? cached(copies, (who) => tokenMembership(deps, who.userId, who.familyId), detailOf) : detailOf;
}

// --- inner operations -------------------------------------------------------------------------

/** A store of another family (or unknown) → 400 store_not_found. Event: ListCreated. */
export async function createList(
  w: FamilyWrite,
  _actor: Actor,
  input: ListInput,
  o: PathOptions = {},
): Promise<Created<ListSummary>> {
  const existing = await existingForCreate(w, 'shopping_lists', lower(input.id));
  if (existing) return { record: await summaryIn(w, String(existing.id)), created: false };
  const storeId = lower(input.storeId) ?? null;
  if (storeId) await assertStore(w, storeId, o);
  const row = await w.insert('shopping_lists', { id: lower(input.id) ?? newId(), name: input.name, store_id: storeId });
  const list = toListSummary(row, { itemCount: 0, checkedCount: 0 });
  w.emit({ type: 'ListCreated', list });
  return { record: list, created: true };
}

/**
 * Renames and/or changes the store (null unlinks). When the store changes, every item of the
 * list (removed ones too) takes the section the new store remembers for its product, or none
 * (sections belong to a store), with ItemSectionChanged events. Event: ListUpdated.
 */
export async function updateList(
  w: FamilyWrite,
  _actor: Actor,
  listId: string,
  patch: ListPatch,
  o: PathOptions = {},
): Promise<ListSummary> {
  const row = await liveList(w, listId);
  const change: Row = {};
  if (patch.name !== undefined && patch.name !== row.name) change.name = patch.name;
  const storeId = lower(patch.storeId);
  if (storeId !== undefined && storeId !== (row.store_id ?? null)) {
    if (storeId) await assertStore(w, storeId, o);
    change.store_id = storeId;
  }
  if (Object.keys(change).length === 0) return summaryIn(w, listId);
  await w.update('shopping_lists', { id: listId, deleted: false }, change);
  if (change.store_id !== undefined) await resectionItems(w, listId, storeId ?? null);
  const list = await summaryIn(w, listId);
  w.emit({ type: 'ListUpdated', list });
  return list;
}

async function resectionItems(w: FamilyWrite, listId: string, storeId: string | null): Promise<void> {
  for (const item of await itemRows(w.trx, w.familyId, listId)) {
    const previous = item.section_id == null ? null : String(item.section_id);
    const next = await recallSection(w, storeId, {
      productId: item.product_id as string | null,
      familyProductId: item.family_product_id as string | null,
    });
    if (next === previous) continue;
    await w.update('shopping_list_items', { id: item.id, deleted: false }, { section_id: next });
    w.emit({
      type: 'ItemSectionChanged',
      listId,
      itemId: String(item.id),
      sectionId: next,
      previousSectionId: previous,
    });
  }
}

/** Sets archivedAt (already archived: unchanged, no event). Event: ListArchived. */
export async function archiveList(w: FamilyWrite, _actor: Actor, listId: string): Promise<ListSummary> {
  const row = await liveList(w, listId);
  if (row.archived_at != null) return summaryIn(w, listId);
  await w.update('shopping_lists', { id: listId, deleted: false }, { archived_at: w.now });
  w.emit({ type: 'ListArchived', listId });
  return summaryIn(w, listId);
}

/** Clears archivedAt (not archived: unchanged, no event). Event: ListUpdated. */
export async function unarchiveList(w: FamilyWrite, _actor: Actor, listId: string): Promise<ListSummary> {
  const row = await liveList(w, listId);
  if (row.archived_at == null) return summaryIn(w, listId);
  await w.update('shopping_lists', { id: listId, deleted: false }, { archived_at: null });
  const list = await summaryIn(w, listId);
  w.emit({ type: 'ListUpdated', list });
  return list;
}

/** Tombstones the list and all its items. Event: ListDeleted. */
export async function deleteList(w: FamilyWrite, _actor: Actor, listId: string): Promise<void> {
  await liveList(w, listId);
  await tombstoneItemsOfList(w, listId);
  await w.tombstone('shopping_lists', { id: listId });
  w.emit({ type: 'ListDeleted', listId });
}

// Deletes in the features below that reach lists and items: the lists feature builds on stores
// and the catalog, so the part that touches lists lives here and the delete is called from here.

/** Deletes the store (stores/service.ts `deleteStore`); its lists lose their store (ListUpdated). */
export async function deleteStoreAndDetachLists(w: FamilyWrite, actor: Actor, storeId: string): Promise<void> {
  await deleteStore(w, actor, storeId);
  const lists = await listRowsOfStore(w.trx, w.familyId, storeId);
  if (lists.length) await w.update('shopping_lists', { store_id: storeId, deleted: false }, { store_id: null });
  for (const l of lists) {
    const summary = await listSummaryRow(w.trx, w.familyId, String(l.id));
    if (summary) w.emit({ type: 'ListUpdated', list: toListSummary(summary) });
  }
}

/** Deletes the family product (catalog/service.ts `deleteFamilyProduct`); items that link it keep
 *  their name and lose the link (ItemUpdated for each active item). */
export async function deleteProductAndUnlinkItems(
  w: FamilyWrite,
  actor: Actor | null,
  productId: string,
): Promise<void> {
  const id = await deleteFamilyProduct(w, actor, productId);
  const items = await w.update(
    'shopping_list_items',
    { family_product_id: id, deleted: false },
    { family_product_id: null },
  );
  // Lists on screen show the unlinked items at once (active ones: removed items are not shown).
  for (const item of items) {
    if (item.removed_at == null) w.emit({ type: 'ItemUpdated', listId: String(item.list_id), item: toItem(item) });
  }
}
