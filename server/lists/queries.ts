// SQL for shopping lists and items. Every read filters by family and `deleted`; "active" items
// are the live ones that are not soft-removed.
import type { Db, Trx } from '../db/knex.js';
import type { FamilyWrite } from '../db/family-write.js';
import type { Row } from './common.js';
import type { ListCounts } from './records.js';

type Q = Db | Trx;

function withCounts(db: Q) {
  const active = (checked: boolean) =>
    db('shopping_list_items as i')
      .count('*')
      .whereRaw('i.list_id = l.id')
      .andWhereRaw('i.family_id = l.family_id')
      .andWhere({ 'i.deleted': false })
      .whereNull('i.removed_at')
      .modify((q) => {
        if (checked) q.andWhere({ 'i.checked': true });
      });
  return db('shopping_lists as l').select('l.*', active(false).as('item_count'), active(true).as('checked_count'));
}

export async function listSummaryRows(db: Q, familyId: string, archived: boolean): Promise<Row[]> {
  const q = withCounts(db).where({ 'l.family_id': familyId, 'l.deleted': false });
  if (archived) q.whereNotNull('l.archived_at');
  else q.whereNull('l.archived_at');
  return q.orderBy([{ column: 'l.created_at', order: 'desc' }, { column: 'l.id', order: 'desc' }]);
}

export async function listSummaryRow(db: Q, familyId: string, listId: string): Promise<Row | undefined> {
  return withCounts(db).where({ 'l.family_id': familyId, 'l.id': listId, 'l.deleted': false }).first();
}

export async function listRow(db: Q, familyId: string, listId: string): Promise<Row | undefined> {
  return db('shopping_lists').where({ family_id: familyId, id: listId, deleted: false }).first();
}

/** Live lists of a store. */
export async function listRowsOfStore(db: Q, familyId: string, storeId: string): Promise<Row[]> {
  return db('shopping_lists').where({ family_id: familyId, store_id: storeId, deleted: false });
}

export async function listCounts(db: Q, familyId: string, listId: string): Promise<ListCounts> {
  const r = (await db('shopping_list_items')
    .where({ family_id: familyId, list_id: listId, deleted: false })
    .whereNull('removed_at')
    .select(db.raw('count(*) as item_count'), db.raw('count(*) filter (where checked) as checked_count'))
    .first()) as { item_count: string | number; checked_count: string | number };
  return { itemCount: Number(r.item_count), checkedCount: Number(r.checked_count) };
}

export async function itemRow(db: Q, familyId: string, listId: string, itemId: string): Promise<Row | undefined> {
  return db('shopping_list_items').where({ family_id: familyId, list_id: listId, id: itemId, deleted: false }).first();
}

/** Live items of a list (removed ones too when `includeRemoved`). */
export async function itemRows(db: Q, familyId: string, listId: string, includeRemoved = false): Promise<Row[]> {
  const q = db('shopping_list_items').where({ family_id: familyId, list_id: listId, deleted: false });
  if (!includeRemoved) q.whereNull('removed_at');
  return q.orderBy([{ column: 'checked' }, { column: 'created_at' }, { column: 'id' }]);
}

export async function tombstoneItemsOfList(w: FamilyWrite, listId: string): Promise<void> {
  await w.tombstone('shopping_list_items', { list_id: listId });
}
