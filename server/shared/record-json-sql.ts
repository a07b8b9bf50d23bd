// A record's JSON text written by SQL, from the protocol's field table (`recordFields`): byte for
// byte what `JSON.stringify` makes of the record that `recordMapper` (record-fields.ts) builds
// from the same row. The list detail writes its list record with it (lists/queries.ts), and the
// item's stored JSON column is this text (migrations/20261124000001_item_record_json.ts holds a
// frozen copy; test/integration/lists/record-json-column.test.ts holds the database to it).
import { recordFields, type CollectionName, type FieldKind } from '@family-shopping/client/protocol';

/** A field as SQL writes it: key, column, kind (the order of the record). */
export type JsonSqlField = readonly [key: string, column: string, kind: FieldKind];

/** The fields of a collection's record for `recordJsonOpenSql`. */
export function jsonSqlFields(collection: CollectionName): JsonSqlField[] {
  return recordFields[collection].map((f) => [f.key, f.column, f.kind] as const);
}

/** The SQL type of a column of each kind (the arguments of a function over the columns). */
export const SQL_TYPES: { readonly [K in FieldKind]: string } = {
  id: 'uuid',
  text: 'text',
  enum: 'text',
  int: 'integer',
  quantity: 'numeric',
  boolean: 'boolean',
  time: 'timestamptz',
  flags: 'integer',
};

/** A value's JSON text; SQL NULL is `null`. `text`/`enum` through `to_json` (its escapes are
 *  `JSON.stringify`'s); `id` a uuid, quoted (nothing in it to escape); `int`, `boolean` and
 *  `quantity` (without trailing zeros) as their text, already JSON; `time` as
 *  `Date.prototype.toISOString()` writes it (UTC, milliseconds, truncated as the driver
 *  truncates microseconds), quoted. */
export function jsonValueSql(sql: string, kind: FieldKind): string {
  switch (kind) {
    case 'text':
    case 'enum':
      return `coalesce(to_json(${sql})::text, 'null')`;
    case 'int':
    case 'boolean':
      return `coalesce((${sql})::text, 'null')`;
    case 'quantity':
      return `coalesce((trim_scale(${sql}))::text, 'null')`;
    case 'id':
      return `coalesce('"' || ${sql} || '"', 'null')`;
    case 'time':
      return `coalesce('"' || to_char(date_trunc('milliseconds', ${sql}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')`;
    case 'flags':
      throw new Error('a flags field has no JSON text in SQL');
  }
}

/**
 * The record as JSON text without its closing brace (so more keys can follow): an SQL
 * expression. `column` turns a column name into the SQL that reads it (a table alias).
 */
export function recordJsonOpenSql(
  fields: readonly JsonSqlField[],
  column: (name: string) => string = (name) => name,
): string {
  return fields
    .map(([key, col, kind], k) => `'${k === 0 ? '{' : ','}"${key}":' || ${jsonValueSql(column(col), kind)}`)
    .join('\n    || ');
}

/**
 * The statements that keep the item's record JSON in `shopping_list_items.record_json_open` (a
 * stored generated column over the function `fs_item_record_json_open`), for the live field
 * table: what a migration that changes the item record pastes as literal SQL (a migration stands
 * alone: it keeps its text, not a call of this). `drop` undoes `create`. Print them with
 * `npx tsx -e "import('./server/shared/record-json-sql.ts').then((m) => console.log(m.itemRecordJsonDdl()))"`.
 */
export function itemRecordJsonDdl(fields: readonly JsonSqlField[] = jsonSqlFields('items')): {
  create: string[];
  drop: string[];
} {
  const columns = fields.map(([, column]) => column);
  const types = fields.map(([, , kind]) => SQL_TYPES[kind]);
  return {
    create: [
      `CREATE FUNCTION fs_item_record_json_open(${columns.map((c, k) => `${c} ${types[k]}`).join(', ')})
  RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT ${recordJsonOpenSql(fields)}
$fn$`,
      `ALTER TABLE shopping_list_items ADD COLUMN record_json_open text
       GENERATED ALWAYS AS (fs_item_record_json_open(${columns.join(', ')})) STORED`,
    ],
    drop: [
      'ALTER TABLE shopping_list_items DROP COLUMN record_json_open',
      `DROP FUNCTION fs_item_record_json_open(${types.join(', ')})`,
    ],
  };
}
