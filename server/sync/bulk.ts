// The bulk path of a push of items: the accepted rows (those the per-row checks of push.ts let
// through) are checked against references read in one query per referenced table, then written
// with one multi-row statement per table, and their live events emitted in row order exactly as
// applyRow would emit them. The rules are the features' own (`requireList`, `assertUnitRef`,
// `assertProductRef`, `assertSection`, `pushedInstant`, …), given the references read in bulk.
//
// A row that breaks a rule throws its AppError, as applyRow does (push.ts then applies the push
// again row by row, each in its own savepoint). A push the bulk path cannot apply alike (an
// update of a row a later row also names, section memory to write, …) is left to the per-row
// path: `applyItemsInBulk` returns false before writing anything.
import type { Actor } from '../context.js';
import type { FamilyWrite } from '../db/family-write.js';
import { fieldEqual } from '@family-shopping/client/protocol';
import { assertProductRef, assertUnitRef, knownRefs } from '../catalog/refs.js';
import { assertSection, emitListProgress, type KnownSections } from '../lists/items.js';
import { listRowsByIds } from '../lists/queries.js';
import { toItem } from '../lists/records.js';
import { iso } from '../lists/common.js';
import { memoryRowsFor, sectionRowsByIds } from '../stores/queries.js';
import { pushedCreatedAt, pushedInstant, requireList } from './apply.js';
import type { WireDoc } from './docs.js';

/** On in the service; a test turns it off to compare the two paths on the same push, and counts
 *  the pushes applied in bulk. */
export const bulkPush = { enabled: true, pushes: 0 };

type D = Record<string, any>;
const O = { prefix: 'newDocumentState' };

/** A row push.ts decided to apply: the server's doc (null: an insert) and the new state. */
export interface Accepted {
  server: WireDoc | null;
  doc: WireDoc;
}

const memoryKey = (storeId: string, p: { productId?: string | null; familyProductId?: string | null }) =>
  p.productId ? `${storeId}|p|${p.productId}` : `${storeId}|f|${p.familyProductId}`;

interface Insert {
  n: D;
  listId: string;
  row: D;
  checked: boolean;
  removed: boolean;
}

/**
 * Applies the accepted rows of a push of items in bulk. Returns false, having written nothing,
 * when some row is not an insert or needs section memory written (the caller applies the push
 * row by row); throws a rule's AppError.
 */
