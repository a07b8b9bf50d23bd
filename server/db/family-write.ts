// The one function that performs a family write. Everything that changes family data (REST
// handlers, replication push, cascades, startup jobs) goes through it:
//
//   1. lock the family's counter row and take the next version (UPDATE ... RETURNING holds the
//      row lock until commit, so a second writer of the same family waits and takes the next
//      number only after the first has committed: version order equals commit order and a reader
//      polling (version, id) > checkpoint never skips a row; writers of other families lock other
//      rows and do not wait);
//   2. run the change, which stamps `version` and `updated_at` on every row it writes (use
//      `w.stamp()` / `w.insert()` / `w.update()`); the database refuses a replicated row written
//      without this version (see `takeFamilyVersion`);
//   3. collect domain events with `w.emit()`;
//   4. commit, then publish the events plus `Changed { version, previous, collections, docs? }`
//      (docs: the live patch of a small commit, read in the transaction just before commit by
//      `deps.livePatch`, which realtime/patches.ts provides). A rolled-back change emits nothing.
//      A change that found nothing to do may say so (`w.unchanged()`): it is rolled back too, so
//      it takes no version and nudges nobody, and its result is still returned.
import type { Deps } from '../context.js';
import type { ChangedEvent, FamilyEvent } from '../events/public.js';
import type { Trx } from './knex.js';
import { notFound } from '../errors.js';
import { LIVE_PATCH_MAX_FRAME_BYTES, type ChangedDocs, type CollectionName } from '@family-shopping/client/protocol';
import { TABLE_COLLECTION } from './replicated-tables.js';
import { errorFields } from '../log.js';
import type { FamilyTable, FamilyTableRows, FamilyTableWhere, FamilyTableWrite } from './rows.js';

export interface FamilyWrite {
  trx: Trx;
  familyId: string;
  /** The family version of this transaction (bigint as a decimal string). */
  version: string;
  now: Date;
  emit(event: FamilyEvent): void;
  /** Columns every written row of a replicated table must carry. Name the table written, so the
   *  `Changed` nudge can say which collections changed (without it, it says "any"); with
   *  `{ name: false }` the table is not named (the writers below name it once rows were written). */
  stamp(table?: string, options?: { name?: boolean }): { family_id: string; version: string; updated_at: Date };
  /** Insert into a replicated table with family_id, version, created_at and updated_at stamped. */
  insert<T extends FamilyTable>(table: T, row: FamilyTableWrite<T>): Promise<FamilyTableRows[T]>;
  /** Update rows of this family in a replicated table, stamping version and updated_at. */
  update<T extends FamilyTable>(
    table: T,
    where: FamilyTableWhere<T>,
    patch: FamilyTableWrite<T>,
  ): Promise<Array<FamilyTableRows[T]>>;
  /** Mark rows of this family as deleted (tombstones), stamping version. */
  tombstone<T extends FamilyTable>(table: T, where: FamilyTableWhere<T>): Promise<Array<FamilyTableRows[T]>>;
  /** `insert` of many rows, all naming the same columns, in one statement; the inserted rows,
   *  in no particular order. */
  insertMany<T extends FamilyTable>(table: T, rows: Array<FamilyTableWrite<T>>): Promise<Array<FamilyTableRows[T]>>;
  /** `update` of many live rows of this family by id in one statement, each with its own patch
   *  (columns a patch leaves out keep their value); the updated rows, in no particular order. */
  updateMany<T extends FamilyTable>(
    table: T,
    patches: Array<{ id: string; patch: FamilyTableWrite<T> }>,
  ): Promise<Array<FamilyTableRows[T]>>;
  /** State shared by helpers for the duration of this write (savepoint child writes share it). */
  scratch: Map<string, unknown>;
  /** Runs in the write's (outermost) transaction once the change is done, before commit. */
  beforeCommit(fn: (trx: Trx) => Promise<void>): void;
  /** Runs after commit, before events are published (e.g. closing sockets). */
  afterCommit(fn: () => void | Promise<void>): void;
  /** This write changed nothing: roll it back (the version is not taken, no event goes out)
   *  and return its result all the same. */
  unchanged(): void;
}

/** Carries the result of a write that changed nothing out of its rolled-back transaction. */
class Unchanged<T> extends Error {
  constructor(readonly result: T) {
    super('unchanged');
  }
}

