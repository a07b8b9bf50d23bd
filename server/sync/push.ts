// Push: RxDB's write-to-master rows, applied through the same inner functions as REST.
//
// The whole push is ONE family write (one version, one commit). The server docs of the pushed
// ids are read in one query up front. Each row:
//   1. invalid doc → rejected `validation_failed` (its server state, or a tombstone, in conflicts);
//   2. an id of another family's row → rejected `not_found`, reverted with a tombstone;
//   3. equal to the server doc on client fields → nothing to apply (an idempotent retry); a row
//      equal to its own `assumedMasterState` on client fields (a change undone offline) whose
//      stamps (`updatedAt`, …) differ gets the server doc in conflicts, so the device takes the
//      server's stamps (no version either way);
//   4. server row exists and `assumedMasterState` is absent or differs on client fields, or the
//      server row is a tombstone → conflict: the server's current doc is returned;
//   5. otherwise the change is applied with a child FamilyWrite whose events are buffered: a row
//      failing a rule (an AppError) rolls back alone, its events are dropped, it is listed in
//      `rejected` with the error's code and its server state goes to conflicts.
// A push that applies no row (a retry of rows already so, only conflicts or refusals) is rolled
// back whole: it takes no version and publishes nothing, so re-sending changes nothing at all.
// Rows are first applied together inside ONE savepoint (the common case: every row passes). Only
// when a row fails a rule is that savepoint rolled back and the push applied again, each row in
// its own savepoint, so the failing row rolls back alone. Both passes give the same result; the
// first saves two statements per row. In that first savepoint a push of items is applied
// set-wise (bulk.ts): steps 1-4 for every row, then the references of all rows read at once and
// one statement per kind of write for them all; a row failing a rule sends it to the per-row
// pass like any other.
import type { Actor, Deps, PushOptions } from '../context.js';
import { familyWrite, stampedWriters, type FamilyWrite } from '../db/family-write.js';
import type { Trx } from '../db/knex.js';
import { mapPgError } from '../db/errors.js';
import type { FamilyEvent } from '../events/public.js';
import { AppError, validationFailed, type ErrorCode } from '../errors.js';
import { nulErrors, zodErrors } from '../errors.js';
import {
  DOC_REFERENCES,
  SCHEMA_VERSION,
  docAtSchema,
  docSchemaAt,
  docsEqual,
  pushEnvelopeSchema,
  stampsEqual,
  type CollectionName,
  type RejectedRow,
} from '@family-shopping/client/protocol';
import { applyRow, newPushContext, type PushContext } from './apply.js';
import { applyItemsInBulk, type Accepted } from './bulk.js';
import { REFERENCED_TABLE } from '../db/replicated-tables.js';
import { FAMILY_TABLE, familyDoc, isFamilyCollection, productDoc, unitDoc, type Row, type WireDoc } from './docs.js';
import {
  familyProductById,
  familyUnitById,
  globalProductRows,
  globalUnitById,
  idExistsAnywhere,
  rowById,
  rowsByIds,
} from './queries.js';

