/**
 * The one 3-way merge of the replication protocol (api-contract §6), used by the
 * client SDK's RxDB conflict handler (and by anyone who needs to predict what a
 * client will do with a conflict).
 *
 * Pure and deterministic: no clock, no randomness, inputs are never mutated.
 */
import { clientFields, type CollectionName, type Doc } from './docs.js';

export interface MergeInput<C extends CollectionName> {
  /** RxDB's `assumedMasterState`: the server state the local change was based on.
   * Absent/null for an insert. */
  base?: Doc<C> | null | undefined;
  /** RxDB's `newDocumentState`: the local (newer) change that was pushed. */
  local: Doc<C>;
  /** RxDB's `realMasterState`: the server's current doc, returned as a conflict. */
  remote: Doc<C>;
}

/**
 * Equality of one field's values as the protocol sees them:
 * - `null` and `undefined` are equal (a missing nullable field is null);
 * - timestamps (`…At` fields) compare by instant, so `…T10:00:00Z` equals
 *   `…T10:00:00.000Z` and `…T12:00:00+02:00` (the server may re-render them);
 * - arrays (`unitCategoryFlags`) compare as sets, order does not matter;
 * - everything else by `===`.
 */
export function fieldEqual(field: string, a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a == null || b == null) return a == null && b == null;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    const sa = [...a].map(String).sort();
    const sb = [...b].map(String).sort();
    return sa.every((v, i) => v === sb[i]);
  }
  if (typeof a === 'string' && typeof b === 'string' && field.endsWith('At')) {
    const ta = Date.parse(a);
    return !Number.isNaN(ta) && ta === Date.parse(b);
  }
  return false;
}

/**
 * Are two docs of a collection equal in every client-controlled field
 * (`clientFields[collection]`, `_deleted` included)? Server-stamped fields
 * (`updatedAt`, `checkedAt`, …) are ignored. This is RxDB's `conflictHandler.isEqual`,
 * and the same test the server applies to `assumedMasterState` vs its row.
 */
export function docsEqual<C extends CollectionName>(collection: C, a: Doc<C>, b: Doc<C>): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  return clientFields[collection].every((f) => fieldEqual(f, x[f], y[f]));
}

/** RxDB's bookkeeping fields of a stored doc: not data. */
const RX_META = new Set(['_meta', '_rev', '_attachments']);

/**
 * Are two docs of a collection equal in every server-stamped field (every field outside
 * `clientFields[collection]`: `id`, `createdAt`, `updatedAt`, items' `checkedAt` and
 * `removedByUserId`, catalogs' `kind`, `code`, `overridden`), compared with `fieldEqual`?
 * These fields never decide a conflict; the server uses this test only to hand its stamps back
 * to a device whose push changed nothing (docs/sync.md "Push", step 3).
 */
export function stampsEqual<C extends CollectionName>(collection: C, a: Doc<C>, b: Doc<C>): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const client = clientFields[collection] as readonly string[];
  const fields = new Set([...Object.keys(x), ...Object.keys(y)]);
  return [...fields].every((f) => client.includes(f) || RX_META.has(f) || fieldEqual(f, x[f], y[f]));
}

/**
 * 3-way merge of a rejected push with the server's current state.
 *
 * Rules, in order:
 *
 * 1. Hard delete on the server wins: `remote._deleted` → the result is `remote`.
 * 2. Server-only fields (`id`, `createdAt`, `updatedAt`, items' `checkedAt` and
 *    `removedByUserId`, catalogs' `kind`, `code`, `overridden`) come from `remote`.
 *    `checkedAt` follows remote even when `checked` comes from local: the server
 *    re-stamps it when it applies the change.
 * 3. Each client-controlled field (`clientFields[collection]`, `_deleted` included),
 *    compared with `base` using `fieldEqual`:
 *      - changed on the local side only  → local's value;
 *      - changed on the remote side only → remote's value;
 *      - changed on both sides           → local's value (the newer push wins);
 *      - changed on neither              → remote's value (same as base).
 *    Where local's and remote's values are equal (e.g. `…:00Z` vs `…:00.000Z`, or
 *    flags in another order) remote's spelling is kept.
 * 4. Items' `removedAt`, "removal wins until an explicit restore":
 *      - a removal on the server that the local side did not see (`remote.removedAt`
 *        set and not equal to `base.removedAt`, e.g. base not removed) stays: the
 *        result has remote's `removedAt` and `removedByUserId` whatever local did (a
 *        concurrent edit, a restore, or a removal of its own);
 *      - so a local restore (base removed, local not) is honoured only when
 *        `remote.removedAt` equals `base.removedAt`: the client saw exactly the
 *        removal it is clearing. If the item was restored and removed again
 *        meanwhile, the newer removal stays;
 *      - otherwise rule 3 (a local removal of an item active on the server wins; a
 *        restore done remotely is kept when local did not touch `removedAt`).
 *    Hence a removal on the server is only ever cleared (or replaced) by a push from a
 *    client that saw that very removal and restored it.
 *    The other fields still merge by rule 3, so local edits made to an item that got
 *    removed are kept on the removed doc (and come back with a later restore). A
 *    server that refuses edits of removed items through push rejects that row and
 *    returns its state; the client then converges to that.
 * 5. No base (an insert whose id already exists on the server): `base` is taken to
 *    be `remote` for every field, so each field where local differs from remote is
 *    "changed on the local side only" and local's value wins. Except `removedAt`,
 *    for which a missing base means "not removed": the inserting client never saw a
 *    removal, so a removed server doc stays removed, and a local insert that is
 *    itself removed removes an active server doc.
 *
 * Idempotent: `mergeDoc(c, { base: remote, local: result, remote })` equals
 * `result` (RxDB pushes the result with `assumedMasterState = remote`).
 *
 * @example
 * // base  { name: 'Milk', checked: false, quantity: 1 }
 * // local { name: 'Oat milk', checked: false, quantity: 2 }   (renamed, quantity 2)
 * // remote{ name: 'Milk', checked: true,  quantity: 3 }       (checked, quantity 3)
 * // result{ name: 'Oat milk', checked: true, quantity: 2 }    (one-side changes kept,
 * //                                                             both-side → local)
 * @example
 * // base  { removedAt: null }
 * // local { removedAt: null, name: 'Bread (2)' }              (edited offline)
 * // remote{ removedAt: '2024-05-01T10:00:00Z', removedByUserId: 'u2' }
 * // result{ removedAt: '2024-05-01T10:00:00Z', removedByUserId: 'u2', name: 'Bread (2)' }
 * @example
 * // base  { removedAt: 'T1' }  local { removedAt: null }  (restore by a client that saw T1)
 * // remote{ removedAt: 'T1' }  → result { removedAt: null }   (restored)
 * // remote{ removedAt: 'T2' }  → result { removedAt: 'T2' }   (removed again since: stays)
 */
