// The only SQL of the replication feature: pull pages in (version, id) order, the counters and
// horizon read in the pull's snapshot, current rows for push, and the tombstone purge.
import { ITEM_DOC_JSON } from '../lists/public.js';
import type { Knex } from 'knex';
import {
  effectiveGlobalProducts,
  globalProductsInFamilyLocale,
  LOCALE_NAME_SQL,
  FAMILY_UNIT_COLUMNS,
  GLOBAL_UNIT_COLUMNS,
  type EffectiveProductRow,
  type EffectiveUnitRow,
} from '../catalog/public.js';
import { prepared, type Db, type Trx } from '../db/knex.js';
import { statementFunction } from '../db/statement-function.js';
import type { Row } from './docs.js';

type Q = Db | Trx;

export interface Cursor {
  version: number;
  id: string;
}

/** Smallest and largest UUIDs: `(v, MIN_ID)` is "before every row of version v", `(v, MAX_ID)`
 *  "after every row of version v". */
export const MIN_ID = '00000000-0000-0000-0000-000000000000';
export const MAX_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** `(version, id) > cursor`, written so the (family_id, version, id) index bounds the scan. */
function after<T extends Knex.QueryBuilder>(q: T, cursor: Cursor | null, versionCol = 'version', idCol = 'id'): T {
  if (!cursor) return q;
  const v = String(cursor.version);
  return q
    .where(versionCol, '>=', v)
    .whereRaw(`(${versionCol}, ${idCol}) > (?::bigint, ?::uuid)`, [v, cursor.id || MIN_ID]) as T;
}

export interface Counters {
  version: number;
  horizon: number;
}

export async function familyCounters(q: Q, familyId: string): Promise<Counters> {
  const row = (await q('family_counters').where({ family_id: familyId }).first('version', 'tombstone_horizon')) as
    { version: string; tombstone_horizon: string } | undefined;
  return { version: Number(row?.version ?? 0), horizon: Number(row?.tombstone_horizon ?? 0) };
}

export async function catalogCounter(q: Q): Promise<number> {
  const row = (await q('catalog_counter').where({ id: 1 }).first('version')) as { version: string } | undefined;
  return Number(row?.version ?? 0);
}

/** Rows (tombstones included) of a family table after the cursor, in (version, id) order. */
export function familyRowsAfter(q: Q, table: string, familyId: string, cursor: Cursor | null, limit: number) {
  const query = q(table).where({ family_id: familyId });
  return after(query, cursor)
    .orderBy([{ column: 'version' }, { column: 'id' }])
    .limit(limit) as Knex.QueryBuilder<Row, Row[]>;
}

/** `familyRowsAfter` and the family's counters, in one statement (one snapshot): a pull of a
 *  family table needs no transaction around them. */
export async function familyRowsAndCounters(
  q: Q,
  table: string,
  familyId: string,
  cursor: Cursor | null,
  limit: number,
): Promise<{ rows: Row[]; counters: Counters }> {
  const { rows } = (await q.raw(
    `SELECT c.version::text AS fs_counter_version, c.tombstone_horizon::text AS fs_counter_horizon, t.*
       FROM family_counters c LEFT JOIN LATERAL ? t ON true WHERE c.family_id = ?`,
    [familyRowsAfter(q, table, familyId, cursor, limit), familyId],
  )) as { rows: Array<Row & { fs_counter_version: string; fs_counter_horizon: string }> };
  const first = rows[0];
  const counters = {
    version: Number(first?.fs_counter_version ?? 0),
    horizon: Number(first?.fs_counter_horizon ?? 0),
  };
  return {
    // An empty page is one row of counters whose table columns are all null.
    rows: rows
      .filter((r) => r.id !== null)
      .map(({ fs_counter_version: _v, fs_counter_horizon: _h, ...row }) => row as Row),
    counters,
  };
}

/** `(version, id) > cursor`, written so the (family_id, version, id) index bounds the scan. */
const CURSOR_SQL = ' AND i.version >= :version::bigint AND (i.version, i.id) > (:version::bigint, :id::uuid)';