export async function familyWrite<T>(
  deps: Pick<Deps, 'db' | 'bus' | 'log' | 'clock' | 'livePatch'>,
  familyId: string,
  fn: (w: FamilyWrite) => Promise<T>,
): Promise<T> {
  const events: FamilyEvent[] = [];
  const after: Array<() => void | Promise<void>> = [];
  const before: Array<(trx: Trx) => Promise<void>> = [];
  let version = '0';
  let unchanged = false;
  let docs: ChangedDocs | undefined;
  // Tables written (through insert/update/tombstone or a named stamp); null once something was
  // stamped without naming its table.
  let tables: Set<string> | null = new Set<string>();

  let result: T;
  try {
    result = await deps.db.transaction(async (trx) => {
      const taken = await takeFamilyVersion(trx, familyId);
      if (taken === null) throw notFound('Family not found');
      version = taken;
      const now = deps.clock.now();
      const stamp: FamilyWrite['stamp'] = (table, options) => {
        if (options?.name !== false) {
          if (table === undefined) tables = null;
          else tables?.add(table);
        }
        return { family_id: familyId, version, updated_at: now };
      };
      const w: FamilyWrite = {
        trx,
        familyId,
        version,
        now,
        emit: (e) => events.push(e),
        stamp,
        ...stampedWriters(trx, familyId, now, stamp),
        scratch: new Map(),
        beforeCommit: (f) => before.push(f),
        afterCommit: (f) => after.push(f),
        unchanged: () => {
          unchanged = true;
        },
      };
      const out = await fn(w);
      if (unchanged) throw new Unchanged(out);
      for (const f of before) await f(trx);
      const collections = changedCollections(tables).collections;
      if (collections) docs = await deps.livePatch(trx, familyId, version, collections);
      return out;
    });
  } catch (err) {
    if (err instanceof Unchanged) return err.result as T;
    throw err;
  }

  for (const f of after) {
    try {
      await f();
    } catch (err) {
      deps.log.error({ err: errorFields(err) }, 'after-commit hook failed');
    }
  }
  events.push(changedEvent(Number(version), changedCollections(tables).collections, docs));
  try {
    await deps.bus.publish(familyId, events);
  } catch (err) {
    deps.log.error({ err: errorFields(err), familyId }, 'event publish failed');
  }
  return result;
}

type StampedWriters = Pick<FamilyWrite, 'insert' | 'update' | 'tombstone' | 'insertMany' | 'updateMany'>;

/** The writers of a family write on `trx` (the write's transaction or a savepoint of it): every
 *  row they write carries `stamp(table)` (family, version, updated_at). */
export function stampedWriters(trx: Trx, familyId: string, now: Date, stamp: FamilyWrite['stamp']): StampedWriters {
  // Typed by table in FamilyWrite; here every table alike.
  type Values = Record<string, unknown>;
  const stampOnly = (table: string) => stamp(table, { name: false });
  // A statement that wrote no row (a cascade that found nothing) changed no collection: the
  // table is named for the `Changed` nudge only when rows come back.
  const wrote = <R>(table: string, rows: R[]): R[] => {
    if (rows.length > 0) stamp(table);
    return rows;
  };
  const writers = {
    insert: async (table: string, row: Values) => {
      const [inserted] = await trx(table)
        .insert({ created_at: now, ...row, ...stamp(table) })
        .returning('*');
      return inserted as Record<string, unknown>;
    },
    update: async (table: string, where: Values, patch: Values) =>
      wrote(
        table,
        (await trx(table)
          .where({ ...where, family_id: familyId })
          .update({ ...patch, ...stampOnly(table) })
          .returning('*')) as Values[],
      ),
    tombstone: async (table: string, where: Values) =>
      wrote(
        table,
        (await trx(table)
          .where({ ...where, family_id: familyId, deleted: false })
          .update({ deleted: true, ...stampOnly(table) })
          .returning('*')) as Values[],
      ),
    insertMany: async (table: string, rows: Values[]) => {
      if (rows.length === 0) return [];
      // Times as JSON text, the write's own time encoded once (not once per row and column).
      const nowText = now.toISOString();
      const stamped = rows.map((row) => {
        const out: Record<string, unknown> = { created_at: now, ...row, ...stamp(table) };
        for (const k in out) {
          const v = out[k];
          if (v instanceof Date) out[k] = v === now ? nowText : v.toJSON();
        }
        return out;
      });
      // A column some row leaves out would be NULL in the others' statement, not its default.
      const columns = Object.keys(stamped[0]!);
      if (stamped.some((r) => Object.keys(r).length !== columns.length || !columns.every((c) => c in r))) {
        throw new Error(`insertMany(${table}): every row must name the same columns`);
      }
      // The rows travel as one JSON parameter, typed by the table's own row type: one short
      // statement whatever the number of rows (not rows × columns bind parameters).
      const list = columns.map(() => '??').join(', ');
      const { rows: inserted } = (await trx.raw(
        `INSERT INTO ?? (${list}) SELECT ${list} FROM json_populate_recordset(NULL::??, ?::json) RETURNING *`,
        [table, ...columns, ...columns, table, JSON.stringify(stamped)],
      )) as { rows: Record<string, unknown>[] };
      return inserted;
    },
    updateMany: async (table: string, patches: Array<{ id: string; patch: Values }>) => {
      if (patches.length === 0) return [];
      const { version, updated_at } = stampOnly(table);
      // Each row's patch is a JSON object; jsonb_populate_record(t, patch) is the row with the
      // patch's columns replaced, so a column a patch leaves out keeps its value.
      const columns = [...new Set(patches.flatMap((p) => Object.keys(p.patch)))].filter(
        (c) => c !== 'id' && c !== 'family_id' && c !== 'version' && c !== 'updated_at',
      );
      const sets = columns.map(() => '?? = (jsonb_populate_record(t, v.patch)).??');
      const { rows } = (await trx.raw(
        `UPDATE ?? AS t SET ${[...sets, 'version = ?::bigint', 'updated_at = ?'].join(', ')}
         FROM jsonb_to_recordset(?::jsonb) AS v(id uuid, patch jsonb)
         WHERE t.id = v.id AND t.family_id = ? AND t.deleted = false
         RETURNING t.*`,
        [
          table,
          ...columns.flatMap((c) => [c, c]),
          version,
          updated_at,
          JSON.stringify(patches.map((p) => ({ id: p.id, patch: p.patch }))),
          familyId,
        ],
      )) as { rows: Record<string, unknown>[] };
      return wrote(table, rows);
    },
  };
  return writers as unknown as StampedWriters;
}

