// Small pieces shared by the features (lists, stores, recipes, sync): value mapping for
// records, client-chosen ids on create, path ids, field paths of errors, the edit of a live row.
import { z } from 'zod';
import type { FamilyWrite } from '../db/family-write.js';
import type { FamilyTable, FamilyTableWhere, FamilyTableWrite } from '../db/rows.js';
import { conflict } from '../errors.js';
import { anyRowById, type Row } from './queries.js';

export type { Row };

/** Timestamp column → ISO 8601 string in UTC (null stays null). */
export function isoOrNull(v: unknown): string | null {
  if (v == null) return null;
  return (v instanceof Date ? v : new Date(String(v))).toISOString();
}

export const iso = (v: unknown): string => isoOrNull(v)!;

/** numeric(12,3) column (read back as a string) → JSON number or null. */
export function quantityOut(v: unknown): number | null {
  return v == null ? null : Number(v);
}

export const str = (v: unknown): string => String(v);
export const strOrNull = (v: unknown): string | null => (v == null ? null : String(v));

/** A create with a client-chosen id.
 *  - no row with that id: null (go ahead and insert);
 *  - a live row of this family: that row (the create is a re-send: answer 200 with it);
 *  - a row of another family, or a tombstone: 409 `id_conflict`. */
export async function existingForCreate(w: FamilyWrite, table: string, id: string | undefined): Promise<Row | null> {
  if (!id) return null;
  const row = await anyRowById(w.trx, table, id);
  if (!row) return null;
  if (row.family_id !== w.familyId || row.deleted) throw conflict('id_conflict', 'That id is already taken');
  return row;
}

/** Result of an inner create: `created` false when the id already existed (re-send → 200). */
export interface Created<T> {
  record: T;
  created: boolean;
}

// --- request fields ---------------------------------------------------------------------
// Body fields follow the protocol's rules (@family-shopping/client/protocol: rules.ts, inputs.ts).

/** A path id (a malformed one names no record: 404): any UUID, as the ids a create accepts
 * (`RULES.ref`), not only RFC 9562 versions and variants; taken in lower case, as ids are
 * stored, so what a request writes and the events it emits carry the id as stored (a live frame
 * with an upper-case id does not decode). */
export const uuid = () => z.guid().check(z.toLowerCase());
/** Ids in REST input may be upper case; stored and compared lower case. */
export const lower = <T extends string | null | undefined>(v: T): T =>
  typeof v === 'string' ? (v.toLowerCase() as T) : v;

/** Where a field error points: `body.<field>` in a REST request; a push change's path prefix
 *  (`changes.<i>.doc`, …) inside a push. */
export interface PathOptions {
  /** Prefix of field paths in error details (default `body`). */
  prefix?: string;
}

/** The path of a field error: the prefix (default `body`), a dot, the field. */
export const fieldPath = (o: PathOptions, field: string | number): string => `${o.prefix ?? 'body'}.${field}`;

/** Writes an edit's columns to the live row (by its id) unless they are none; the row after. */
export async function updateRow<T extends FamilyTable>(
  w: FamilyWrite,
  table: T,
  row: Row,
  change: FamilyTableWrite<T>,
): Promise<Row> {
  if (Object.keys(change).length === 0) return row;
  const [updated] = await w.update(table, { id: row.id, deleted: false } as FamilyTableWhere<T>, change);
  return updated!;
}