/** A page of the family's items (`:limit` of them; `:familyId`, and the cursor `:version`, `:id`
 *  when `fromCursor`) as one row: the JSON text of their docs (`ITEM_DOC_JSON`), the number of
 *  rows read (up to `limit + 1`: more than `limit` means the page did not reach the end), the
 *  (version, id) of the page's last row, and the family's counters. One statement reads all of
 *  it in one snapshot, so the pull needs no transaction of its own. */
const itemsPageSql = (fromCursor: boolean) => `SELECT
     coalesce('[' || string_agg(j, ',' ORDER BY rn) FILTER (WHERE rn <= :limit::int) || ']', '[]') AS docs,
     count(*)::int AS row_count,
     (array_agg(version::text ORDER BY rn DESC) FILTER (WHERE rn <= :limit::int))[1] AS last_version,
     (array_agg(id::text ORDER BY rn DESC) FILTER (WHERE rn <= :limit::int))[1] AS last_id,
     (SELECT c.version::text FROM family_counters c WHERE c.family_id = :familyId::uuid) AS counter_version,
     (SELECT c.tombstone_horizon::text FROM family_counters c WHERE c.family_id = :familyId::uuid) AS counter_horizon
   FROM (
     SELECT p.*, row_number() OVER (ORDER BY version, id) AS rn FROM (
       SELECT i.version, i.id, ${ITEM_DOC_JSON} AS j FROM shopping_list_items i
       WHERE i.family_id = :familyId::uuid${fromCursor ? CURSOR_SQL : ''}
       ORDER BY i.version, i.id LIMIT :limit::int + 1
     ) p
   ) r`;

const ITEMS_PAGE_ROW =
  'TABLE (docs text, row_count int, last_version text, last_id text, counter_version text, counter_horizon text)';

/** The items page's two statements (from the start, from a cursor) kept as functions on PGlite
 *  (server/db/statement-function.ts). */
export const ITEMS_PAGE_FUNCTIONS = {
  first: statementFunction({
    name: 'fs_items_page',
    sql: itemsPageSql(false),
    args: [
      ['familyId', 'uuid'],
      ['limit', 'int'],
    ],
    returns: ITEMS_PAGE_ROW,
  }),
  next: statementFunction({
    name: 'fs_items_page_after',
    sql: itemsPageSql(true),
    args: [
      ['familyId', 'uuid'],
      ['version', 'bigint'],
      ['id', 'uuid'],
      ['limit', 'int'],
    ],
    returns: ITEMS_PAGE_ROW,
  }),
};

/** A page of the family's items after the cursor as the JSON text of its docs (`itemsPageSql`),
 *  the number of rows read, the cursor of the page's last row and the family's counters, all
 *  of one snapshot. `viaFunction`: through `ITEMS_PAGE_FUNCTIONS` (PGlite), the same rows. */
export async function itemDocsJsonAfter(
  q: Q,
  familyId: string,
  cursor: Cursor | null,
  limit: number,
  { viaFunction = false }: { viaFunction?: boolean } = {},
): Promise<{ json: string; rows: number; last: { version: string; id: string } | null; counters: Counters }> {
  const fn = cursor ? ITEMS_PAGE_FUNCTIONS.next : ITEMS_PAGE_FUNCTIONS.first;
  const sql = viaFunction ? fn.call : fn.sql;
  const bindings = cursor
    ? { familyId, limit, version: String(cursor.version), id: cursor.id || MIN_ID }
    : { familyId, limit };
  const { rows } = (await q.raw(sql, bindings).options(prepared(viaFunction ? `${fn.name}_call` : fn.name))) as {
    rows: Array<{
      docs: string;
      row_count: number | string;
      last_version: string | null;
      last_id: string | null;
      counter_version: string | null;
      counter_horizon: string | null;
    }>;
  };
  const row = rows[0]!;
  return {
    json: row.docs,
    rows: Number(row.row_count),
    last: row.last_version === null || row.last_id === null ? null : { version: row.last_version, id: row.last_id },
    counters: { version: Number(row.counter_version ?? 0), horizon: Number(row.counter_horizon ?? 0) },
  };
}