/** Writes to the global catalog (units, products) take the next catalog version the same way. */
export async function catalogWrite<T>(
  deps: Pick<Deps, 'db'>,
  fn: (trx: Trx, catalogVersion: string) => Promise<T>,
): Promise<T> {
  return deps.db.transaction(async (trx) => fn(trx, await takeCatalogVersion(trx)));
}

/**
 * Takes the family's next version in this transaction (locking its counter row until commit) and
 * tells the database, in the same statement, that this transaction writes that family at that
 * version (`fs.family_write`, transaction-local). The `*_write_version` triggers
 * (migrations/20261123200001_require_write_version.ts) refuse any insert or update of a replicated
 * family table whose row does not carry exactly that family and version, so a write that forgets
 * to stamp a row, or a foreign-key action that changes a row behind the code's back, fails
 * instead of hiding a change from every device. Returns null when the family has no counter.
 * `familyWrite` is the one caller in the service; benchmarks use it for their baselines.
 */
export async function takeFamilyVersion(trx: Trx, familyId: string): Promise<string | null> {
  const { rows } = (await trx.raw(
    `UPDATE family_counters SET version = version + 1 WHERE family_id = ?
     RETURNING version, set_config('fs.family_write', family_id::text || ':' || version::text, true)`,
    [familyId],
  )) as { rows: Array<{ version: string }> };
  return rows[0] ? String(rows[0].version) : null;
}

/** The catalog counterpart of `takeFamilyVersion` (`fs.catalog_write`). */
export async function takeCatalogVersion(trx: Trx): Promise<string> {
  const { rows } = (await trx.raw(
    `UPDATE catalog_counter SET version = version + 1 WHERE id = 1
     RETURNING version, set_config('fs.catalog_write', version::text, true)`,
  )) as { rows: Array<{ version: string }> };
  return String(rows[0]!.version);
}

/** `collections` of the Changed nudge: the collections the written tables feed, sorted by name;
 *  nothing (meaning "any") when a write did not name its table. */
function changedCollections(tables: Set<string> | null): { collections?: CollectionName[] } {
  if (!tables) return {};
  const names = new Set<CollectionName>();
  for (const t of tables) {
    const c = TABLE_COLLECTION[t];
    if (!c) return {}; // a table this map does not know: say "any" rather than miss it
    names.add(c);
  }
  return { collections: [...names].sort() };
}

/** The `Changed` event of a commit; `docs` only while the whole frame stays within
 *  LIVE_PATCH_MAX_FRAME_BYTES. */
function changedEvent(
  version: number,
  collections: CollectionName[] | undefined,
  docs: ChangedDocs | undefined,
): ChangedEvent {
  const event: ChangedEvent = { type: 'Changed', version, previous: version - 1 };
  if (collections) event.collections = collections;
  if (docs) {
    event.docs = docs;
    if (Buffer.byteLength(JSON.stringify(event)) > LIVE_PATCH_MAX_FRAME_BYTES) delete event.docs;
  }
  return event;
}