export interface PushResult {
  conflicts: WireDoc[];
  rejected: RejectedRow[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The server's doc of an id; `row` is its table row where it was read from one. */
type Current = { doc: WireDoc; row?: Row } | { foreign: true } | null;

/** The server's current doc for an id within the family (tombstones included). */
export async function currentDoc(trx: Trx, familyId: string, collection: CollectionName, id: string): Promise<Current> {
  if (!UUID.test(id)) return null;
  if (isFamilyCollection(collection)) {
    const row = await rowById(trx, FAMILY_TABLE[collection], id);
    if (!row) return null;
    if (row.family_id !== familyId) return { foreign: true };
    return { doc: familyDoc(collection, row) };
  }
  if (collection === 'products') {
    const fp = await familyProductById(trx, id);
    if (fp) return fp.family_id === familyId ? { doc: productDoc(fp, !!fp.deleted) } : { foreign: true };
    const [global] = await globalProductRows(trx, familyId, [id]);
    return global ? { doc: productDoc(global) } : null;
  }
  const fu = await familyUnitById(trx, id);
  if (fu) return fu.family_id === familyId ? { doc: unitDoc(fu, !!fu.deleted) } : { foreign: true };
  const global = await globalUnitById(trx, id);
  return global ? { doc: unitDoc(global) } : null;
}

/** Collections whose rows never change other rows of the same collection (sections and
 *  ingredients renumber their siblings' positions): a doc read before the push stays the
 *  server's doc until the push writes that very id. */
const PREFETCHABLE = new Set<CollectionName>(['lists', 'items', 'stores', 'recipes']);

/** The current docs of the pushed ids, read in one query (ids of other families marked foreign). */
async function prefetchDocs(
  trx: Trx,
  familyId: string,
  collection: CollectionName,
  ids: string[],
): Promise<Map<string, Current>> {
  const out = new Map<string, Current>();
  if (!PREFETCHABLE.has(collection) || !isFamilyCollection(collection)) return out;
  const wanted = [...new Set(ids.filter((id) => UUID.test(id)))];
  for (const id of ids) if (!UUID.test(id)) out.set(id, null);
  for (let i = 0; i < wanted.length; i += 500) {
    const chunk = wanted.slice(i, i + 500);
    const rows = await rowsByIds(trx, FAMILY_TABLE[collection], chunk);
    const byId = new Map(rows.map((r) => [String(r.id), r]));
    for (const id of chunk) {
      const row = byId.get(id);
      out.set(
        id,
        !row ? null : row.family_id !== familyId ? { foreign: true } : { doc: familyDoc(collection, row), row },
      );
    }
  }
  return out;
}

/** A FamilyWrite on a savepoint whose events and after-commit hooks are kept apart, so a row
 *  that rolls back leaves nothing behind. Same stamped writers as familyWrite. */
function childWrite(
  w: FamilyWrite,
  trx: Trx,
  events: FamilyEvent[],
  after: Array<() => void | Promise<void>>,
): FamilyWrite {
  const stamp = w.stamp; // the parent's: a table named here is named for the whole commit
  return {
    trx,
    familyId: w.familyId,
    version: w.version,
    now: w.now,
    emit: (e) => events.push(e),
    stamp,
    ...stampedWriters(trx, w.familyId, w.now, stamp),
    scratch: w.scratch,
    beforeCommit: (f) => w.beforeCommit(f),
    afterCommit: (f) => after.push(f),
    unchanged: () => w.unchanged(),
  };
}

/** One ListProgress per list per push, carrying the counts at commit (the last one collected). */
function collapseProgress(events: FamilyEvent[]): FamilyEvent[] {
  const lastIndex = new Map<string, number>();
  events.forEach((e, i) => {
    if (e.type === 'ListProgress') lastIndex.set(String(e.listId), i);
  });
  return events.filter((e, i) => e.type !== 'ListProgress' || lastIndex.get(String(e.listId)) === i);
}

const tombstoneOf = (doc: Record<string, unknown>): WireDoc => ({ ...doc, _deleted: true }) as WireDoc;

/** The push as the passes see it: the rows, their server docs read up front, the options. */
interface PushInput {
  actor: Actor;
  collection: CollectionName;
  rows: RawRow[];
  prefetched: ReadonlyMap<string, Current>;
  options: PushOptions;
  /** The wire schema the client speaks: its rows and the docs it gets back have that shape. */
  schema: number;
  /** What the rows of this push share (the lists read once). */
  ctx: PushContext;
}

/**
 * One way of applying a whole push. `savepoint: 'push'`: every row in one savepoint shared by
 * the passes of that kind (a pass that returns null wrote nothing and hands the push to the
 * next); a row breaking a rule throws RowFailed, the savepoint rolls back and the push goes to
 * the `'row'` passes, which give each row a savepoint of its own.
 */
interface Strategy {
  name: string;
  savepoint: 'push' | 'row';
  apply(w: FamilyWrite, push: PushInput): Promise<Pass | null>;
}

/** The passes, in the order tried; all give the same result. */
const STRATEGIES: readonly Strategy[] = [
  // Every row decided first, the applied ones written together (bulk.ts); only a push of items
  // with distinct ids, all read up front, and nothing to remember.
  { name: 'bulk', savepoint: 'push', apply: applyBulk },
  // Row by row, all rows in the one savepoint: saves two statements per row.
  { name: 'together', savepoint: 'push', apply: (w, push) => applyRows(w, push, false) },
  // Row by row, each in its own savepoint: the failing row rolls back alone.
  { name: 'each row', savepoint: 'row', apply: (w, push) => applyRows(w, push, true) },
];

/** The AppError of a rule a row broke (a database error mapped to one); anything else (a 5xx,
 *  a bug) is thrown on. */
function ruleError(err: unknown): AppError {
  const appError = err instanceof AppError ? err : mapPgError(err);
  if (!appError || appError.status >= 500) throw err;
  return appError;
}

const emptyPass = (): Pass => ({ result: { conflicts: [], rejected: [] }, events: [], after: [], applied: 0 });

export async function pushDocs(
  deps: Pick<Deps, 'db' | 'bus' | 'log' | 'clock' | 'livePatch' | 'push'>,
  actor: Actor,
  collection: CollectionName,
  body: unknown,
  options: PushOptions = deps.push ?? { bulk: true },
  schema: number = SCHEMA_VERSION,
): Promise<PushResult> {
  const envelope = pushEnvelopeSchema.safeParse(body);
  if (!envelope.success) throw validationFailed(zodErrors(envelope.error, 'body'));
  if (envelope.data.length === 0) return { conflicts: [], rejected: [] };
  const rows = envelope.data;

  return familyWrite(deps, actor.familyId, async (w) => {
    const ids = rows.map((r) => r.newDocumentState.id);
    const prefetched = await prefetchDocs(w.trx, w.familyId, collection, ids);
    const push: PushInput = { actor, collection, rows, prefetched, options, schema, ctx: newPushContext() };
    const pass = await applyPush(w, push);
    // Nothing applied (a retry of rows already so, conflicts, refusals): the push takes no
    // version and nudges no device.
    if (pass.applied === 0) w.unchanged();
    for (const e of collapseProgress(pass.events)) w.emit(e);
    for (const f of pass.after) w.afterCommit(f);
    return pass.result;
  });
}

/** Tries the STRATEGIES in order: the first that applies the push gives its result. */
async function applyPush(w: FamilyWrite, push: PushInput): Promise<Pass> {
  try {
    const pass = await w.trx.transaction(async (sub) => {
      const events: FamilyEvent[] = [];
      const after: Array<() => void | Promise<void>> = [];
      const child = childWrite(w, sub, events, after);
      for (const strategy of STRATEGIES.filter((s) => s.savepoint === 'push')) {
        const p = await strategy.apply(child, push);
        if (p) return { ...p, events: [...events, ...p.events], after: [...after, ...p.after] };
      }
      return null;
    });
    if (pass) return pass;
  } catch (err) {
    if (!(err instanceof RowFailed)) throw err;
  }
  for (const strategy of STRATEGIES.filter((s) => s.savepoint === 'row')) {
    const pass = await strategy.apply(w, push);
    if (pass) return pass;
  }
  throw new Error('no push strategy applied the push');
}

/** Row by row (pushRow), each row in a savepoint of its own or all in the caller's. */
async function applyRows(w: FamilyWrite, push: PushInput, rowSavepoints: boolean): Promise<Pass> {
  const pass = emptyPass();
  const docs = new Map(push.prefetched);
  for (const row of push.rows) await pushRow(w, push, row, pass, docs, rowSavepoints);
  return pass;
}

/** The bulk path (bulk.ts): every row decided first, the applied ones written together; null
 *  when this push is not one it applies alike. */
async function applyBulk(w: FamilyWrite, push: PushInput): Promise<Pass | null> {
  const { collection, rows, prefetched } = push;
  if (collection !== 'items' || !push.options.bulk) return null;
  const ids = rows.map((r) => r.newDocumentState.id);
  if (new Set(ids).size !== ids.length || ids.some((id) => !prefetched.has(id))) return null;
  const pass = emptyPass();
  const accepted: Accepted[] = [];
  for (const row of rows) {
    const current = prefetched.get(row.newDocumentState.id)!;
    const decided = decideRow(collection, row, current, pass.result, push.schema);
    const serverRow = current && 'row' in current ? (current.row ?? null) : null;
    if (decided && 'doc' in decided) accepted.push({ server: decided.serverDoc, row: serverRow, doc: decided.doc });
  }
  try {
    if (!(await applyItemsInBulk(w, push.ctx, push.actor, accepted))) return null;
  } catch (err) {
    throw new RowFailed(ruleError(err).code);
  }
  pass.applied = accepted.length;
  push.options.onBulk?.();
  return pass;
}

interface Pass {
  result: PushResult;
  events: FamilyEvent[];
  after: Array<() => void | Promise<void>>;
  /** Rows applied (written) by this pass. */
  applied: number;
}

/** Thrown out of the all-rows savepoint when a row fails a rule: the push is applied again with
 *  one savepoint per row. */
class RowFailed extends Error {}

type RawRow = { assumedMasterState?: unknown; newDocumentState: Record<string, unknown> & { id: string } };

/** Steps 1-4 of a row: a refusal or conflict goes to `result` (null: nothing to apply), else
 *  the server doc and the validated new state to apply. Both in the shape of the client's wire
 *  `schema` (an older one leaves out the fields added since: they are server-derived, so a
 *  row never needs them, and the docs returned to the client have its shape). */
function decideRow(
  collection: CollectionName,
  raw: RawRow,
  current: Current,
  result: PushResult,
  schema: number,
): { serverDoc: WireDoc | null; doc: WireDoc } | { unknownDeletion: WireDoc } | null {
  const id = raw.newDocumentState.id;
  const reject = (code: ErrorCode, message: string, revert: WireDoc) => {
    result.rejected.push({ id, code, message });
    result.conflicts.push(revert);
    return null;
  };
  if (current && 'foreign' in current) {
    return reject('not_found', 'No such document in your family', tombstoneOf(raw.newDocumentState));
  }
  const serverDoc = current?.doc ? docAtSchema(collection, current.doc, schema) : null;

  const docSchema = docSchemaAt(collection, schema);
  const next = docSchema.safeParse(raw.newDocumentState);
  const assumed = raw.assumedMasterState == null ? null : docSchema.safeParse(raw.assumedMasterState);
  if (!next.success || (assumed && !assumed.success)) {
    const error = !next.success ? next.error : assumed!.error!;
    const prefix = !next.success ? 'newDocumentState' : 'assumedMasterState';
    const message = zodErrors(error, prefix)
      .map((e) => `${e.path}: ${e.message}`)
      .join('; ');
    return reject('validation_failed', message, serverDoc ?? tombstoneOf(raw.newDocumentState));
  }
  const nul = nulErrors(next.data, 'newDocumentState');
  if (nul.length) {
    const message = nul.map((e) => `${e.path}: ${e.message}`).join('; ');
    return reject('validation_failed', message, serverDoc ?? tombstoneOf(raw.newDocumentState));
  }
  const doc = next.data as unknown as WireDoc;

  if (serverDoc && docsEqual(collection, doc as never, serverDoc as never)) {
    // Already so: nothing to apply. A row that changes no client field of its own base (a change
    // undone offline) carries only the device's stamps: the server doc goes back as a conflict so
    // the device takes the server's. A retry (its base differs, or it has none) gets nothing back.
    const base = assumed?.data as unknown as WireDoc | undefined;
    const stampsOnly = base !== undefined && docsEqual(collection, doc as never, base as never);
    if (stampsOnly && !stampsEqual(collection, doc as never, serverDoc as never)) result.conflicts.push(serverDoc);
    return null;
  }
  if (!serverDoc && doc._deleted) return { unknownDeletion: doc }; // deleting what the server never had
  if (serverDoc) {
    const base = assumed?.data as unknown as WireDoc | undefined;
    if (serverDoc._deleted || !base || !docsEqual(collection, base as never, serverDoc as never)) {
      result.conflicts.push(serverDoc);
      return null;
    }
  }
  return { serverDoc, doc };
}

async function pushRow(
  w: FamilyWrite,
  push: PushInput,
  raw: RawRow,
  pass: Pass,
  docs: Map<string, Current>,
  rowSavepoint: boolean,
): Promise<void> {
  const { actor, collection, ctx } = push;
  const { result, events, after } = pass;
  const id = raw.newDocumentState.id;
  const current = docs.has(id) ? docs.get(id)! : await currentDoc(w.trx, w.familyId, collection, id);
  // A later row with the same id must see what this one did: read it again then.
  docs.delete(id);
  const decided = decideRow(collection, raw, current, result, push.schema);
  if (!decided) return;
  if ('unknownDeletion' in decided) {
    // Nothing to delete, unless the record it belongs to has not been pushed yet: the server
    // may make this very row when that record lands (a new store's default sections, same
    // ids), so the deletion waits for it (parent_missing) instead of being lost.
    if (await referencesNotYetPushed(w.trx, collection, decided.unknownDeletion)) {
      result.rejected.push({
        id,
        code: 'parent_missing',
        message: 'Its parent does not exist yet; retry after it is pushed',
      });
    }
    return;
  }
  const { serverDoc, doc } = decided;
  const reject = (code: ErrorCode, message: string, revert: WireDoc) => {
    result.rejected.push({ id, code, message });
    result.conflicts.push(revert);
  };

  if (!rowSavepoint) {
    // Inside the all-rows savepoint: a failure aborts the pass (see pushDocs).
    try {
      await applyRow(w, ctx, actor, collection, serverDoc, doc);
    } catch (err) {
      throw new RowFailed(ruleError(err).code);
    }
    pass.applied++;
    return;
  }

  const rowEvents: FamilyEvent[] = [];
  const rowAfter: Array<() => void | Promise<void>> = [];
  try {
    await w.trx.transaction(async (sub) => {
      await applyRow(childWrite(w, sub, rowEvents, rowAfter), ctx, actor, collection, serverDoc, doc);
    });
  } catch (err) {
    const appError = ruleError(err);
    if (appError.code.endsWith('_not_found') && (await referencesNotYetPushed(w.trx, collection, doc))) {
      // The row names a record the server has never seen (a list, store, section, recipe, unit
      // or product created offline whose own push has not arrived yet: collections replicate
      // independently). Not applied and not reverted: the client retries it later.
      result.rejected.push({ id, code: 'parent_missing', message: `${appError.message}; retry after it is pushed` });
      return;
    }
    return reject(appError.code, appError.message, serverDoc ?? tombstoneOf(doc));
  }
  events.push(...rowEvents);
  after.push(...rowAfter);
  pass.applied++;
}

/** True when a reference of the doc names an id that exists nowhere on the server (in no family,
 *  not even as a tombstone): its record has not been pushed yet. Another family's record or a
 *  deleted one exists, so such rows are still rejected and reverted. */
async function referencesNotYetPushed(trx: Trx, collection: CollectionName, doc: WireDoc): Promise<boolean> {
  for (const [field, parent] of DOC_REFERENCES[collection] ?? []) {
    const value = (doc as Record<string, unknown>)[field];
    if (typeof value !== 'string') continue;
    if (!(await idExistsAnywhere(trx, REFERENCED_TABLE[parent], value))) return true;
  }
  return false;
}
