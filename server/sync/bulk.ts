// The bulk path of a push of items. The accepted rows (those the checks of push.ts let through:
// inserts, edits, removals, restores and deletes) are checked against the references they name,
// read in one query per referenced table for the whole push, and written with one multi-row
// statement per kind (one INSERT, one UPDATE … FROM). Their live events are emitted in row order,
// exactly as applyRow emits them. The rules are the features' own: `planCreateItem` and
// `planUpdateItem` (server/lists/items.ts) are the checks createItem and updateItem make, here
// given the references read in bulk; `requireList`, `pushedInstant`, `cannotMove` are applyRow's.
//
// A row that breaks a rule throws its AppError, as applyRow does (push.ts then applies the push
// again row by row, each row in its own savepoint). A push that needs what only the per-row path
// does (section memory to write: a placement of a product in a section of a store) is left to
// it: `applyItemsInBulk` returns false, having written nothing.
import type { Actor } from '../context.js';
import type { FamilyWrite } from '../db/family-write.js';
import {
  checkEdit,
  fieldEqual,
  removal,
  restoration,
  type Doc,
  type RemovalFields,
} from '@family-shopping/client/protocol';
import { knownRefs, productCategories } from '../catalog/public.js';
import * as lists from '../lists/public.js';
import { iso } from '../shared/common.js';
import { memoryRowsFor, sectionRows, sectionRowsByIds, toPlacementSection } from '../stores/public.js';
import {
  cannotMove,
  itemInput,
  itemPatch,
  pushedCreatedAt,
  pushedInstant,
  requireList,
  type PushContext,
} from './apply.js';
import type { Row, WireDoc } from './docs.js';

type ItemDoc = Doc<'items'>;
/** Field paths of a push's errors name the pushed doc. */
const PUSHED = { prefix: 'newDocumentState' } as const;
const ITEMS = 'shopping_list_items';

/** A row push.ts decided to apply: the server's doc and table row (null: an insert) and the new
 *  state. */
export interface Accepted {
  server: WireDoc | null;
  row: Row | null;
  doc: WireDoc;
}

const NOT_REMOVED: RemovalFields<Date> = { removedAt: null, removedByUserId: null };

/** The removal (protocol `removal`) of an item pushed removed at `removedAt`: the write's time
 *  when the device's equals it, else the device's (a time the database can hold); null when the
 *  item is already removed. */
function itemRemoval(current: unknown, removedAt: string, now: Date, userId: string): RemovalFields<Date> | null {
  const at = pushedInstant('removedAt', removedAt);
  return removal(current, userId, fieldEqual('removedAt', iso(now), removedAt) ? now : at);
}

type ProductKey = { productId: string | null; familyProductId: string | null };
const memoryKey = (storeId: string, p: ProductKey) =>
  p.productId ? `${storeId}|p|${p.productId}` : `${storeId}|f|${p.familyProductId}`;
const hasProduct = (n: ItemDoc) => n.productId != null || n.familyProductId != null;

/** What one accepted row does, planned before anything is written. */
type Step =
  | { kind: 'insert'; listId: string; row: Row; checked: boolean; removed: boolean }
  | {
      kind: 'update';
      listId: string;
      /** The server row, and the columns the row's edit, restore and removal write. */
      before: Row;
      change: Row;
      restored: boolean;
      edit: lists.ItemUpdatePlan | null;
      removed: boolean;
    }
  | { kind: 'delete'; listId: string; before: Row };

/** The references the accepted rows name: lists, units, products, sections and the section
 *  memory of their stores, one query per table; for placement by category (§10) of inserts,
 *  the products' effective categories and their stores' sections. */