// --- a first sync of items in phases (pull-items.ts) ---------------------------------------

/** One page of a walk in phases: `:limit` docs after the active cursor (`:activeVersion`,
 *  `:activeId`), then after the history cursor (`:historyVersion`, `:historyId`), both up to
 *  `:upTo` (null: the family's counter in this snapshot), then after `:upTo` in (version, id)
 *  order, tombstones included. One row: the docs' JSON text (`ITEM_DOC_JSON`), the rows read
 *  (more than `limit`: the page stopped before the end), the phase, version and id of the
 *  page's last row, the counters and the V0 used, all of one snapshot. */
const PHASE_PAGE_SQL = (() => {
  const branch = (phase: number, where: string) => `(SELECT ${phase} AS ph, i.version, i.id, ${ITEM_DOC_JSON} AS j
       FROM shopping_list_items i
       WHERE i.family_id = :familyId::uuid AND ${where}
       ORDER BY i.version, i.id LIMIT :limit::int + 1)`;
  const upTo = 'i.version <= (SELECT up_to FROM u)';
  const after = (v: string, id: string) =>
    `i.version >= :${v}::bigint AND (i.version, i.id) > (:${v}::bigint, :${id}::uuid)`;
  const last = (col: string) => `(array_agg(${col} ORDER BY r.rn DESC) FILTER (WHERE r.rn <= :limit::int))[1]`;
  return `WITH c AS (SELECT version, tombstone_horizon FROM family_counters WHERE family_id = :familyId::uuid),
     u AS (SELECT coalesce(:upTo::bigint, (SELECT version FROM c), 0) AS up_to)
   SELECT
     coalesce('[' || string_agg(r.j, ',' ORDER BY r.rn) FILTER (WHERE r.rn <= :limit::int) || ']', '[]') AS docs,
     count(*)::int AS row_count,
     ${last('r.ph')} AS last_phase,
     ${last('r.version::text')} AS last_version,
     ${last('r.id::text')} AS last_id,
     (SELECT version::text FROM c) AS counter_version,
     (SELECT tombstone_horizon::text FROM c) AS counter_horizon,
     (SELECT up_to::text FROM u) AS up_to
   FROM (
     SELECT p.*, row_number() OVER (ORDER BY p.ph, p.version, p.id) AS rn FROM (
       ${branch(0, `i.removed_at IS NULL AND NOT i.deleted AND ${upTo} AND ${after('activeVersion', 'activeId')}`)}
       UNION ALL
       ${branch(1, `(i.removed_at IS NOT NULL OR i.deleted) AND ${upTo} AND ${after('historyVersion', 'historyId')}`)}
       UNION ALL
       ${branch(2, 'i.version > (SELECT up_to FROM u)')}
     ) p
   ) r`;
})();

/** The phase page's statement, kept as a function on PGlite (server/server.ts). */
export const ITEM_PHASE_PAGE_FUNCTION = statementFunction({
  name: 'fs_items_phase_page',
  sql: PHASE_PAGE_SQL,
  args: [
    ['familyId', 'uuid'],
    ['upTo', 'bigint'],
    ['activeVersion', 'bigint'],
    ['activeId', 'uuid'],
    ['historyVersion', 'bigint'],
    ['historyId', 'uuid'],
    ['limit', 'int'],
  ],
  returns:
    'TABLE (docs text, row_count int, last_phase int, last_version text, last_id text, counter_version text, counter_horizon text, up_to text)',
});

interface PhasePageRow {
  docs: string;
  row_count: number | string;
  last_phase: number | string | null;
  last_version: string | null;
  last_id: string | null;
  counter_version: string | null;
  counter_horizon: string | null;
  up_to: string;
}

/** Where each phase of a first sync of items stands: V0 (null: the family's counter in this
 *  snapshot) and the cursors of the active and history phases. */
