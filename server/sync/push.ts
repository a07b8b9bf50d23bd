// Push: RxDB's write-to-master rows, applied through the same inner functions as REST.
//
// The whole push is ONE family write (one version, one commit). Each row:
//   1. invalid doc → rejected `validation_failed` (its server state, or a tombstone, in conflicts);
//   2. an id of another family's row → rejected `not_found`, reverted with a tombstone;
//   3. equal to the server doc on client fields → nothing to do (an idempotent retry);
//   4. server row exists and `assumedMasterState` is absent or differs on client fields, or the
//      server row is a tombstone → conflict: the server's current doc is returned;
//   5. otherwise the change is applied inside a SAVEPOINT with a child FamilyWrite whose events
//      are buffered: a row failing a rule (an AppError) rolls back alone, its events are dropped,
//      it is listed in `rejected` with the error's code and its server state goes to conflicts.
import type { Actor, Deps } from '../context.js';
import { familyWrite, type FamilyWrite } from '../db/family-write.js';
import type { Trx } from '../db/knex.js';
import { mapPgError } from '../db/errors.js';
import type { FamilyEvent } from '../events/bus.js';
import { AppError, validationFailed } from '../http/errors.js';
import { zodErrors } from '../http/route.js';
import {
  docSchemas,
  docsEqual,
  pushEnvelopeSchema,
  type CollectionName,
  type RejectedRow,
} from '../../client-sdk/src/protocol/index.js';
import { applyRow } from './apply.js';
import { FAMILY_TABLE, familyDoc, isFamilyCollection, productDoc, unitDoc, type WireDoc } from './docs.js';
import { familyProductById, familyUnitById, globalProductRows, globalUnitById, rowById } from './queries.js';

