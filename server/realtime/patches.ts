// Live patches (api-contract §7): the `Changed` frame of a small commit carries the docs it
// wrote, so a client whose checkpoint stands at `previous` applies them without a pull. The
// family write (server/db/family-write.ts) calls `committedDocs` as `deps.livePatch` and drops
// the docs again when the whole frame would exceed LIVE_PATCH_MAX_FRAME_BYTES.
//
// The docs are read inside the committing transaction, after the change and its before-commit
// hooks: every row a family write touches carries its version, so the rows of the written
// tables at exactly that version are exactly what the commit wrote, in their committed state,
// mapped by the pull's own row → doc mapping. A pull from `previous` (checkpoint at the end of
// `previous`) in the commit's snapshot returns these rows and ends at the end of `version`.
//
// The catalogs (`products`, `units`) are not patched: their checkpoint also carries the global
// catalog cursor, which only the client knows and only a pull can move; clients pull them.
import type { Trx } from '../db/knex.js';
import { FAMILY_TABLE } from '../db/replicated-tables.js';
import { rowsAtVersion } from './queries.js';
import { familyDoc, isFamilyCollection, type FamilyCollection } from '../sync/public.js';
import {
  LIVE_PATCH_MAX_DOCS,
  checkpointAtVersion,
  type ChangedDocs,
  type Checkpoint,
  type CollectionName,
  type Doc,
} from '@family-shopping/client/protocol';

/** One collection's part of `Changed.docs`. */
type Patch<C extends FamilyCollection> = { documents: Doc<C>[]; checkpoint: Checkpoint };
/** `Changed.docs` as built here: the family collections, each with its own doc type. */
type PatchDocs = { [C in FamilyCollection]?: Patch<C> };

/** The docs a commit wrote, per family collection, when there are at most LIVE_PATCH_MAX_DOCS
 *  of them; undefined above that bound (and when it wrote no family collection). */
export async function committedDocs(
  trx: Trx,
  familyId: string,
  version: string,
  collections: readonly CollectionName[],
): Promise<ChangedDocs | undefined> {
  const docs: PatchDocs = {};
  let count = 0;
  for (const c of collections) {
    if (!isFamilyCollection(c)) continue;
    const rows = await rowsAtVersion(trx, FAMILY_TABLE[c], familyId, version, LIVE_PATCH_MAX_DOCS - count + 1);
    count += rows.length;
    if (count > LIVE_PATCH_MAX_DOCS) return undefined;
    if (rows.length > 0) addPatch(docs, c, rows, Number(version));
  }
  return count > 0 ? docs : undefined;
}

function addPatch<C extends FamilyCollection>(
  docs: PatchDocs,
  c: C,
  rows: Record<string, unknown>[],
  version: number,
): void {
  // The key and the value name the same C (TypeScript cannot see that through PatchDocs[C]).
  (docs as Partial<Record<C, Patch<C>>>)[c] = {
    documents: rows.map((r) => familyDoc(c, r)),
    checkpoint: checkpointAtVersion(version),
  };
}