export interface ItemPhaseCursors {
  upTo: number | null;
  active: Cursor;
  history: Cursor;
}

/** A page of a first sync of items in phases (`PHASE_PAGE_SQL`): the docs' JSON text, the rows
 *  read, the phase (0 active, 1 history, 2 after V0), version and id of the page's last row, the
 *  family's counters and the V0 used, all of one snapshot. `viaFunction`: through
 *  `ITEM_PHASE_PAGE_FUNCTION` (PGlite), the same rows. */
export async function itemPhasePage(
  q: Q,
  familyId: string,
  cursors: ItemPhaseCursors,
  limit: number,
  { viaFunction = false }: { viaFunction?: boolean } = {},
): Promise<{
  json: string;
  rows: number;
  last: { phase: 0 | 1 | 2; version: string; id: string } | null;
  counters: Counters;
  upTo: number;
}> {
  const fn = ITEM_PHASE_PAGE_FUNCTION;
  const bindings = {
    familyId,
    upTo: cursors.upTo === null ? null : String(cursors.upTo),
    activeVersion: String(cursors.active.version),
    activeId: cursors.active.id || MIN_ID,
    historyVersion: String(cursors.history.version),
    historyId: cursors.history.id || MIN_ID,
    limit,
  };
  const { rows } = (await q
    .raw(viaFunction ? fn.call : fn.sql, bindings)
    .options(prepared(viaFunction ? `${fn.name}_call` : fn.name))) as { rows: PhasePageRow[] };
  const row = rows[0]!;
  const read = Number(row.row_count);
  return {
    json: row.docs,
    rows: read,
    last:
      read === 0 || row.last_id === null || row.last_version === null
        ? null
        : { phase: Number(row.last_phase) as 0 | 1 | 2, version: row.last_version, id: row.last_id },
    counters: { version: Number(row.counter_version ?? 0), horizon: Number(row.counter_horizon ?? 0) },
    upTo: Number(row.up_to),
  };
}

// --- effective product catalog ------------------------------------------------------------

const effectiveGlobalProductsWithCursor = (q: Q, familyId: string) =>
  effectiveGlobalProducts(q, familyId).select('p.catalog_version');

/** Family side of the product catalog after the cursor: family products (tombstones included)
 *  and the family's override rows (each names the global product whose effective doc changed). */
export async function productFamilyRowsAfter(
  q: Q,
  familyId: string,
  cursor: Cursor | null,
  limit: number,
): Promise<Array<{ src: 'family' | 'override'; cursor_id: string; version: string; product_id: string }>> {
  const fp = after(q('family_products').where({ family_id: familyId }), cursor).select(
    q.raw("'family' as src"),
    'id as cursor_id',
    'version',
    'id as product_id',
  );
  const ov = after(q('family_product_overrides').where({ family_id: familyId }), cursor).select(
    q.raw("'override' as src"),
    'id as cursor_id',
    'version',
    'product_id',
  );
  return (await q
    .queryBuilder()
    .select('*')
    .from(q.raw('(? union all ?) as f', [fp, ov]))
    .orderBy([{ column: 'version' }, { column: 'cursor_id' }])
    .limit(limit)) as Array<{ src: 'family' | 'override'; cursor_id: string; version: string; product_id: string }>;
}

export async function familyProductRows(
  q: Q,
  familyId: string,
  ids: string[],
): Promise<Array<EffectiveProductRow & { deleted: boolean }>> {
  if (ids.length === 0) return [];
  return (await q('family_products')
    .where({ family_id: familyId })
    .whereIn('id', ids)
    .select(
      'id',
      q.raw("'family'::text as kind"),
      'name',
      'unit_category_flags',
      'category',
      q.raw('false as overridden'),
      'created_at',
      'updated_at',
      'deleted',
    )) as Array<EffectiveProductRow & { deleted: boolean }>;
}