export interface PushResult {
  conflicts: WireDoc[];
  rejected: RejectedRow[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Current = { doc: WireDoc } | { foreign: true } | null;

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

/** A FamilyWrite on a savepoint whose events and after-commit hooks are kept apart, so a row
 *  that rolls back leaves nothing behind. Same stamping as familyWrite. */
function childWrite(w: FamilyWrite, trx: Trx, events: FamilyEvent[], after: Array<() => void | Promise<void>>): FamilyWrite {
  const stamp = () => w.stamp();
  return {
    trx,
    familyId: w.familyId,
    version: w.version,
    now: w.now,
    actorUserId: w.actorUserId,
    emit: (e) => events.push(e),
    stamp,
    insert: async (table, row) => {
      const [inserted] = await trx(table)
        .insert({ created_at: w.now, ...row, ...stamp() })
        .returning('*');
      return inserted as Record<string, unknown>;
    },
    update: async (table, where, patch) =>
      (await trx(table)
        .where({ ...where, family_id: w.familyId })
        .update({ ...patch, ...stamp() })
        .returning('*')) as Record<string, unknown>[],
    tombstone: async (table, where) =>
      (await trx(table)
        .where({ ...where, family_id: w.familyId, deleted: false })
        .update({ deleted: true, ...stamp() })
        .returning('*')) as Record<string, unknown>[],
    scratch: w.scratch,
    beforeCommit: (f) => w.beforeCommit(f),
    afterCommit: (f) => after.push(f),
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

export async function pushDocs(
  deps: Pick<Deps, 'db' | 'bus' | 'log' | 'clock'>,
  actor: Actor,
  collection: CollectionName,
  body: unknown,
): Promise<PushResult> {
  const envelope = pushEnvelopeSchema.safeParse(body);
  if (!envelope.success) throw validationFailed(zodErrors(envelope.error, 'body'));
  if (envelope.data.length === 0) return { conflicts: [], rejected: [] };

  return familyWrite(
    deps,
    actor.familyId,
    async (w) => {
      const result: PushResult = { conflicts: [], rejected: [] };
      const events: FamilyEvent[] = [];
      const after: Array<() => void | Promise<void>> = [];
      for (const row of envelope.data) {
        await pushRow(w, actor, collection, row, result, events, after);
      }
      for (const e of collapseProgress(events)) w.emit(e);
      for (const f of after) w.afterCommit(f);
      return result;
    },
    { actorUserId: actor.userId },
  );
}

async function pushRow(
  w: FamilyWrite,
  actor: Actor,
  collection: CollectionName,
  raw: { assumedMasterState?: unknown; newDocumentState: Record<string, unknown> & { id: string } },
  result: PushResult,
  events: FamilyEvent[],
  after: Array<() => void | Promise<void>>,
): Promise<void> {
  const id = raw.newDocumentState.id;
  const reject = (code: string, message: string, revert: WireDoc) => {
    result.rejected.push({ id, code, message });
    result.conflicts.push(revert);
  };
  const current = await currentDoc(w.trx, w.familyId, collection, id);
  if (current && 'foreign' in current) {
    return reject('not_found', 'No such document in your family', tombstoneOf(raw.newDocumentState));
  }
  const serverDoc = current?.doc ?? null;

  const schema = docSchemas[collection];
  const next = schema.safeParse(raw.newDocumentState);
  const assumed = raw.assumedMasterState == null ? null : schema.safeParse(raw.assumedMasterState);
  if (!next.success || (assumed && !assumed.success)) {
    const error = !next.success ? next.error : assumed!.error!;
    const prefix = !next.success ? 'newDocumentState' : 'assumedMasterState';
    const message = zodErrors(error, prefix)
      .map((e) => `${e.path}: ${e.message}`)
      .join('; ');
    return reject('validation_failed', message, serverDoc ?? tombstoneOf(raw.newDocumentState));
  }
  const doc = next.data as unknown as WireDoc;

  if (serverDoc && docsEqual(collection, doc as never, serverDoc as never)) return; // already so
  if (!serverDoc && doc._deleted) return; // deleting what the server never had
  if (serverDoc) {
    const base = assumed?.data as unknown as WireDoc | undefined;
    if (serverDoc._deleted || !base || !docsEqual(collection, base as never, serverDoc as never)) {
      result.conflicts.push(serverDoc);
      return;
    }
  }

  const rowEvents: FamilyEvent[] = [];
  const rowAfter: Array<() => void | Promise<void>> = [];
  try {
    await w.trx.transaction(async (sub) => {
      await applyRow(childWrite(w, sub, rowEvents, rowAfter), actor, collection, serverDoc, doc);
    });
  } catch (err) {
    const appError = err instanceof AppError ? err : mapPgError(err);
    if (!appError || appError.status >= 500) throw err;
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
}

/** Reference fields of each collection's docs and the table each points into. */
const REFERENCES: Partial<Record<CollectionName, [string, string][]>> = {
  lists: [['storeId', 'stores']],
  sections: [['storeId', 'stores']],
  items: [
    ['listId', 'shopping_lists'],
    ['sectionId', 'store_sections'],
    ['familyUnitOfMeasureId', 'family_units_of_measure'],
    ['familyProductId', 'family_products'],
  ],
  ingredients: [
    ['recipeId', 'recipes'],
    ['familyUnitOfMeasureId', 'family_units_of_measure'],
    ['familyProductId', 'family_products'],
  ],
};

/** True when a reference of the doc names an id that exists nowhere on the server (in no family,
 *  not even as a tombstone): its record has not been pushed yet. Another family's record or a
 *  deleted one exists, so such rows are still rejected and reverted. */
async function referencesNotYetPushed(trx: Trx, collection: CollectionName, doc: WireDoc): Promise<boolean> {
  for (const [field, table] of REFERENCES[collection] ?? []) {
    const value = (doc as Record<string, unknown>)[field];
    if (typeof value !== 'string') continue;
    const row = await trx(table).where({ id: value }).first('id');
    if (!row) return true;
  }
  return false;
}
