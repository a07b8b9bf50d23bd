// SQL for shopping lists and items. Every read filters by family and `deleted`; "active" items
// are the live ones that are not soft-removed.
import { prepared, type Db, type Trx } from '../db/knex.js';
import { statementFunction } from '../db/statement-function.js';
import type { FamilyWrite } from '../db/family-write.js';
import type { Row } from '../shared/common.js';
import { recordColumns } from '../shared/record-fields.js';
import { jsonSqlFields, recordJsonOpenSql } from '../shared/record-json-sql.js';
import type { ListCounts } from './records.js';
import { MEMBERSHIP_VERSION_SQL, withVersionText, type MembershipVersion } from '../auth/public.js';
import { UNCATEGORIZED } from '@family-shopping/client/protocol';

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

/** The family's live lists, archived or not, in no order (the caller sorts them by the
 *  protocol's `compareLists`, as the SDK does). */
export async function listSummaryRows(db: Q, familyId: string, archived: boolean): Promise<Row[]> {
  const q = withCounts(db).where({ 'l.family_id': familyId, 'l.deleted': false });
  if (archived) q.whereNotNull('l.archived_at');
  else q.whereNull('l.archived_at');
  return q;
}

export async function listSummaryRow(db: Q, familyId: string, listId: string): Promise<Row | undefined> {
  return withCounts(db).where({ 'l.family_id': familyId, 'l.id': listId, 'l.deleted': false }).first();
}

export async function listRow(db: Q, familyId: string, listId: string): Promise<Row | undefined> {
  return db('shopping_lists').where({ family_id: familyId, id: listId, deleted: false }).first();
}

