// Items keep their record's JSON text, written by the database when the row is written.
//
// shopping_list_items.record_json_open: the item record (server/lists/records.ts `toItem`, key
// for key in that order, as `JSON.stringify` writes it) without its closing brace, a stored
// generated column. The list detail appends `}` and a pull page `,"_deleted":…}`, so neither
// builds seventeen JSON values per item on every read: on PGlite a page of 1,000 items took
// about 12.6 ms to build and takes about 5.6 ms to read (docs/benchmarks.md, "Initial sync").
// A write pays instead, once per row.
//
// The function is declared IMMUTABLE, which a generated column requires. Its body calls
// `to_char` and `to_json`, which PostgreSQL marks STABLE because some of their inputs depend on
// settings (locale-aware patterns, the session's time zone): these calls use none (a fixed
// pattern without `TM`, times turned to UTC first, text values), so the result depends on the
// arguments alone.
//
// test/integration/lists/detail-sql.test.ts holds the column to `toItem` (the list detail, a pull
// page, and the stored JSON after every kind of write): a change of the item record needs a
// migration that redefines it.
//
// Stands alone: no imports of live server code.
import type { Knex } from 'knex';

type Kind = 'text' | 'id' | 'literal' | 'time';

/** [key, column, kind], in the record's order. */
const FIELDS: Array<[string, string, Kind]> = [
  ['id', 'id', 'id'],
  ['listId', 'list_id', 'id'],
  ['name', 'name', 'text'],
  ['quantity', 'quantity', 'literal'],
  ['unitOfMeasureId', 'unit_of_measure_id', 'id'],
  ['familyUnitOfMeasureId', 'family_unit_of_measure_id', 'id'],
  ['isApproximate', 'is_approximate', 'literal'],
  ['quantityNote', 'quantity_note', 'text'],
  ['productId', 'product_id', 'id'],
  ['familyProductId', 'family_product_id', 'id'],
  ['sectionId', 'section_id', 'id'],
  ['checked', 'checked', 'literal'],
  ['checkedAt', 'checked_at', 'time'],
  ['removedAt', 'removed_at', 'time'],
  ['removedByUserId', 'removed_by_user_id', 'id'],
  ['createdAt', 'created_at', 'time'],
  ['updatedAt', 'updated_at', 'time'],
];

const TYPES: Record<string, string> = {
  id: 'uuid',
  list_id: 'uuid',
  name: 'text',
  quantity: 'numeric',
  unit_of_measure_id: 'uuid',
  family_unit_of_measure_id: 'uuid',
  is_approximate: 'boolean',
  quantity_note: 'text',
  product_id: 'uuid',
  family_product_id: 'uuid',
  section_id: 'uuid',
  checked: 'boolean',
  checked_at: 'timestamptz',
  removed_at: 'timestamptz',
  removed_by_user_id: 'uuid',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
};

/** A value's JSON text; SQL NULL is `null`. Times as `Date.prototype.toISOString()` writes them
 *  (UTC, milliseconds, truncated as the driver truncates microseconds); numbers without
 *  trailing zeros. */
function valueSql(col: string, kind: Kind): string {
  switch (kind) {
    case 'text':
      return `coalesce(to_json(${col})::text, 'null')`;
    case 'literal':
      return `coalesce((${col === 'quantity' ? `trim_scale(${col})` : col})::text, 'null')`;
    case 'id':
      return `coalesce('"' || ${col} || '"', 'null')`;
    case 'time':
      return `coalesce('"' || to_char(date_trunc('milliseconds', ${col}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')`;
  }
}

const BODY = FIELDS.map(([key, col, kind], k) => `'${k === 0 ? '{' : ','}"${key}":' || ${valueSql(col, kind)}`).join(
  '\n    || ',
);
const COLUMNS = FIELDS.map(([, col]) => col);

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE FUNCTION fs_item_record_json_open(${COLUMNS.map((c) => `${c} ${TYPES[c]}`).join(', ')})
  RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT ${BODY}
$fn$`);
  await knex.raw(
    `ALTER TABLE shopping_list_items ADD COLUMN record_json_open text
       GENERATED ALWAYS AS (fs_item_record_json_open(${COLUMNS.join(', ')})) STORED`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE shopping_list_items DROP COLUMN record_json_open');
  await knex.raw(`DROP FUNCTION fs_item_record_json_open(${COLUMNS.map((c) => TYPES[c]).join(', ')})`);
}
