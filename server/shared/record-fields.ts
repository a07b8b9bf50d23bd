// Row → record mapping, derived from the protocol's field table (`recordFields`,
// client-sdk/src/protocol/docs.ts): each field reads its column by its kind, so a record has
// exactly the protocol's keys, in its order, and a new field needs no edit here. What a kind
// cannot say (a bit-flag column, a value that depends on another column) is a hook the
// feature's records.ts passes, by field name.
import {
  recordFields,
  type CollectionName,
  type DocData,
  type FieldKind,
  type RecordField,
} from '@family-shopping/client/protocol';
import { iso, isoOrNull, quantityOut, str, strOrNull } from './common.js';
import type { Row } from './queries.js';

/** Reads one field from its column's value (and the whole row, for fields that depend on
 *  another column). */
export type ColumnReader = (value: unknown, row: Row) => unknown;

/** A value that is never null: a string, number, boolean or time by kind. */
const READ: { [K in FieldKind]?: (v: unknown) => unknown } = {
  id: str,
  text: str,
  enum: str,
  int: (v) => Number(v),
  quantity: (v) => Number(v),
  boolean: (v) => !!v,
  time: iso,
};

/** A nullable value: SQL NULL (or an absent column) is `null`. (No record has a nullable
 *  boolean or flags field: one would need a reader here.) */
const READ_NULLABLE: { [K in FieldKind]?: (v: unknown) => unknown } = {
  id: strOrNull,
  text: strOrNull,
  enum: strOrNull,
  int: (v) => (v == null ? null : Number(v)),
  quantity: quantityOut,
  time: isoOrNull,
};

function readerOf(collection: CollectionName, f: RecordField, hook: ColumnReader | undefined): ColumnReader {
  if (hook) return hook;
  const read = (f.nullable ? READ_NULLABLE : READ)[f.kind];
  if (!read) throw new Error(`${collection}.${f.key}: a field of kind ${f.kind} needs a hook`);
  return read;
}

/**
 * The mapper of a collection's rows to its records (the REST record, and the replication doc
 * without `_deleted`). `hooks` replace the kind's reading for the fields they name; a field of
 * kind `flags` must have one. Built once per collection, at module load.
 */
export function recordMapper<C extends CollectionName>(
  collection: C,
  hooks: { readonly [K in keyof DocData<C>]?: ColumnReader } = {},
): (row: object) => DocData<C> {
  const byKey = hooks as Readonly<Record<string, ColumnReader | undefined>>;
  const fields = (recordFields[collection] as readonly RecordField[]).map(
    (f) => [f.key, f.column, readerOf(collection, f, byKey[f.key])] as const,
  );
  return (row) => {
    const r = row as Row;
    const record: Record<string, unknown> = {};
    for (const [key, column, read] of fields) record[key] = read(r[column], r);
    // Every key of DocData<C> is set above from the same table the type is made of.
    return record as DocData<C>;
  };
}

/** A record with its child records under `key`, placed before its times: the REST shape of a
 *  recipe with its ingredients and of a store with its sections. */
export function withChildren<R extends { createdAt: string; updatedAt: string }, K extends string, C>(
  record: R,
  key: K,
  children: C[],
): Omit<R, 'createdAt' | 'updatedAt'> & { [P in K]: C[] } & Pick<R, 'createdAt' | 'updatedAt'> {
  const { createdAt, updatedAt, ...rest } = record;
  return { ...rest, [key]: children, createdAt, updatedAt } as Omit<R, 'createdAt' | 'updatedAt'> & {
    [P in K]: C[];
  } & Pick<R, 'createdAt' | 'updatedAt'>;
}

/** Whether a column's value and a patch's value are the same, by the field's kind: numbers as
 *  numbers (a numeric column reads back as a string), booleans as truth, the rest as is. */
function sameByKind(kind: FieldKind, before: unknown, after: unknown): boolean {
  if (kind === 'quantity' || kind === 'int')
    return (before == null ? null : Number(before)) === (after == null ? null : Number(after));
  if (kind === 'boolean') return !!before === !!after;
  return (before ?? null) === (after ?? null);
}

/**
 * The columns an edit changes: for each of `keys` the patch sets (not undefined) to a value
 * other than the row's, its column and the new value, in the order of `keys`. Empty: nothing
 * changes.
 */
export function changedColumns<C extends CollectionName>(
  collection: C,
  keys: readonly (keyof DocData<C> & string)[],
  row: Row,
  patch: { readonly [K in keyof DocData<C>]?: unknown },
): Row {
  const byKey = new Map((recordFields[collection] as readonly RecordField[]).map((f) => [f.key, f]));
  const values = patch as Readonly<Record<string, unknown>>;
  const change: Row = {};
  for (const key of keys) {
    const f = byKey.get(key)!;
    const value = values[key];
    if (value !== undefined && !sameByKind(f.kind, row[f.column], value)) change[f.column] = value;
  }
  return change;
}

/** The database columns of a collection's record, in the record's key order. */
export function recordColumns(collection: CollectionName): string[] {
  return recordFields[collection].map((f) => f.column);
}