export function mergeDoc<C extends CollectionName>(collection: C, input: MergeInput<C>): Doc<C> {
  const { base, local, remote } = input;
  if (remote._deleted) return { ...remote };

  const l = local as Record<string, unknown>;
  const r = remote as Record<string, unknown>;
  const b = (base ?? remote) as Record<string, unknown>;
  const result: Record<string, unknown> = { ...r };

  for (const f of clientFields[collection]) {
    if (collection === 'items' && f === 'removedAt') continue;
    result[f] = pick(f, b[f], l[f], r[f]);
  }

  if (collection === 'items') {
    const baseRemovedAt = base ? (base as Record<string, unknown>)['removedAt'] : null;
    result['removedAt'] = mergeRemovedAt(baseRemovedAt, l['removedAt'], r['removedAt']);
    // removedByUserId stays remote's (rule 2): it is the server's record of who removed
    // remote's removal; when local's removal wins, the server stamps it on apply.
  }

  return result as Doc<C>;
}

function mergeRemovedAt(base: unknown, local: unknown, remote: unknown): unknown {
  // A removal on the server that the local side never saw stays.
  if (remote != null && !fieldEqual('removedAt', remote, base)) return remote;
  // Remote not removed, or removed exactly as the local side saw it: rule 3, so a local
  // restore of the removal it saw is honoured.
  return pick('removedAt', base, local, remote);
}

/** Rule 3 for one field. When local's value equals remote's (the same change on both
 * sides, or none), remote's spelling is kept: that makes the merge idempotent to the
 * byte, not only up to `fieldEqual`. */
function pick(field: string, base: unknown, local: unknown, remote: unknown): unknown {
  return fieldEqual(field, local, base) || fieldEqual(field, local, remote) ? remote : local;
}

/**
 * The pushed rows the server refused (`rejected` with any code but `parent_missing`: a rule, a
 * role, validation). The push handler notes them; the conflict handler takes them.
 *
 * Such a row's entry in `conflicts` is the server's state and must replace the local change, not
 * merge with it: when the server row did not move (remote equals base), the 3-way merge would
 * keep the refused change as a "local-only change" and RxDB would push it again, forever.
 */
export class RefusedRows {
  private readonly keys = new Set<string>();

  /** Notes refused rows of a push (call before handing its conflicts to RxDB). */
  note(collection: CollectionName, ids: Iterable<string>): void {
    for (const id of ids) this.keys.add(`${collection}/${id}`);
  }

  /** Was this doc's last push refused? Answers true once per noted refusal. */
  take(collection: CollectionName, id: string): boolean {
    return this.keys.delete(`${collection}/${id}`);
  }
}

/**
 * RxDB conflict handler for a collection (structurally an
 * `RxConflictHandler<DocData<C>>`; no rxdb import here). `isEqual` is `docsEqual`, and before a
 * push (context `upstream-check-if-equal`) also `stampsEqual`. With `refused`, a conflict for a
 * row the server refused resolves to the server's state (the local change is reverted); every
 * other conflict resolves with `mergeDoc` (which takes the server's stamps).
 */
export function conflictHandlerFor<C extends CollectionName>(collection: C, refused?: RefusedRows) {
  return {
    isEqual(a: Doc<C>, b: Doc<C>, context?: string): boolean {
      if (!docsEqual(collection, a, b)) return false;
      // Before a push, RxDB asks whether the local doc differs from the server state it was
      // based on. A local change undone before it was pushed leaves the client fields as they
      // were but the device's own stamps (`updatedAt`, …): it is pushed anyway, and the server
      // answers with its doc, so the device takes the server's stamps (docs/sync.md "Push").
      return context !== 'upstream-check-if-equal' || stampsEqual(collection, a, b);
    },
    async resolve(i: {
      assumedMasterState?: Doc<C> | undefined;
      realMasterState: Doc<C>;
      newDocumentState: Doc<C>;
    }): Promise<Doc<C>> {
      if (refused?.take(collection, (i.newDocumentState as { id: string }).id)) return { ...i.realMasterState };
      return mergeDoc(collection, {
        base: i.assumedMasterState,
        local: i.newDocumentState,
        remote: i.realMasterState,
      });
    },
  };
}