/** The live lists of the family with these ids (one query for many). */
export async function listRowsByIds(db: Q, familyId: string, listIds: string[]): Promise<Row[]> {
  if (listIds.length === 0) return [];
  return db('shopping_lists').where({ family_id: familyId, deleted: false }).whereIn('id', listIds);
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

/** Every live item of a list, removed ones too, in no particular order (its readers, a store
 *  change's placement and the recipe merge's target, depend on none). */
export async function itemRows(db: Q, familyId: string, listId: string): Promise<Row[]> {
  return db('shopping_list_items').where({ family_id: familyId, list_id: listId, deleted: false });
}

/** Ids of the active checked items of a list, oldest first (done shopping, §10). */
export async function checkedItemIds(db: Q, familyId: string, listId: string): Promise<string[]> {
  const rows = (await db('shopping_list_items')
    .where({ family_id: familyId, list_id: listId, deleted: false, checked: true })
    .whereNull('removed_at')
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select('id')) as Array<{ id: unknown }>;
  return rows.map((r) => String(r.id));
}

/** Which of these ids are live items (removed or not) of the list. */
export async function itemIdsOfList(db: Q, familyId: string, listId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = (await db('shopping_list_items')
    .where({ family_id: familyId, list_id: listId, deleted: false })
    .whereIn('id', ids)
    .select('id')) as Array<{ id: unknown }>;
  return new Set(rows.map((r) => String(r.id)));
}

/** What the suggestions of a list read (§10): the family's live items (removed ones too) created
 *  since `since`, and the active items of the list whatever their age; the given columns. */
export async function suggestionSourceRows(
  db: Q,
  familyId: string,
  listId: string,
  since: Date,
  columns: readonly string[],
): Promise<Row[]> {
  return db('shopping_list_items')
    .select(columns)
    .where({ family_id: familyId, deleted: false })
    .andWhere((q) =>
      q.where('created_at', '>=', since).orWhere((on) => on.where({ list_id: listId }).whereNull('removed_at')),
    );
}

export async function tombstoneItemsOfList(w: FamilyWrite, listId: string): Promise<void> {
  await w.tombstone('shopping_list_items', { list_id: listId });
}

// --- list detail, built by the database -------------------------------------------------------

/** The item record (records.ts `toItem`) as JSON text, from the row's stored generated column
 *  (written by the database with the row: migrations/20261124000001_item_record_json.ts). */
const ITEM_JSON = `(i.record_json_open || '}')`;

/** The item's replication doc (server/sync/docs.ts `familyDoc`): the record, then `_deleted`. */
export const ITEM_DOC_JSON = `(i.record_json_open || ',"_deleted":' || coalesce(i.deleted, false)::text || '}')`;

/** The list record (records.ts `toList`, the protocol's field table), left open: its groups are
 *  appended to it. */
const LIST_JSON_OPEN = `(${recordJsonOpenSql(jsonSqlFields('lists'), (column) => `l.${column}`)})`;

/** The detail's statement; bindings: family, list, the name of the last group. */
const DETAIL_SQL = `WITH l AS (
     SELECT ${recordColumns('lists').join(', ')} FROM shopping_lists
     WHERE family_id = :familyId AND id = :listId AND NOT deleted
   ), s AS (
     SELECT s.id, s.name, s.position, s.created_at FROM store_sections s JOIN l ON s.store_id = l.store_id
     WHERE s.family_id = :familyId AND NOT s.deleted
   ), g AS (
     SELECT s.id AS section_id,
            '[' || string_agg(${ITEM_JSON}, ',' ORDER BY i.checked, date_trunc('milliseconds', i.created_at), i.id) || ']' AS items
     FROM shopping_list_items i LEFT JOIN s ON s.id = i.section_id
     WHERE i.family_id = :familyId AND i.list_id = :listId AND NOT i.deleted AND i.removed_at IS NULL
     GROUP BY s.id
   ), groups AS (
     SELECT '{"sectionId":' || to_json(s.id) || ',"name":' || to_json(s.name) || ',"position":' || s.position
              || ',"items":' || g.items || '}' AS grp,
            false AS last, s.position, date_trunc('milliseconds', s.created_at) AS created, s.id
     FROM g JOIN s ON s.id = g.section_id
     UNION ALL
     SELECT '{"sectionId":null,"name":' || to_json(:uncategorized::text) || ',"position":null,"items":' || g.items || '}',
            true, NULL::int, NULL::timestamptz, NULL::uuid
     FROM g WHERE g.section_id IS NULL
   )
   SELECT ${LIST_JSON_OPEN} || ',"groups":'
            || coalesce((SELECT '[' || string_agg(grp, ',' ORDER BY last, position, created, id) || ']' FROM groups), '[]')
            || '}' AS body
   FROM l`;

/**
 * `GET /api/lists/{id}` as JSON text, built in one statement by the database, so the service
 * passes the string through instead of mapping and encoding a few hundred rows. It is the
 * protocol's `listDetail` (client-sdk/src/protocol/views.ts) written in SQL, byte for byte what
 * `JSON.stringify` makes of it: the list record, then one group per live section of the list's
 * store holding an active item, in walking order (position, createdAt, id), then
 * "Uncategorized" (no section, or one that is not the store's); within a group unchecked before
 * checked, then createdAt, then id. Times compare at the millisecond, as the ISO strings do.
 * Records, groups and the outer object are joined as text (values through `to_json`), so no
 * JSON is built as a value and parsed again on the way. test/integration/lists/detail-sql.test.ts
 * holds the two to the same bytes. Undefined when the family has no such live list.
 */
export async function listDetailJson(
  db: Q,
  familyId: string,
  listId: string,
  { viaFunction = false }: DetailVia = {},
): Promise<string | undefined> {
  const { rows } = (await db.raw(`SELECT ${detailSql(viaFunction)} AS body`, {
    familyId,
    listId,
    uncategorized: UNCATEGORIZED,
  })) as { rows: Array<{ body: string | null }> };
  return rows[0]?.body ?? undefined;
}

/** `viaFunction`: the detail through `DETAIL_FUNCTION` (PGlite), else its statement as is. */
interface DetailVia {
  viaFunction?: boolean;
}

/** The detail as one SQL value: the one place that chooses the function or the statement. */
const detailSql = (viaFunction: boolean) => (viaFunction ? DETAIL_FUNCTION.call : `(${DETAIL_SQL})`);

/**
 * The membership check (as `membershipVersion`) and the list detail (`listDetailJson`) in one
 * statement, one round trip; `body` null when the family has no such live list. Undefined
 * without a membership.
 */
export async function listDetailForToken(
  db: Q,
  input: { userId: string; familyId: string; listId: string },
  { viaFunction = false }: DetailVia = {},
): Promise<(MembershipVersion & { body: string | null }) | undefined> {
  const detail = detailSql(viaFunction);
  const { rows } = (await db
    .raw(`SELECT mv.role, mv.created_at, mv.version, ${detail} AS body FROM (${MEMBERSHIP_VERSION_SQL}) mv`, {
      ...input,
      uncategorized: UNCATEGORIZED,
    })
    .options(prepared(viaFunction ? 'lists_detail_for_token_fn' : 'lists_detail_for_token'))) as {
    rows: Array<MembershipVersion & { body: string | null }>;
  };
  return withVersionText(rows[0]);
}

/** The detail's statement kept as a function on PGlite (server/db/statement-function.ts). */
export const DETAIL_FUNCTION = statementFunction({
  name: 'fs_list_detail',
  sql: DETAIL_SQL,
  args: [
    ['familyId', 'uuid'],
    ['listId', 'uuid'],
    ['uncategorized', 'text'],
  ],
  returns: 'text',
});