export async function globalProductRows(q: Q, familyId: string, ids: string[]): Promise<EffectiveProductRow[]> {
  if (ids.length === 0) return [];
  return (await effectiveGlobalProductsWithCursor(q, familyId).whereIn('p.id', ids)) as EffectiveProductRow[];
}

export async function globalProductsAfter(
  q: Q,
  familyId: string,
  cursor: Cursor | null,
  limit: number,
): Promise<Array<EffectiveProductRow & { catalog_version: string }>> {
  const query = after(effectiveGlobalProductsWithCursor(q, familyId), cursor, 'p.catalog_version', 'p.id');
  return (await query.orderBy([{ column: 'p.catalog_version' }, { column: 'p.id' }]).limit(limit)) as Array<
    EffectiveProductRow & { catalog_version: string }
  >;
}

/** The global product's own values in the family's view (no override; the name in the family's
 *  locale, else the English one), for deciding set vs clear of an override: a doc pushed with
 *  the name the family sees is no override of it. */
export async function baseGlobalProduct(
  q: Q,
  familyId: string,
  id: string,
): Promise<{ name: string; unit_category_flags: number; category: string | null } | undefined> {
  return (await globalProductsInFamilyLocale(q, familyId)
    .where('p.id', id)
    .first(q.raw(`${LOCALE_NAME_SQL} as name`), 'p.unit_category_flags', 'p.category')) as
    { name: string; unit_category_flags: number; category: string | null } | undefined;
}

// --- effective unit catalog -----------------------------------------------------------------

const FAMILY_UNIT_DOC_COLUMNS = (q: Q) => [...FAMILY_UNIT_COLUMNS(q), 'deleted', 'version', 'family_id'];

export async function familyUnitsAfter(
  q: Q,
  familyId: string,
  cursor: Cursor | null,
  limit: number,
): Promise<Array<EffectiveUnitRow & { deleted: boolean; version: string }>> {
  const query = after(q('family_units_of_measure').where({ family_id: familyId }), cursor);
  return (await query
    .select(FAMILY_UNIT_DOC_COLUMNS(q))
    .orderBy([{ column: 'version' }, { column: 'id' }])
    .limit(limit)) as Array<EffectiveUnitRow & { deleted: boolean; version: string }>;
}

export async function globalUnitsAfter(
  q: Q,
  cursor: Cursor | null,
  limit: number,
): Promise<Array<EffectiveUnitRow & { catalog_version: string }>> {
  const query = after(q('units_of_measure'), cursor, 'catalog_version', 'id');
  return (await query
    .select([...GLOBAL_UNIT_COLUMNS(q), 'catalog_version'])
    .orderBy([{ column: 'catalog_version' }, { column: 'id' }])
    .limit(limit)) as Array<EffectiveUnitRow & { catalog_version: string }>;
}

// --- push: current rows -----------------------------------------------------------------------

/** The row with that id in a family table, whatever its family or state. */
export async function rowById(q: Q, table: string, id: string): Promise<Row | undefined> {
  return (await q(table).where({ id }).first()) as Row | undefined;
}

/** The rows with these ids in a family table, whatever their family or state. */
export async function rowsByIds(q: Q, table: string, ids: string[]): Promise<Row[]> {
  if (ids.length === 0) return [];
  // One array parameter, not one per id (the push reads up to 500 at once).
  return (await q(table).whereRaw('id = any(?::uuid[])', [ids])) as Row[];
}

export async function familyUnitById(
  q: Q,
  id: string,
): Promise<(EffectiveUnitRow & { deleted: boolean; family_id: string }) | undefined> {
  return (await q('family_units_of_measure').where({ id }).first(FAMILY_UNIT_DOC_COLUMNS(q))) as
    (EffectiveUnitRow & { deleted: boolean; family_id: string }) | undefined;
}

export async function globalUnitById(q: Q, id: string): Promise<EffectiveUnitRow | undefined> {
  return (await q('units_of_measure').where({ id }).first(GLOBAL_UNIT_COLUMNS(q))) as EffectiveUnitRow | undefined;
}