async function readReferences(
  w: FamilyWrite,
  ctx: PushContext,
  docs: ItemDoc[],
  inserts: ItemDoc[],
): Promise<lists.KnownItemRefs> {
  const listRows = await lists.listRowsByIds(w.trx, w.familyId, [...new Set(docs.map((n) => String(n.listId)))]);
  // requireList reads its cache first: seed it with the lists read here (an unknown list is read
  // again there and refused with its rule's error).
  const cache = ctx.liveLists;
  for (const l of listRows) if (!cache.has(String(l.id))) cache.set(String(l.id), l);
  const refs = await knownRefs(w.trx, w.familyId, docs);
  const sectionIds = [...new Set(docs.map((n) => n.sectionId).filter((id): id is string => id != null))];
  const sections = new Map(
    (await sectionRowsByIds(w.trx, w.familyId, sectionIds)).map((r) => [String(r.id), String(r.store_id)]),
  );
  // Section memory of every (store, product) a row names: a superset of what the rules recall.
  const storeIds = [...new Set(listRows.map((l) => l.store_id).filter((id): id is string => id != null))].map(String);
  const products = docs.filter(hasProduct).map((n) => ({ productId: n.productId, familyProductId: n.familyProductId }));
  const memory = new Map(
    (await memoryRowsFor(w.trx, w.familyId, storeIds, products)).map((r) => [
      memoryKey(String(r.store_id), {
        productId: (r.product_id as string | null) ?? null,
        familyProductId: (r.family_product_id as string | null) ?? null,
      }),
      String(r.section_id),
    ]),
  );
  // Placement by category: only inserts that name a product may need it (with a section too:
  // it may be the device's own placement by category).
  const withProduct = inserts.filter(hasProduct);
  const categories = await productCategories(w.trx, w.familyId, withProduct);
  const byStore = new Map<string, ReturnType<typeof toPlacementSection>[]>();
  if (categories.size > 0) {
    for (const r of await sectionRows(w.trx, w.familyId, storeIds)) {
      const id = String(r.store_id);
      const list = byStore.get(id) ?? [];
      list.push(toPlacementSection(r));
      byStore.set(id, list);
    }
  }
  return {
    refs,
    sections,
    recall: (storeId, product) =>
      storeId && (product.productId || product.familyProductId)
        ? (memory.get(memoryKey(storeId, product)) ?? null)
        : null,
    category: (product) => categories.get(product.productId ?? product.familyProductId ?? '') ?? null,
    storeSections: (storeId) => byStore.get(storeId) ?? [],
  };
}

/**
 * Applies the accepted rows of a push of items in bulk. Returns false, having written nothing,
 * when some row needs section memory written (the caller applies the push row by row); throws
 * the AppError of a rule a row breaks.
 */
