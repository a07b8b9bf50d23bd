// What a pull answers and the checkpoint refusals shared by every pull (pull.ts and the phased
// first pull of items, pull-items.ts).
import { AppError } from '../errors.js';
import type { Checkpoint } from '@family-shopping/client/protocol';
import type { WireDoc } from './docs.js';
import type { Counters, Cursor } from './queries.js';

export interface PullResult {
  /** The docs, or the JSON text of their array as the database wrote it (items). */
  documents: WireDoc[] | DocsJson;
  checkpoint: Checkpoint | null;
}

/** A page's docs already encoded as a JSON array (see `pullBody`). */
export interface DocsJson {
  json: string;
  count: number;
}

export const checkpointExpired = () =>
  new AppError(410, 'checkpoint_expired', 'The checkpoint is older than the kept tombstones; re-sync from scratch');

/**
 * A checkpoint beyond the counters this server has handed out (another family's, or one issued
 * before the database was restored from a backup) would skip every row up to it: the client
 * must re-sync from scratch, as for an expired one.
 */
export const checkpointAhead = () =>
  new AppError(410, 'checkpoint_expired', 'The checkpoint is ahead of this server’s data; re-sync from scratch');

/**
 * The family cursor of a checkpoint. Its `id` is the last row's id, plus `/<issuedAt>` on pages
 * that did not reach the end: the family counter when the walk that produced it began. The
 * checkpoint is opaque to clients; only this module reads it.
 */
export interface FamilyPosition {
  cursor: Cursor;
  /** The family counter at the start of the walk (for the horizon check). */
  issuedAt: number;
}

/**
 * Tombstones with versions up to the horizon may be gone. A client whose walk began before a
 * purge that raised the horizon past it may hold rows whose deletion it can no longer learn:
 * it must re-sync. A walk that began after it (a re-sync in pages) is fine, even while its
 * cursor is still among older rows.
 */
export function isExpired(position: FamilyPosition | null, counters: Counters): boolean {
  return !!position && counters.horizon > 0 && position.issuedAt < counters.horizon;
}