export async function applyItemsInBulk(w: FamilyWrite, actor: Actor, accepted: Accepted[]): Promise<boolean> {
  if (accepted.length === 0) return true;
  const docs = accepted.map((a) => a.doc as D);
  if (accepted.some((a) => a.server !== null || (a.doc as D)._deleted)) return false;

  // --- the references, one query per table ---------------------------------------------------
  const lists = await listRowsByIds(w.trx, w.familyId, [...new Set(docs.map((n) => String(n.listId)))]);
  // requireList reads its cache first: seed it with the lists read here (an unknown list is read
  // again there and refused with its rule's error).
  const cache = (w.scratch.get('sync:liveLists') as Map<string, Record<string, unknown>> | undefined) ?? new Map();
  w.scratch.set('sync:liveLists', cache);
  for (const l of lists) if (!cache.has(String(l.id))) cache.set(String(l.id), l);
  const refs = await knownRefs(w.trx, w.familyId, docs);
  const sectionIds = [...new Set(docs.map((n) => n.sectionId).filter((id): id is string => id != null))];
  const sections: KnownSections = new Map(
    (await sectionRowsByIds(w.trx, w.familyId, sectionIds)).map((r) => [String(r.id), String(r.store_id)]),
  );
  const storeOf = (listId: string) => {
    const storeId = cache.get(listId)?.store_id;
    return storeId == null ? null : String(storeId);
  };
  const hasProduct = (n: D) => n.productId != null || n.familyProductId != null;
  // A pushed placement of a product (section and product on a list with a store) is remembered
  // for the store: section memory is written row by row (the per-row path).
  if (docs.some((n) => n.sectionId != null && hasProduct(n) && storeOf(String(n.listId)))) return false;
  const recall = docs.filter((n) => n.sectionId == null && hasProduct(n) && storeOf(String(n.listId)));
  const memory = new Map(
    (
      await memoryRowsFor(
        w.trx,
        w.familyId,
        [...new Set(recall.map((n) => storeOf(String(n.listId))!))],
        recall.map((n) => ({ productId: n.productId, familyProductId: n.familyProductId })),
      )
    ).map((r) => [
      memoryKey(String(r.store_id), {
        productId: r.product_id as string | null,
        familyProductId: r.family_product_id as string | null,
      }),
      String(r.section_id),
    ]),
  );

  // --- the rules, row by row, in the order applyRow checks them --------------------------------
  const inserts: Insert[] = [];
  for (const n of docs) {
    const listId = String(n.listId);
    const list = await requireList(w, listId);
    const unit = { unitOfMeasureId: n.unitOfMeasureId ?? null, familyUnitOfMeasureId: n.familyUnitOfMeasureId ?? null };
    const product = { productId: n.productId ?? null, familyProductId: n.familyProductId ?? null };
    await assertUnitRef(w.trx, w.familyId, unit, O, refs);
    await assertProductRef(w.trx, w.familyId, product, O, refs);
    const storeId = storeOf(listId);
    let sectionId: string | null = n.sectionId ?? null;
    if (sectionId) await assertSection(w, list, sectionId, O, sections);
    else if (storeId && hasProduct(n)) sectionId = memory.get(memoryKey(storeId, product)) ?? null;
    const createdAt = pushedCreatedAt(w, n.createdAt);
    const row: D = {
      id: n.id,
      list_id: listId,
      name: n.name,
      quantity: n.quantity ?? null,
      unit_of_measure_id: unit.unitOfMeasureId,
      family_unit_of_measure_id: unit.familyUnitOfMeasureId,
      is_approximate: n.isApproximate ?? false,
      quantity_note: n.quantityNote ?? null,
      product_id: product.productId,
      family_product_id: product.familyProductId,
      section_id: sectionId,
      created_at: createdAt ?? w.now,
    };
    // Checked and removed at once: what createItem, then updateItem and removeWithTime, leave.
    // (Every row names the same columns: one multi-row statement.)
    const checked = !!n.checked;
    Object.assign(row, { checked, checked_at: checked ? w.now : null });
    const removed = n.removedAt != null;
    row.removed_at = null;
    row.removed_by_user_id = null;
    if (removed) {
      const at = pushedInstant('removedAt', n.removedAt);
      row.removed_at = fieldEqual('removedAt', iso(w.now), n.removedAt) ? w.now : at;
      row.removed_by_user_id = actor.userId;
    }
    inserts.push({ n, listId, row, checked, removed });
  }

  // --- one statement -----------------------------------------------------------------------------
  const written = new Map(
    (
      await w.insertMany(
        'shopping_list_items',
        inserts.map((i) => i.row),
      )
    ).map((r) => [String(r.id), r]),
  );

  // --- the events, in row order, as createItem / updateItem / removeItem emit them -----------------
  for (const { n, listId, checked, removed } of inserts) {
    const row = written.get(String(n.id))!;
    // The item as createItem inserted it, before the check and the removal.
    const item = toItem({ ...row, checked: false, checked_at: null, removed_at: null, removed_by_user_id: null });
    w.emit({ type: 'ItemAdded', listId, item });
    if (item.sectionId) {
      w.emit({
        type: 'ItemSectionChanged',
        listId,
        itemId: item.id,
        sectionId: item.sectionId,
        previousSectionId: null,
      });
    }
    await emitListProgress(w, listId);
    if (checked) {
      w.emit({ type: 'ItemChecked', listId, itemId: item.id, checked: true });
      await emitListProgress(w, listId);
    }
    if (removed) {
      w.emit({ type: 'ItemRemoved', listId, itemId: item.id, removedByUserId: actor.userId });
      await emitListProgress(w, listId);
    }
  }
  return true;
}