export async function familyProductById(
  q: Q,
  id: string,
): Promise<(EffectiveProductRow & { deleted: boolean; family_id: string }) | undefined> {
  return (await q('family_products')
    .where({ id })
    .first(
      'id',
      q.raw("'family'::text as kind"),
      'name',
      'unit_category_flags',
      'category',
      q.raw('false as overridden'),
      'created_at',
      'updated_at',
      'deleted',
      'family_id',
    )) as (EffectiveProductRow & { deleted: boolean; family_id: string }) | undefined;
}

// --- purge ------------------------------------------------------------------------------------

/**
 * Family tables in the order tombstones are purged: children before the tables they reference.
 * `refs` lists who references a table: a tombstone still referenced by any remaining row (a live
 * row, or a tombstone not yet old enough) is kept for a later run, so a purge never trips a
 * foreign key and never lets ON DELETE SET NULL / CASCADE change a row without a version.
 */
export const PURGE_ORDER: Array<{ table: string; refs: Array<[table: string, column: string]> }> = [
  { table: 'product_store_sections', refs: [] },
  { table: 'recipe_ingredients', refs: [] },
  { table: 'shopping_list_items', refs: [] },
  { table: 'shopping_lists', refs: [['shopping_list_items', 'list_id']] },
  {
    table: 'store_sections',
    refs: [
      ['shopping_list_items', 'section_id'],
      ['product_store_sections', 'section_id'],
    ],
  },
  {
    table: 'stores',
    refs: [
      ['shopping_lists', 'store_id'],
      ['store_sections', 'store_id'],
      ['product_store_sections', 'store_id'],
    ],
  },
  { table: 'recipes', refs: [['recipe_ingredients', 'recipe_id']] },
  { table: 'family_product_overrides', refs: [] },
  {
    table: 'family_products',
    refs: [
      ['shopping_list_items', 'family_product_id'],
      ['recipe_ingredients', 'family_product_id'],
      ['product_store_sections', 'family_product_id'],
    ],
  },
  {
    table: 'family_units_of_measure',
    refs: [
      ['shopping_list_items', 'family_unit_of_measure_id'],
      ['recipe_ingredients', 'family_unit_of_measure_id'],
    ],
  },
];

/** Families that hold at least one tombstone older than the cutoff. */
export async function familiesWithOldTombstones(q: Q, cutoff: Date): Promise<string[]> {
  const ids = new Set<string>();
  for (const { table } of PURGE_ORDER) {
    const rows = (await q(table)
      .where({ deleted: true })
      .andWhere('updated_at', '<', cutoff)
      .distinct('family_id')) as Array<{
      family_id: string;
    }>;
    for (const r of rows) ids.add(r.family_id);
  }
  return [...ids];
}

/** Physically deletes one family's old tombstones of one table; returns the max version deleted. */
export async function purgeTable(
  trx: Trx,
  familyId: string,
  table: string,
  refs: Array<[string, string]>,
  cutoff: Date,
): Promise<{ count: number; maxVersion: number }> {
  const query = trx(table).where({ family_id: familyId, deleted: true }).andWhere('updated_at', '<', cutoff);
  for (const [child, column] of refs) {
    query.whereNotExists(trx(child).select(trx.raw('1')).whereRaw(`${child}.${column} = ${table}.id`));
  }
  const rows = (await query.del().returning(['version'])) as Array<{ version: string }>;
  return { count: rows.length, maxVersion: rows.reduce((m, r) => Math.max(m, Number(r.version)), 0) };
}

/** Raises the family's tombstone horizon (never lowers it). */
export async function raiseHorizon(trx: Trx, familyId: string, version: number): Promise<void> {
  await trx('family_counters')
    .where({ family_id: familyId })
    .update({ tombstone_horizon: trx.raw('greatest(tombstone_horizon, ?::bigint)', [String(version)]) });
}

/** True when some family (or none: a global table) holds this id, tombstones included. */
export async function idExistsAnywhere(q: Q, table: string, id: string): Promise<boolean> {
  return !!(await q(table).where({ id }).first('id'));
}