export async function applyItemsInBulk(
  w: FamilyWrite,
  ctx: PushContext,
  actor: Actor,
  accepted: Accepted[],
): Promise<boolean> {
  if (accepted.length === 0) return true;
  if (accepted.some((a) => a.server !== null && a.row === null)) return false;
  const itemDoc = (doc: WireDoc) => doc as unknown as ItemDoc;
  const live = accepted.filter((a) => !a.doc._deleted);
  const known = await readReferences(
    w,
    ctx,
    live.map((a) => itemDoc(a.doc)),
    live.filter((a) => a.server === null).map((a) => itemDoc(a.doc)),
  );

  // --- the rules, row by row, in the order applyRow checks them ---------------------------------
  const steps: Step[] = [];
  for (const a of accepted) {
    const n = itemDoc(a.doc);
    const s = a.server && itemDoc(a.server);
    if (!s) {
      // createItem, then updateItem (checked) and removeWithTime: the row they leave.
      const listId = String(n.listId);
      const list = await requireList(w, ctx, listId);
      const plan = await lists.planCreateItem(
        w,
        listId,
        list,
        itemInput(n),
        { ...PUSHED, pushed: true, createdAt: pushedCreatedAt(w, n.createdAt) },
        known,
      );
      if (plan.remember) return false;
      const check = checkEdit(false, n.checked, () => w.now);
      const checked = check !== null;
      const removedAt = n.removedAt;
      const gone = removedAt == null ? null : itemRemoval(null, removedAt, w.now, actor.userId);
      const removed = gone !== null;
      // Every row names the same columns: one multi-row statement.
      const row: Row = {
        created_at: w.now,
        ...plan.row,
        checked,
        checked_at: check?.checkedAt ?? null,
        ...lists.removalColumns(gone ?? NOT_REMOVED),
      };
      steps.push({ kind: 'insert', listId, row, checked, removed });
      continue;
    }
    const before = a.row!;
    const listId = String(s.listId);
    if (n._deleted) {
      // Items have no hard delete in REST: the push tombstones the row directly.
      steps.push({ kind: 'delete', listId, before });
      continue;
    }
    if (!fieldEqual('listId', s.listId, n.listId)) throw cannotMove('listId');
    const list = await requireList(w, ctx, listId);
    // Restore first (an edit may come with it), remove last (the edit is kept on the removed item).
    let current: Row = before;
    const change: Row = {};
    const restore = s.removedAt != null && n.removedAt == null ? restoration(before.removed_at) : null;
    const restored = restore !== null;
    if (restore) Object.assign(change, lists.removalColumns(restore));
    current = { ...current, ...change };
    const patch = itemPatch(s, n);
    let edit: lists.ItemUpdatePlan | null = null;
    if (Object.keys(patch).length) {
      edit = await lists.planUpdateItem(w, list, current, patch, PUSHED, known);
      if (edit.remember) return false;
      Object.assign(change, edit.change);
      current = { ...current, ...edit.change };
    }
    let removed = false;
    if (s.removedAt == null && n.removedAt != null) {
      const gone = itemRemoval(current.removed_at, n.removedAt, w.now, actor.userId);
      if (gone) {
        removed = true;
        Object.assign(change, lists.removalColumns(gone));
      } else if (!fieldEqual('removedAt', iso(current.removed_at), n.removedAt)) {
        change.removed_at = pushedInstant('removedAt', n.removedAt);
      }
    }
    steps.push({ kind: 'update', listId, before, change, restored, edit, removed });
  }

  // --- one statement per kind ---------------------------------------------------------------------
  const inserted = await w.insertMany(
    ITEMS,
    steps.flatMap((st) => (st.kind === 'insert' ? [st.row] : [])),
  );
  const updated = await w.updateMany(
    ITEMS,
    steps.flatMap((st) =>
      st.kind === 'delete'
        ? [{ id: String(st.before.id), patch: { deleted: true } }]
        : st.kind === 'update' && Object.keys(st.change).length
          ? [{ id: String(st.before.id), patch: st.change }]
          : [],
    ),
  );
  const written = new Map([...inserted, ...updated].map((r) => [String(r.id), r]));

  // --- the events, in row order, as the feature functions emit them -------------------------------
  for (const st of steps) {
    const id = String(st.kind === 'insert' ? st.row.id : st.before.id);
    const final = written.get(id);
    if (st.kind === 'insert') {
      // The item as createItem inserted it, before the check and the removal.
      const row = final!;
      await lists.emitItemAdded(
        w,
        st.listId,
        lists.toItem({ ...row, checked: false, checked_at: null, removed_at: null, removed_by_user_id: null }),
      );
      if (st.checked) {
        w.emit({ type: 'ItemChecked', listId: st.listId, itemId: id, checked: true });
        await lists.emitListProgress(w, st.listId);
      }
      if (st.removed) {
        w.emit({ type: 'ItemRemoved', listId: st.listId, itemId: id, removedByUserId: actor.userId });
        await lists.emitListProgress(w, st.listId);
      }
      continue;
    }
    if (st.kind === 'delete') {
      if (final && final.removed_at == null) {
        w.emit({ type: 'ItemRemoved', listId: st.listId, itemId: id, removedByUserId: actor.userId });
        await lists.emitListProgress(w, st.listId);
      }
      continue;
    }
    if (!final) continue; // nothing to write (e.g. an edit that changes no column)
    const editCols = Object.keys(st.edit?.change ?? {});
    if (st.restored) {
      // restoreItem's row: the server row with the removal cleared, before the edit.
      const restoredRow = { ...final, ...pick(st.before, editCols), removed_at: null, removed_by_user_id: null };
      w.emit({ type: 'ItemRestored', listId: st.listId, item: lists.toItem(restoredRow) });
      await lists.emitListProgress(w, st.listId);
    }
    if (st.edit && editCols.length) {
      // updateItem's row: the edit done, the removal (last) not yet.
      const editedRow = st.removed ? { ...final, ...pick(st.before, ['removed_at', 'removed_by_user_id']) } : final;
      await lists.emitItemUpdated(w, st.listId, st.edit, lists.toItem(editedRow));
    }
    if (st.removed) {
      w.emit({ type: 'ItemRemoved', listId: st.listId, itemId: id, removedByUserId: actor.userId });
      await lists.emitListProgress(w, st.listId);
    }
  }
  return true;
}

function pick(row: Row, columns: string[]): Row {
  return Object.fromEntries(columns.map((c) => [c, row[c]]));
}
